package io.gpuledger.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The pipeline benchmark runs end to end and prints its figures; how large they are is not a test's business. */
class PipelineThroughputBenchIT {

    @Test
    void shouldPrintTheCopyThePipelineAndWhatTheAlertServiceReadWithTheRatioLast() throws Exception {
        // Given a fleet of 100 GPUs for four simulated minutes, far smaller than a real run: the samples end four
        // minutes before now, a backlog throughout, and its first minute closes (at 1:00 + 2:00 of grace)
        ByteArrayOutputStream printed = new ByteArrayOutputStream();

        // When it runs
        int status = PipelineThroughputBench.run(new String[] {"--gpus", "100", "--minutes", "4", "--warmup", "20"},
                new PrintStream(printed, true, StandardCharsets.UTF_8));

        // Then it ends well, with the stages, each process's CPU, the alert service's reading, a row for the size,
        // and the headline last (no warm row is asserted: a fast engine may pass the warm-up between two polls)
        List<String> lines = printed.toString(StandardCharsets.UTF_8).lines().toList();
        assertThat(status).isZero();
        assertThat(lines).contains("== 100 GPUs, a sample a second each: 24000 samples, 4 minutes simulated ==")
                .anyMatch(line -> line.startsWith("| copy consumer -> producer, 2nd pass (warm) | 24000 |"))
                .anyMatch(line -> line.startsWith(
                        "| copy consumer -> producer, 3rd pass (after the pipeline) | 24000 |"))
                .anyMatch(line -> line.startsWith("| cost engine done, in the pipeline, all records (cold start) | "
                        + "24000 |"))
                .anyMatch(line -> line.startsWith("| pipeline done, all records (cold start) | 24000 |"))
                .anyMatch(line -> line.startsWith("engine: "))
                .anyMatch(line -> line.startsWith("alert service: "))
                .anyMatch(line -> line.startsWith("broker: "))
                .anyMatch(line -> line.startsWith("| 100 | 24000 | "));
        String read = lines.stream().filter(line -> line.startsWith("the alert service read ")).findFirst()
                .orElseThrow();
        Matcher records = Pattern.compile("read (\\d+) records of the engine's .*gpu\\.usage\\.v1 (\\d+)")
                .matcher(read);
        assertThat(records.find()).as(read).isTrue();
        assertThat(Long.parseLong(records.group(2))).isPositive().isLessThanOrEqualTo(Long.parseLong(records.group(1)));
        // The run's length beside the ratio: 4 simulated minutes, its warm part the samples after the warm-up, or
        // all of them where no progress was seen between the warm-up and the end (a loaded machine whose pipeline
        // output came in one burst)
        String length = " over 4 simulated minutes, (warm: the last \\d+ s|all of them)";
        assertThat(lines.get(lines.size() - 2))
                .matches("100 GPUs: ratio \\d+\\.\\d\\d \\(\\d+/s vs copy \\d+/s\\)" + length);
        assertThat(lines.get(lines.size() - 1))
                .matches("pipeline at 100 GPUs: ratio \\d+\\.\\d\\d \\(\\d+/s vs copy \\d+/s\\)" + length);
    }
}
