package io.gpuledger.finance;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuledger.model.GpuHour;
import io.gpuledger.model.JobPart;
import java.math.BigDecimal;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Each kind of GPU hour as FOCUS rows, every expected figure worked out by hand from the fixtures' numbers. */
class FocusRowsTest {

    private final FocusRows rows = new FocusRows(FocusFixtures.listPrices(), FocusAccount.DEFAULT);

    @Test
    void shouldWriteAWholeHourOfOneJobAsOneRowAtTheListPrice() {
        List<FocusRow> written = rows.of(FocusFixtures.onDemand());

        assertThat(written).hasSize(1);
        FocusRow row = written.get(0);
        // 3,540 s sampled + 60 s unmonitored = 1 GPU-hour; 12.29 USD/h for both parts
        assertThat(row.decimal(FocusColumn.PRICING_QUANTITY)).isEqualByComparingTo("1");
        assertThat(row.decimal(FocusColumn.BILLED_COST)).isEqualByComparingTo("12.29");
        assertThat(row.decimal(FocusColumn.EFFECTIVE_COST)).isEqualByComparingTo("12.29");
        // 98.32 USD/h for 8 GPUs: 12.29 per GPU-hour
        assertThat(row.decimal(FocusColumn.LIST_UNIT_PRICE)).isEqualByComparingTo("12.29");
        assertThat(row.decimal(FocusColumn.LIST_COST)).isEqualByComparingTo("12.29");
        // 60 s at 12.29 USD/h
        assertThat(row.decimal(FocusColumn.X_UNMONITORED_COST)).isEqualByComparingTo("0.2048333333");
        assertThat(row.text(FocusColumn.PRICING_CATEGORY)).isEqualTo("Standard");
        assertThat(row.text(FocusColumn.RESOURCE_ID)).isEqualTo("i-0od");
        assertThat(row.text(FocusColumn.PROVIDER_NAME)).isEqualTo("AWS");
        assertThat(row.text(FocusColumn.TAGS))
                .isEqualTo("{\"gpuledger/job\":\"train-llm\",\"gpuledger/team\":\"research\"}");
        assertThat(row.instant(FocusColumn.BILLING_PERIOD_START)).hasToString("2026-11-01T00:00:00Z");
        assertThat(row.instant(FocusColumn.BILLING_PERIOD_END)).hasToString("2026-12-01T00:00:00Z");
        assertThat(row.text(FocusColumn.COMMITMENT_DISCOUNT_ID)).isNull();
    }

    @Test
    void shouldSplitASharedHourIntoTheJobsPartsAndWhatNoJobTook() {
        List<FocusRow> written = rows.of(FocusFixtures.sharedSpot());

        assertThat(written).extracting(row -> row.text(FocusColumn.X_JOB_ID))
                .containsExactly("infer-a", "notebook-b", null);
        // 1,440 s, 1,260 s and the 900 s left of 3,600
        assertThat(written).extracting(row -> row.decimal(FocusColumn.PRICING_QUANTITY))
                .usingElementComparator(BigDecimal::compareTo)
                .containsExactly(new BigDecimal("0.4"), new BigDecimal("0.35"), new BigDecimal("0.25"));
        assertThat(written).extracting(row -> row.decimal(FocusColumn.BILLED_COST))
                .usingElementComparator(BigDecimal::compareTo)
                .containsExactly(new BigDecimal("1.6"), new BigDecimal("1.4"), new BigDecimal("1.0"));
        // spot: charged 4.00 per GPU-hour against a list price of 32.77 / 8 = 4.09625
        FocusRow infer = written.get(0);
        assertThat(infer.text(FocusColumn.PRICING_CATEGORY)).isEqualTo("Dynamic");
        assertThat(infer.decimal(FocusColumn.CONTRACTED_UNIT_PRICE)).isEqualByComparingTo("4");
        assertThat(infer.decimal(FocusColumn.LIST_UNIT_PRICE)).isEqualByComparingTo("4.09625");
        assertThat(infer.decimal(FocusColumn.LIST_COST)).isEqualByComparingTo("1.6385");
        assertThat(infer.decimal(FocusColumn.X_IDLE_COST)).isNull();
        FocusRow rest = written.get(2);
        assertThat(rest.text(FocusColumn.TAGS)).isEqualTo("{\"gpuledger/unallocated\":true}");
        assertThat(rest.decimal(FocusColumn.X_IDLE_COST)).isEqualByComparingTo("1.0");
        assertThat(rest.text(FocusColumn.CHARGE_DESCRIPTION)).endsWith("taken by no job");
    }

    @Test
    void shouldBillTheJobsPastThoseAnHourListsToTheirTeamsSoThatTheRowsAddUpToTheHour() {
        // An hour of a GPU that more jobs used than its parts name: the first 240 by name, the others by team
        GpuHour shared = FocusFixtures.sharedSpot();
        List<JobPart> parts = new java.util.ArrayList<>(shared.jobParts());
        parts.add(new JobPart(JobPart.UNLISTED_JOB, "search", 360, 0.4, 0.03, 0));
        GpuHour crowded = new GpuHour(shared.gpuUuid(), shared.gpuIndex(), shared.gpuModel(), shared.placement(),
                shared.windowStart(), shared.windowEnd(), shared.currency(), shared.gpuFraction(), shared.totals(),
                parts);

        List<FocusRow> written = rows.of(crowded);

        assertThat(written).hasSize(4);
        FocusRow unlisted = written.get(2);
        assertThat(unlisted.text(FocusColumn.X_TEAM)).isEqualTo("search");
        assertThat(unlisted.text(FocusColumn.CHARGE_DESCRIPTION))
                .endsWith("taken by jobs of search past the first 240 listed");
        assertThat(unlisted.decimal(FocusColumn.BILLED_COST)).isEqualByComparingTo("0.4");
        // 1.6 + 1.4 + 0.4 by the jobs, 0.6 by none: the GPU's 4.0
        assertThat(written.get(3).decimal(FocusColumn.BILLED_COST)).isEqualByComparingTo("0.6");
        assertThat(written.stream().map(row -> row.decimal(FocusColumn.BILLED_COST))
                .reduce(BigDecimal.ZERO, BigDecimal::add)).isEqualByComparingTo("4.0");
    }

    @Test
    void shouldBillNothingForReservedTimeAndNameItsCommitment() {
        FocusRow row = rows.of(FocusFixtures.reserved()).get(0);

        assertThat(row.decimal(FocusColumn.BILLED_COST)).isEqualByComparingTo("0");
        assertThat(row.decimal(FocusColumn.EFFECTIVE_COST)).isEqualByComparingTo("7.5");
        assertThat(row.decimal(FocusColumn.CONTRACTED_UNIT_PRICE)).isEqualByComparingTo("12.29");
        assertThat(row.text(FocusColumn.PRICING_CATEGORY)).isEqualTo("Committed");
        assertThat(row.text(FocusColumn.COMMITMENT_DISCOUNT_STATUS)).isEqualTo("Used");
        assertThat(row.decimal(FocusColumn.COMMITMENT_DISCOUNT_QUANTITY)).isEqualByComparingTo("1");
    }

    @Test
    void shouldChargeAMigSliceItsShareOfTheGpuAtItsOwnRateWithoutAListPrice() {
        FocusRow row = rows.of(FocusFixtures.migSlice()).get(0);

        // 3,600 / 7 s is 0.142857 GPU-hours to 6 decimals; 0.53 over that is 3.7100037100 per GPU-hour
        assertThat(row.decimal(FocusColumn.PRICING_QUANTITY)).isEqualByComparingTo("0.142857");
        assertThat(row.decimal(FocusColumn.LIST_UNIT_PRICE)).isEqualByComparingTo("3.7100037100");
        assertThat(row.decimal(FocusColumn.LIST_COST)).isEqualByComparingTo(
                new BigDecimal("3.7100037100").multiply(new BigDecimal("0.142857")));
        assertThat(row.text(FocusColumn.PROVIDER_NAME)).isEqualTo("Google Cloud");
        assertThat(row.text(FocusColumn.TAGS)).isEqualTo("{\"gpuledger/job\":\"tune-1\"}");
    }
}
