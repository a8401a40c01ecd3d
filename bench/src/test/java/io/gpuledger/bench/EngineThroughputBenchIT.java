package io.gpuledger.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The engine benchmark runs end to end and prints its figures; how large they are is not a test's business. */
class EngineThroughputBenchIT {

    @Test
    void shouldPrintEveryStageAndARatioOfTheEngineToTheCopy() throws Exception {
        // Given a benchmark far smaller than a real run
        ByteArrayOutputStream printed = new ByteArrayOutputStream();

        // When it runs
        int status = EngineThroughputBench.run(new String[] {"--samples", "3000", "--gpus", "100", "--warmup", "1000",
            "--instances", "1,2"}, new PrintStream(printed, true, StandardCharsets.UTF_8));

        // Then it ends well, with a row per stage and the ratio last
        List<String> lines = printed.toString(StandardCharsets.UTF_8).lines().toList();
        assertThat(status).isZero();
        assertThat(lines).anyMatch(line -> line.startsWith("| copy consumer -> producer, 2nd pass (warm) | 3000 |"))
                .anyMatch(line -> line.startsWith("| copy consumer -> producer, 3rd pass (after the engine) | 3000 |"))
                .anyMatch(line -> line.startsWith("| cost engine, exactly-once, all records (cold start) | 3000 |"))
                .anyMatch(line -> line.startsWith("cost engine process: "))
                .anyMatch(line -> line.startsWith("broker (this process) meanwhile: "))
                // the input topic's bytes, and its records: one a sample, as it is written outside any transaction
                .anyMatch(line -> line.matches(" +\\d+\\.\\d +1\\.000  gpu\\.telemetry\\.v1"));
        // and a row for each count of instances, the second against the first
        assertThat(lines).anyMatch(line -> line.matches("\\| 1 \\| \\d+ \\| .* \\| 1\\.00 \\| 1\\.00 \\|"))
                .anyMatch(line -> line.matches("\\| 2 \\| \\d+ \\| .*"))
                .anyMatch(line -> line.startsWith("scaling: 1 instance(s) "));
        assertThat(lines.get(lines.size() - 1)).matches("ratio \\d+\\.\\d\\d \\(\\d+/s vs copy \\d+/s\\)");
    }
}
