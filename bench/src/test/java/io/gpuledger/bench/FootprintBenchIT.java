package io.gpuledger.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.OutputStream;
import java.io.PrintStream;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The footprint benchmark measures every program of a live fleet and the demo stack; how much they
 * use is not a test's business. The fleet and the demo are tried apart, each for two seconds, so that
 * neither test is long.
 */
class FootprintBenchIT {

    private static final PrintStream QUIET = new PrintStream(OutputStream.nullOutputStream());

    @Test
    void shouldMeasureEveryProgramFollowingALiveFleet() throws Exception {
        // When a fleet of 16 GPUs is followed for two seconds
        List<FootprintBench.Row> rows = FootprintBench.fleet(16, 0, 2, QUIET);

        // Then each program has a row, is resident, and its peak is at least what the window saw
        assertThat(rows).extracting(FootprintBench.Row::process).containsExactly(
                "node agent, one per node of 8 GPUs (2 in this fleet); per sample of its own 8/s",
                "simulated fleet, standing in for the agents",
                "cost engine (Kafka Streams)",
                "alert service",
                "embedded broker and the benchmark (this JVM)");
        assertThat(rows).allSatisfy(row -> {
            assertThat(row.gpus()).isEqualTo(16);
            assertThat(row.usage().steadyKb()).isPositive();
            assertThat(row.usage().peakKb()).isGreaterThanOrEqualTo(row.usage().maxKb());
            assertThat(row.usage().cpuSeconds()).isNotNegative();
        });
    }

    @Test
    void shouldMeasureTheDemoAsUsersStartItAndAddUpItsProcesses() throws Exception {
        // When the demo with 16 GPUs is followed for two seconds
        List<FootprintBench.Row> rows = FootprintBench.demo(16, 0, 2, QUIET);

        // Then its JVM and its alert service each have a row, and the last adds them up
        assertThat(rows).extracting(FootprintBench.Row::process).containsExactly(
                "demo: embedded broker, cost engine, simulated fleet (one JVM)",
                "demo's alert service",
                "demo stack, in all (peak: the sum of the processes' peaks)");
        assertThat(rows.get(2).usage().peakKb()).isEqualTo(rows.get(0).usage().peakKb() + rows.get(1).usage().peakKb());
        assertThat(rows.get(2).usage().steadyKb()).isPositive();
    }
}
