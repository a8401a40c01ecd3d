package io.gpuledger.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuledger.cli.UsageException;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The footprint benchmark's table and options, without a broker or a process. */
class FootprintBenchTest {

    private static final PrintStream QUIET = new PrintStream(OutputStream.nullOutputStream());

    @Test
    void shouldPrintEveryRowThenTheDemoStacksPeakAgainstItsTarget() {
        // Given a program and a demo stack of 1.2 GiB at peak, 1 GiB steady
        long gib = 1024 * 1024;
        List<FootprintBench.Row> rows = List.of(
                new FootprintBench.Row(1000, "cost engine (Kafka Streams)", "-Xmx1g",
                        new Footprint.Usage(100, 25, 0, 300 * 1024, 310 * 1024, 320 * 1024), 25.0),
                new FootprintBench.Row(10000, "demo stack, in all (peak: the sum of the processes' peaks)", "-",
                        new Footprint.Usage(100, 90, 0, gib, gib * 11 / 10, gib * 12 / 10), Double.NaN));
        ByteArrayOutputStream printed = new ByteArrayOutputStream();

        // When the table is printed
        FootprintBench.printTable(rows, new PrintStream(printed, true, StandardCharsets.UTF_8));

        // Then each row reads as measured, and the headline is last
        List<String> lines = printed.toString(StandardCharsets.UTF_8).lines().toList();
        assertThat(lines).contains("| 1000 | cost engine (Kafka Streams) | -Xmx1g | 0.250 | 25.0 | 300 | 310 | 320 |",
                "| 10000 | demo stack, in all (peak: the sum of the processes' peaks) | - | 0.900 | - | 1024 | 1126 | "
                        + "1229 |");
        assertThat(lines.get(lines.size() - 1))
                .isEqualTo("demo stack at 10000 GPUs: 1.20 GiB resident at peak, 1.00 GiB steady (target 1.5 GB = 1.40 "
                        + "GiB)");
    }

    @Test
    void shouldRefuseOptionsItDoesNotKnow() {
        assertThatThrownBy(() -> FootprintBench.run(new String[] {"--gpus", "0"}, QUIET))
                .isInstanceOf(UsageException.class).hasMessageContaining("--gpus takes positive whole numbers");
        assertThatThrownBy(() -> FootprintBench.run(new String[] {"--minutes", "3"}, QUIET))
                .isInstanceOf(UsageException.class).hasMessageContaining("unknown option '--minutes'");
        assertThatThrownBy(() -> FootprintBench.run(new String[] {"--seconds"}, QUIET))
                .isInstanceOf(UsageException.class).hasMessageContaining("--seconds needs a value");
    }
}
