package io.gpuledger.finance;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuledger.model.GpuHour;
import io.gpuledger.model.JobPart;
import io.gpuledger.model.Lifecycle;
import java.math.BigDecimal;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What a record of an hour already written adds to the export. */
class FocusLedgerTest {

    private final FocusRows rows = new FocusRows(FocusFixtures.listPrices(), FocusAccount.DEFAULT);

    @Test
    void shouldCorrectAnHoursEnergyAndItsEmissionsByTheirDifferenceOnly() {
        // Given the on-demand hour written, drawing 0.6 kWh in us-east-1
        FocusLedger ledger = new FocusLedger(rows);
        GpuHour first = FocusFixtures.onDemand();
        FocusRow written = ledger.take(first).get(0);
        assertThat(written.decimal(FocusColumn.X_CO2E_GRAMS)).isPositive();

        // When the hour comes again with its energy at 0.75 kWh, nothing else changed (onDemand's figures)
        JobPart part = first.jobParts().get(0);
        double rate = 12.29;
        GpuHour again = new GpuHour(first.gpuUuid(), first.gpuIndex(), first.gpuModel(), first.placement(),
                first.windowStart(), first.windowEnd(), first.currency(), first.gpuFraction(),
                FocusFixtures.totals(3540, rate * 3540 / 3600, 1.0, 60, rate * 60 / 3600, 0.75, 0.7),
                List.of(new JobPart(part.jobId(), part.team(), part.gpuSeconds(), part.cost(), 0.75,
                        part.unpricedSeconds())));
        List<FocusRow> corrections = ledger.take(again);

        // Then one correction row adds 0.15 kWh, and the emissions of 0.15 kWh: a quarter of what the 0.6 kWh
        // written emitted, not the whole hour's again
        assertThat(corrections).singleElement().satisfies(correction -> {
            assertThat(correction.text(FocusColumn.CHARGE_CLASS)).isEqualTo("Correction");
            assertThat(correction.decimal(FocusColumn.X_ENERGY_KWH)).isEqualByComparingTo("0.15");
            BigDecimal quarter = written.decimal(FocusColumn.X_CO2E_GRAMS).divide(BigDecimal.valueOf(4));
            assertThat(correction.decimal(FocusColumn.X_CO2E_GRAMS).subtract(quarter).abs())
                    .isLessThan(new BigDecimal("0.001"));
        });
        // and it is still one GPU-hour, taken twice
        assertThat(ledger.hours()).isEqualTo(1);
        assertThat(ledger.corrections()).isEqualTo(1);
    }

    @Test
    void shouldTakeBackARowWholeAndWriteItAnewWhenItsHourComesAgainInAnotherCurrencyOrLifecycle() {
        // Given the on-demand hour written in USD
        FocusLedger ledger = new FocusLedger(rows);
        GpuHour first = FocusFixtures.onDemand();
        FocusRow written = ledger.take(first).get(0);

        // When it comes again in EUR, with the same figures, then again in EUR on spot
        GpuHour inEuros = new GpuHour(first.gpuUuid(), first.gpuIndex(), first.gpuModel(), first.placement(),
                first.windowStart(), first.windowEnd(), "EUR", first.gpuFraction(), first.totals(), first.jobParts(),
                first.team());
        List<FocusRow> toEuros = ledger.take(inEuros);
        GpuHour onSpot = new GpuHour(first.gpuUuid(), first.gpuIndex(), first.gpuModel(),
                FocusFixtures.placement("i-0od", "p5.48xlarge", Lifecycle.SPOT), first.windowStart(),
                first.windowEnd(), "EUR", first.gpuFraction(), first.totals(), first.jobParts(), first.team());
        List<FocusRow> toSpot = ledger.take(onSpot);

        // Then the USD row is taken back whole, in USD, and the EUR row written whole: 12.29 each way
        assertThat(toEuros).extracting(row -> row.text(FocusColumn.BILLING_CURRENCY)).containsExactly("EUR", "USD");
        assertThat(toEuros).allSatisfy(row -> assertThat(row.text(FocusColumn.CHARGE_CLASS)).isEqualTo("Correction"));
        assertThat(toEuros.get(0).decimal(FocusColumn.BILLED_COST)).isEqualByComparingTo("12.29");
        assertThat(toEuros.get(1).decimal(FocusColumn.BILLED_COST)).isEqualByComparingTo("-12.29");
        assertThat(toEuros.get(1).text(FocusColumn.RESOURCE_ID)).isEqualTo(written.text(FocusColumn.RESOURCE_ID));
        // And a move to spot with the same amounts is no repeat: the on-demand row goes, the spot row comes
        assertThat(toSpot).extracting(row -> row.text(FocusColumn.PRICING_CATEGORY))
                .containsExactly("Dynamic", "Standard");
        assertThat(toSpot.get(1).decimal(FocusColumn.EFFECTIVE_COST)).isEqualByComparingTo("-12.29");
        assertThat(ledger.repeats()).isZero();
    }

    @Test
    void shouldCountEachGpusHourOnceHoweverOftenItCame() {
        // Given two GPUs' hours, one of them sent three times unchanged
        FocusLedger ledger = new FocusLedger(rows);
        GpuHour onDemand = FocusFixtures.onDemand();

        // When they are taken
        ledger.take(onDemand);
        ledger.take(FocusFixtures.sharedSpot());
        ledger.take(onDemand);
        ledger.take(onDemand);

        // Then two GPU-hours were taken, and two records came again unchanged
        assertThat(ledger.hours()).isEqualTo(2);
        assertThat(ledger.repeats()).isEqualTo(2);
    }
}
