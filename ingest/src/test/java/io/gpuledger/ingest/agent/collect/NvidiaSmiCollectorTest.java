package io.gpuledger.ingest.agent.collect;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class NvidiaSmiCollectorTest {

    @Test
    void shouldReadWhatTheConfiguredCommandPrints() {
        NvidiaSmiCollector collector = new NvidiaSmiCollector(
                "printf '0, GPU-x, Tesla T4, 12, 100, 30.5\\n' # --query-gpu=index,uuid,name,utilization.gpu,memory.used,power.draw",
                Duration.ofSeconds(5));

        Collector.Round round = collector.collect();

        assertThat(round.errors()).isEmpty();
        assertThat(round.readings()).extracting(GpuReading::uuid).containsExactly("GPU-x");
    }

    @Test
    void shouldTurnAFailingCommandIntoAnErrorOfTheRound() {
        Collector.Round missing = new NvidiaSmiCollector("exit 9", Duration.ofSeconds(5)).collect();
        Collector.Round hanging = new NvidiaSmiCollector("sleep 5", Duration.ofMillis(300)).collect();

        assertThat(missing.readings()).isEmpty();
        assertThat(missing.errors()).singleElement().asString().contains("exited with 9");
        assertThat(hanging.errors()).singleElement().asString().contains("did not finish");
    }
}
