package io.gpuledger.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gpuledger.finance.FocusAccount;
import io.gpuledger.finance.FocusColumn;
import io.gpuledger.finance.FocusFile;
import io.gpuledger.finance.FocusRow;
import io.gpuledger.finance.FocusRows;
import io.gpuledger.finance.FocusRules;
import io.gpuledger.finance.FocusValidation;
import io.gpuledger.finance.ListPrices;
import io.gpuledger.ingest.price.PriceCatalog;
import io.gpuledger.ingest.sim.FleetSimulation;
import io.gpuledger.model.CurrencyRates;
import io.gpuledger.model.GpuHour;
import io.gpuledger.model.GpuUsage;
import io.gpuledger.model.PriceQuote;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The demo's fleet, run through the engine for two hours on a simulated clock ({@link DemoPipeline}), exported as
 * FOCUS rows: the file passes the FinOps Foundation's FOCUS 1.2 rules, and each GPU-hour's rows add up to the
 * closed minute windows the engine sent for that GPU and hour on {@code gpu.usage.v1}.
 */
class DemoFocusTest {

    @TempDir
    Path folder;

    @Test
    void shouldExportTheDemoFleetsHoursAsFocusRowsThatPassTheRulesAndAddUpToTheMinutes() {
        // Given the demo's defaults (a sixteenth of the GPUs shared), run from 10:00:17 until 12:20: past the end of
        // the hour from 11:00, its grace and the maximum gap, after which the hour of a GPU that fell silent in it
        // (the spot instance the simulator interrupts) is sent too
        DemoOptions options = DemoOptions.parse(new String[0], Map.of());
        List<PriceQuote> catalog = PriceCatalog.loadDefault().quotes();
        Instant now = Instant.parse("2026-03-02T10:00:17Z");
        FleetSimulation fleet = SimulatedFleet.simulation(options, catalog, now.minus(options.interval()));
        List<GpuHour> hours;
        List<GpuUsage> minutes;
        try (DemoPipeline demo = new DemoPipeline(options, catalog, now)) {
            demo.run(fleet, Instant.parse("2026-03-02T12:20:00Z"));
            hours = demo.hours();
            minutes = demo.closedWindows();
        }
        ListPrices prices = new ListPrices(CurrencyRates.shipped("USD"));
        catalog.forEach(prices::add);
        FocusRows focus = new FocusRows(prices, FocusAccount.DEFAULT);

        // When the hour from 11:00 is written as FOCUS rows
        Instant eleven = Instant.parse("2026-03-02T11:00:00Z");
        List<FocusRow> rows = new ArrayList<>();
        hours.stream().filter(hour -> hour.windowStart().equals(eleven)).forEach(hour -> rows.addAll(focus.of(hour)));
        Path file = folder.resolve("demo-focus.csv");
        try (FocusFile out = new FocusFile()) {
            rows.forEach(out::add);
            out.writeTo(file);
        }

        // Then every rule that applies passes
        FocusRules.Report report = FocusValidation.of(file, FocusRules.GPU_LEDGER_CAPABILITIES);
        assertThat(report.failed()).isEmpty();
        // and each GPU's rows add up to its closed minutes of that hour, unmonitored time included
        Map<String, Double> fromMinutes = new HashMap<>();
        for (GpuUsage minute : minutes) {
            if (!minute.windowStart().isBefore(eleven) && minute.windowStart().isBefore(eleven.plusSeconds(3600))) {
                fromMinutes.merge(minute.gpuUuid(), minute.totals().cost() + minute.totals().unmonitoredCost(),
                        Double::sum);
            }
        }
        Map<String, Double> fromRows = new HashMap<>();
        for (FocusRow row : rows) {
            fromRows.merge(row.text(FocusColumn.X_GPU_UUID), row.decimal(FocusColumn.EFFECTIVE_COST).doubleValue(),
                    Double::sum);
        }
        assertThat(fromRows.keySet()).isEqualTo(fromMinutes.keySet()).hasSizeGreaterThan(40);
        fromMinutes.forEach((gpu, cost) -> assertThat(fromRows.get(gpu)).as(gpu).isCloseTo(cost, within(1e-8)));
        // and the shared GPUs' hours went out split: several jobs' rows and one of time no job took
        assertThat(rows).anySatisfy(row -> assertThat(row.text(FocusColumn.TAGS)).contains("unallocated"));
        assertThat(rows.stream().filter(row -> row.text(FocusColumn.X_JOB_ID) != null)
                .map(row -> row.text(FocusColumn.X_GPU_UUID)).distinct().count())
                .isLessThan(rows.stream().filter(row -> row.text(FocusColumn.X_JOB_ID) != null).count());
        assertThat(rows).extracting(row -> row.text(FocusColumn.PRICING_CATEGORY))
                .contains("Standard", "Dynamic");
    }
}
