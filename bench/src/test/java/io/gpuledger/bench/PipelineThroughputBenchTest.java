package io.gpuledger.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuledger.cli.UsageException;
import io.gpuledger.model.TopicAdmin;
import io.gpuledger.streams.CostEngineConfig;
import java.io.OutputStream;
import java.io.PrintStream;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The pipeline benchmark's settings and options, read and checked before any broker starts. */
class PipelineThroughputBenchTest {

    @Test
    void shouldRunEachFleetLongEnoughToBeSustainedUnlessToldHowLong() {
        // By default: ten minutes, or as many as make twelve million samples, the first half left out as warm-up
        PipelineThroughputBench.Settings defaults = new PipelineThroughputBench.Settings();
        PipelineThroughputBench.parse(new String[0], defaults);
        assertThat(defaults.minutes(1_000)).isEqualTo(200);
        assertThat(defaults.warmupSeconds(1_000)).isEqualTo(6_000);
        assertThat(defaults.minutes(10_000)).isEqualTo(20);
        assertThat(defaults.warmupSeconds(10_000)).isEqualTo(600);
        assertThat(defaults.minutes(100_000)).isEqualTo(10);
        assertThat(defaults.warmupSeconds(100_000)).isEqualTo(300);
        assertThat(defaults.minutes(7_000)).as("rounded up").isEqualTo(29);
        assertThat(defaults.commitInterval()).isEqualTo(CostEngineConfig.DEFAULT_COMMIT_INTERVAL);
        assertThat(defaults.threads()).as("one stream thread a partition").isEqualTo(TopicAdmin.DEFAULT_PARTITIONS);

        // Told: what it was told, for every fleet
        PipelineThroughputBench.Settings told = new PipelineThroughputBench.Settings();
        PipelineThroughputBench.parse(new String[] {"--minutes", "3", "--warmup", "130", "--commit-interval", "5",
            "--threads", "1"}, told);
        assertThat(told.minutes(1_000)).isEqualTo(3);
        assertThat(told.warmupSeconds(1_000)).isEqualTo(130);
        assertThat(told.minutes(100_000)).isEqualTo(3);
        assertThat(told.commitInterval()).isEqualTo(Duration.ofSeconds(5));
        assertThat(told.threads()).isEqualTo(1);
    }

    @Test
    void shouldRefuseFleetsItCannotRead() {
        PrintStream quiet = new PrintStream(OutputStream.nullOutputStream());
        assertThatThrownBy(() -> PipelineThroughputBench.run(new String[] {"--gpus", "1000,10k"}, quiet))
                .isInstanceOf(UsageException.class).hasMessageContaining("--gpus takes positive whole numbers");
        assertThatThrownBy(() -> PipelineThroughputBench.run(new String[] {"--samples", "10"}, quiet))
                .isInstanceOf(UsageException.class).hasMessageContaining("unknown option '--samples'");
        assertThatThrownBy(() -> PipelineThroughputBench.run(new String[] {"--gpus", "1", "--minutes", "10000"}, quiet))
                .isInstanceOf(UsageException.class).hasMessageContaining("the topics keep 7 days");
    }
}
