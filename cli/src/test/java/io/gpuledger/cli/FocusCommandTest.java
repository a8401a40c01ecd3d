package io.gpuledger.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuledger.finance.FocusAccount;
import io.gpuledger.finance.FocusFile;
import io.gpuledger.finance.FocusRows;
import io.gpuledger.finance.ListPrices;
import io.gpuledger.model.CurrencyRates;
import io.gpuledger.model.GpuHour;
import io.gpuledger.model.JobPart;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Placement;
import io.gpuledger.model.UsageTotals;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FocusCommandTest {

    @TempDir
    Path folder;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @Test
    void shouldPassAFileOfItsOwnRowsAndSayHowManyRulesRan() throws Exception {
        Path file = folder.resolve("hour.parquet");
        Instant hour = Instant.parse("2026-12-01T08:00:00Z");
        GpuHour gpuHour = new GpuHour("GPU-1", 0, "L4", new Placement("node-1", "i-1", "g6.xlarge", "aws",
                "us-east-1", Lifecycle.SPOT), hour, hour.plusSeconds(3600), "USD", 1.0,
                UsageTotals.builder().samples(360).sum(UsageTotals.Sum.GPU_SECONDS, 3600)
                        .sum(UsageTotals.Sum.COST, 0.35).build(),
                List.of(new JobPart("batch-7", "ads", 3600, 0.35, 0.07, 0)));
        try (FocusFile focus = new FocusFile()) {
            new FocusRows(new ListPrices(CurrencyRates.shipped("USD")), FocusAccount.DEFAULT).of(gpuHour)
                    .forEach(focus::add);
            focus.writeTo(file);
        }

        int status = FocusCommand.validate(new String[] {"focus", file.toString()}, print(out), print(err));

        assertThat(status).isZero();
        assertThat(text(out)).doesNotContain("FAILED").containsPattern("[0-9]+ rules passed, 0 failed");
    }

    @Test
    void shouldNameEveryRuleAFileBreaksAndExitWithOne() throws Exception {
        Path file = folder.resolve("bad.csv");
        Files.writeString(file, "BilledCost,ChargeCategory\nten,usage\n", StandardCharsets.UTF_8);

        int status = FocusCommand.validate(new String[] {"focus", file.toString()}, print(out), print(err));

        assertThat(status).isEqualTo(1);
        assertThat(text(out)).contains("FAILED BilledCost-C-002-M", "FAILED ChargeCategory-C-003-M",
                "FAILED CostAndUsage-D-041-M: missing column ServiceName");
    }

    @Test
    void shouldRefuseAnExportItCannotRunBeforeReadingAnything() {
        Map<String, String> env = Map.of("KAFKA_BOOTSTRAP_SERVERS", "127.0.0.1:9");
        assertThatThrownBy(() -> FocusCommand.export(new String[] {"focus", "--from", "2026-12-01", "--to",
                "2026-11-01", "--out", "x.csv"}, env, print(out), print(err)))
                .isInstanceOf(UsageException.class).hasMessageContaining("--to must be after --from");
        assertThatThrownBy(() -> FocusCommand.export(new String[] {"focus", "--from", "2026-12-01", "--read-to-end",
                "--to", "2026-11-01", "--out", "x.csv"}, env, print(out), print(err)))
                .as("--read-to-end takes no value").isInstanceOf(UsageException.class)
                .hasMessageContaining("--to must be after --from");
        assertThatThrownBy(() -> FocusCommand.export(new String[] {"focus", "--from", "2026-12-01", "--to",
                "2026-12-02", "--out", "x.xlsx"}, env, print(out), print(err)))
                .isInstanceOf(UsageException.class).hasMessageContaining(".parquet");
        assertThatThrownBy(() -> FocusCommand.export(new String[] {"focus", "--from", "yesterday", "--to",
                "2026-12-02", "--out", "x.csv"}, env, print(out), print(err)))
                .isInstanceOf(UsageException.class).hasMessageContaining("--from yesterday");
        assertThatThrownBy(() -> FocusCommand.export(new String[] {"focus", "--from", "2026-12-01", "--to",
                "2026-12-02", "--out", "x.csv"}, Map.of(), print(out), print(err)))
                .isInstanceOf(UsageException.class).hasMessageContaining("KAFKA_BOOTSTRAP_SERVERS");
    }

    private static PrintStream print(ByteArrayOutputStream bytes) {
        return new PrintStream(bytes, true, StandardCharsets.UTF_8);
    }

    private static String text(ByteArrayOutputStream bytes) {
        return bytes.toString(StandardCharsets.UTF_8);
    }
}
