package io.gpuledger.finance;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuledger.model.GpuHour;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * GPU Ledger's FOCUS files judged by the FinOps Foundation's FOCUS 1.2 rules; the same rules find what is
 * wrong in files broken on purpose, and in the foundation's own FOCUS 1.0 sample (which predates 1.2).
 */
class FocusValidationTest {

    @TempDir
    Path folder;

    @ParameterizedTest
    @ValueSource(strings = {"focus.csv", "focus.csv.gz", "focus.parquet"})
    void shouldPassEveryRuleThatAppliesToItsRows(String name) {
        Path file = write(FocusFixtures.all(), folder.resolve(name));

        FocusRules.Report report = FocusValidation.of(file, FocusRules.GPU_LEDGER_CAPABILITIES);

        assertThat(report.failed()).as("rules broken").isEmpty();
        // the reserved row's "Used" holds by the specification's allowed values, which the model gets wrong
        assertThat(report.results()).filteredOn(result -> result.ruleId().equals("CommitmentDiscountStatus-C-005-M"))
                .singleElement().satisfies(result -> {
                    assertThat(result.status()).isEqualTo(FocusRules.Status.PASSED);
                    assertThat(result.detail()).contains("Used and Unused");
                });
        // the rules of every mandatory column and of the conditional ones written, not a handful
        assertThat(report.count(FocusRules.Status.PASSED)).isGreaterThan(250);
    }

    @Test
    void shouldFindTheMistakesOfAFileBrokenOnPurpose() throws IOException {
        Path good = write(FocusFixtures.all(), folder.resolve("good.csv"));
        List<String> lines = Files.readAllLines(good, StandardCharsets.UTF_8);
        List<String> header = List.of(lines.get(0).split(",", -1));
        // Row 1: a lower-case charge category; row 2: a list cost that is not price × quantity;
        // row 3: a currency no country has; every row: a date-time without its Z
        String[] first = cells(lines.get(1));
        first[header.indexOf("ChargeCategory")] = "usage";
        lines.set(1, String.join(",", first));
        String[] second = cells(lines.get(2));
        second[header.indexOf("ListCost")] = "99.5";
        lines.set(2, String.join(",", second));
        String[] third = cells(lines.get(3));
        third[header.indexOf("BillingCurrency")] = "ABC";
        lines.set(3, String.join(",", third));
        for (int i = 1; i < lines.size(); i++) {
            lines.set(i, lines.get(i).replace("T23:00:00Z", "T23:00:00"));
        }
        Path broken = folder.resolve("broken.csv");
        Files.write(broken, lines, StandardCharsets.UTF_8);

        FocusRules.Report report = FocusValidation.of(broken, FocusRules.GPU_LEDGER_CAPABILITIES);

        Set<String> failed = report.failed().stream().map(FocusRules.Result::ruleId).collect(Collectors.toSet());
        assertThat(failed).contains("ChargeCategory-C-003-M", "ListCost-C-009-C", "ListUnitPrice-C-010-C",
                "BillingCurrency-C-006-M", "ChargePeriodStart-C-002-M");
        assertThat(report.failed()).filteredOn(result -> result.ruleId().equals("ListCost-C-009-C"))
                .singleElement().extracting(FocusRules.Result::violations).isEqualTo(1L);
    }

    @Test
    void shouldFailTheRulesOfAMandatoryColumnLeftOut() throws IOException {
        Path good = write(FocusFixtures.all(), folder.resolve("good.csv"));
        Path without = folder.resolve("without.parquet");
        try (var connection = java.sql.DriverManager.getConnection("jdbc:duckdb:");
                var statement = connection.createStatement()) {
            statement.execute("COPY (SELECT * EXCLUDE (ServiceName) FROM read_csv('" + good + "')) TO '" + without
                    + "' (FORMAT parquet)");
        } catch (java.sql.SQLException e) {
            throw new IOException(e);
        }

        FocusRules.Report report = FocusValidation.of(without, FocusRules.GPU_LEDGER_CAPABILITIES);

        assertThat(report.failed()).extracting(FocusRules.Result::ruleId)
                .contains("CostAndUsage-D-041-M", "ServiceName-C-003-M");
    }

    @Test
    void shouldJudgeTheFoundationsFocusOneZeroSampleByTheRulesOfOneTwo() throws IOException {
        // FOCUS 1.0 sample data (CC BY 4.0; its first 200 rows, test resources focus-sample/ORIGIN.md): its
        // date-times have no Z, 1.2's new columns are missing, and many list costs are rounded away from
        // price x quantity.
        Path sample = folder.resolve("focus_sample_head.csv");
        try (var in = FocusValidationTest.class.getResourceAsStream("/focus-sample/focus_sample_head.csv")) {
            Files.copy(in, sample);
        }

        FocusRules.Report report = FocusValidation.of(sample, FocusRules.GPU_LEDGER_CAPABILITIES);

        Set<String> failed = report.failed().stream().map(FocusRules.Result::ruleId).collect(Collectors.toSet());
        assertThat(failed).contains("ChargePeriodStart-C-002-M", "CostAndUsage-D-033-O", "ListCost-C-009-C")
                .doesNotContain("ChargeCategory-C-003-M", "BillingCurrency-C-006-M", "ServiceCategory-C-003-M");
    }

    private static String[] cells(String line) {
        return line.split(",(?=(?:[^\"]*\"[^\"]*\")*[^\"]*$)", -1);
    }

    private static Path write(List<GpuHour> hours, Path file) {
        FocusRows rows = new FocusRows(FocusFixtures.listPrices(), FocusAccount.DEFAULT);
        try (FocusFile focus = new FocusFile()) {
            hours.forEach(hour -> rows.of(hour).forEach(focus::add));
            focus.writeTo(file);
        }
        return file;
    }
}
