package io.gpuledger.finance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gpuledger.model.GpuHour;
import io.gpuledger.model.JobPart;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Placement;
import io.gpuledger.model.UsageTotals;
import io.gpuledger.model.UsageTotals.Sum;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Each kind of GPU hour as FOCUS rows, every expected figure worked out by hand from the fixtures' numbers. */
class FocusRowsTest {

    /** Decimals by value, an empty one (a column left empty) before any. */
    private static final Comparator<BigDecimal> NULLS_FIRST = Comparator.nullsFirst(BigDecimal::compareTo);

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
        // the node names no team: the rest's is spelled as the roll-ups and the jobs' parts spell none
        assertThat(rest.text(FocusColumn.TAGS)).isEqualTo(
                "{\"gpuledger/unallocated\":true,\"gpuledger/team\":\"unassigned\"}");
        assertThat(rest.text(FocusColumn.X_TEAM)).isEqualTo("unassigned");
        assertThat(rest.decimal(FocusColumn.X_IDLE_COST)).isEqualByComparingTo("1.0");
        assertThat(rest.text(FocusColumn.CHARGE_DESCRIPTION)).endsWith("taken by no job");
        // the GPU's own mean SM activity over the hour; a job's part has none
        assertThat(rest.decimal(FocusColumn.X_SM_ACTIVE)).isEqualByComparingTo("0.5");
        assertThat(infer.decimal(FocusColumn.X_SM_ACTIVE)).isNull();
    }

    @Test
    void shouldChargeWhatNoJobTookOfASharedHourToItsNodesTeam() {
        List<FocusRow> written = rows.of(FocusFixtures.sharedSpotOfPlatform());

        // the jobs' rows as without a node team; the rest, 1.00 of the 4.00, the node's team's, as in its roll-ups
        assertThat(written).extracting(row -> row.text(FocusColumn.X_TEAM))
                .containsExactly("search", "unassigned", "platform");
        FocusRow rest = written.get(2);
        assertThat(rest.text(FocusColumn.X_JOB_ID)).isNull();
        assertThat(rest.decimal(FocusColumn.BILLED_COST)).isEqualByComparingTo("1.0");
        assertThat(rest.text(FocusColumn.TAGS))
                .isEqualTo("{\"gpuledger/unallocated\":true,\"gpuledger/team\":\"platform\"}");
    }

    @Test
    void shouldMakeTheRowsOfAnHourAddUpExactlyWhereEachRowRoundsItsOwnFigure() {
        // Three jobs took a third each of a 4.00 hour: 1.3333333333 each, to 10 decimals, would make 3.9999999999
        double third = 4.0 / 3;
        GpuHour thirds = spotHour(3600, 4.0, List.of(new JobPart("a", "t", 1200, third, 0.1, 0),
                new JobPart("b", "t", 1200, third, 0.1, 0), new JobPart("c", "t", 1200, third, 0.1, 0)));

        List<FocusRow> written = rows.of(thirds);

        assertThat(written).hasSize(3);
        assertThat(sum(written, FocusColumn.EFFECTIVE_COST)).isEqualByComparingTo("4.0");
        assertThat(sum(written, FocusColumn.BILLED_COST)).isEqualByComparingTo("4.0");
        // 1,200 s is 0.333333 GPU-hours to 6 decimals; the three make the hour
        assertThat(sum(written, FocusColumn.CONSUMED_QUANTITY)).isEqualByComparingTo("1");
        assertThat(written).allSatisfy(row -> assertThat(row.decimal(FocusColumn.EFFECTIVE_COST))
                .isBetween(new BigDecimal("1.3333333333"), new BigDecimal("1.3333333334")));
    }

    @Test
    void shouldKeepARestTooSmallForARowInTheHoursSum() {
        // Two jobs took 3.00 of 3.0000000005: the half billionth left is no row, but it is still the hour's
        GpuHour hour = spotHour(3600, 3.0000000005, List.of(new JobPart("a", "t", 1800, 1.0, 0.1, 0),
                new JobPart("b", "t", 1800, 2.0, 0.1, 0)));

        List<FocusRow> written = rows.of(hour);

        assertThat(written).extracting(row -> row.text(FocusColumn.X_JOB_ID)).containsExactly("a", "b");
        assertThat(sum(written, FocusColumn.EFFECTIVE_COST)).isEqualByComparingTo("3.0000000005");
    }

    @Test
    void shouldNotBillAJobTheWholeHourOfAnUnpricedGpuItUsedHalfOf() {
        // No price was known all hour, so nothing cost anything; one job had half the GPU's time
        GpuHour unpriced = spotHour(3600, 0, List.of(new JobPart("a", "t", 1800, 0, 0.1, 1800)));

        List<FocusRow> written = rows.of(unpriced);

        assertThat(written).extracting(row -> row.text(FocusColumn.X_JOB_ID)).containsExactly("a", null);
        assertThat(written).extracting(row -> row.decimal(FocusColumn.CONSUMED_QUANTITY))
                .usingElementComparator(BigDecimal::compareTo)
                .containsExactly(new BigDecimal("0.5"), new BigDecimal("0.5"));
        assertThat(written.get(1).text(FocusColumn.TAGS)).isEqualTo(
                "{\"gpuledger/unallocated\":true,\"gpuledger/team\":\"unassigned\"}");
    }

    @Test
    void shouldDescribeTheUnlistedJobsOfNoTeamWithoutNamingOne() {
        GpuHour hour = spotHour(3600, 4.0, List.of(new JobPart("a", "t", 1800, 2.0, 0.1, 0),
                new JobPart(JobPart.UNLISTED_JOB, null, 1800, 2.0, 0.1, 0)));

        String description = rows.of(hour).get(1).text(FocusColumn.CHARGE_DESCRIPTION);

        assertThat(description).endsWith("taken by jobs past the first 240 listed").doesNotContain("null");
    }

    @Test
    void shouldWriteNoListPriceInAnotherCurrencyThanTheHours() {
        // Given the list prices in US dollars and an hour an engine reporting in euros charged: 4.00 for the hour
        GpuHour spot = FocusFixtures.sharedSpot();
        GpuHour inEuros = new GpuHour(spot.gpuUuid(), spot.gpuIndex(), spot.gpuModel(), spot.placement(),
                spot.windowStart(), spot.windowEnd(), "EUR", spot.gpuFraction(), spot.totals(), spot.jobParts());

        FocusRow infer = rows.of(inEuros).get(0);

        // Then its list price is its own rate, 1.6 EUR over 0.4 GPU-hours, not the 4.09625 USD converted for dollars
        assertThat(infer.text(FocusColumn.BILLING_CURRENCY)).isEqualTo("EUR");
        assertThat(infer.decimal(FocusColumn.LIST_UNIT_PRICE)).isEqualByComparingTo("4");
        assertThat(infer.decimal(FocusColumn.LIST_COST)).isEqualByComparingTo("1.6");
    }

    @Test
    void shouldMakeTheRowsOfEveryGeneratedSharedHourAddUpToItsCostAndTimeWithoutANegativeRow() {
        Random random = new Random(20261206);
        for (int i = 0; i < 500; i++) {
            // 1 to 300 jobs, whose costs and seconds add up to at most the hour's (drawn as shares of it)
            int jobs = 1 + random.nextInt(random.nextBoolean() ? 5 : 300);
            double cost = random.nextDouble() * 50;
            double unmonitoredCost = random.nextBoolean() ? 0 : random.nextDouble();
            double unmonitoredSeconds = unmonitoredCost == 0 ? 0 : 1 + random.nextInt(600);
            double sampled = 3600 - unmonitoredSeconds;
            double left = random.nextBoolean() ? 1 : random.nextDouble();
            List<JobPart> parts = new ArrayList<>();
            for (int j = 0; j < jobs; j++) {
                double share = j == jobs - 1 ? left : left * random.nextDouble() / 2;
                left -= share;
                parts.add(new JobPart("job-" + j, "team-" + j % 7, sampled * share, cost * share, 0, 0));
            }
            GpuHour hour = new GpuHour("GPU-g", 0, "A100",
                    FocusFixtures.placement("i-0g", "p4d.24xlarge", Lifecycle.SPOT), FocusFixtures.HOUR,
                    FocusFixtures.HOUR.plusSeconds(3600), "USD", 1.0,
                    FocusFixtures.totals(sampled, cost, 0, unmonitoredSeconds, unmonitoredCost, 0.3, 0.5), parts);

            List<FocusRow> written = rows.of(hour);

            // The reference: the hour's own figures, each rounded once
            BigDecimal wholeCost = BigDecimal.valueOf(cost + unmonitoredCost).setScale(10, RoundingMode.HALF_EVEN);
            BigDecimal wholeHours = BigDecimal.valueOf(1.0).setScale(6, RoundingMode.HALF_EVEN);
            assertThat(sum(written, FocusColumn.EFFECTIVE_COST)).as("hour %d", i).isEqualByComparingTo(wholeCost);
            assertThat(sum(written, FocusColumn.CONSUMED_QUANTITY)).as("hour %d", i).isEqualByComparingTo(wholeHours);
            assertThat(written).allSatisfy(row -> {
                assertThat(row.decimal(FocusColumn.EFFECTIVE_COST).signum()).isNotNegative();
                assertThat(row.decimal(FocusColumn.CONSUMED_QUANTITY).signum()).isNotNegative();
            });
            // each job's row within the rounding of the others of its cost (one job's whole hour is one row, its
            // unmonitored cost included)
            BigDecimal slack = new BigDecimal("1e-10").multiply(BigDecimal.valueOf(written.size() + 10L));
            for (int j = 0; j < (written.size() == 1 ? 0 : jobs); j++) {
                assertThat(written.get(j).decimal(FocusColumn.EFFECTIVE_COST))
                        .isCloseTo(BigDecimal.valueOf(parts.get(j).cost()), within(slack));
            }
        }
    }

    @Test
    void shouldWriteNoRestRowForWhatRoundingLeavesOfASliceWhoseJobChangedAndGiveItsIdleCostToTheLongestJob() {
        // Given a 3/7 MIG slice at 1.80 an hour that job a had for 24 minutes, then job b for 36: 617.14... and
        // 925.71... of its 1,542.86 GPU seconds, which add up to 2.3e-13 s short of them
        GpuHour hour = sliceOfTwoJobs(1440, 0.72, 1.08);

        List<FocusRow> written = rows.of(hour);

        // Then a row per job and none for the rounding: 0.171429 and 0.257143 GPU-hours pass the slice's 0.428571 by
        // a millionth, taken from b's, the larger
        assertThat(written).extracting(row -> row.text(FocusColumn.X_JOB_ID)).containsExactly("a", "b");
        assertThat(written).extracting(row -> row.decimal(FocusColumn.CONSUMED_QUANTITY))
                .usingElementComparator(BigDecimal::compareTo)
                .containsExactly(new BigDecimal("0.171429"), new BigDecimal("0.257142"));
        assertThat(sum(written, FocusColumn.EFFECTIVE_COST)).isEqualByComparingTo("1.8");
        // and the hour's idle cost and activity on one row: b's, which had the most of the hour
        assertThat(written).extracting(row -> row.decimal(FocusColumn.X_IDLE_COST))
                .usingElementComparator(NULLS_FIRST).containsExactly(null, new BigDecimal("0.3"));
        assertThat(written).extracting(row -> row.decimal(FocusColumn.X_SM_ACTIVE))
                .usingElementComparator(NULLS_FIRST).containsExactly(null, new BigDecimal("0.4"));
    }

    @Test
    void shouldKeepTheIdleCostOfASliceWhoseJobsTookATrifleMoreThanItsTime() {
        // Given the same slice that job a had for 40 minutes, then job b for 20: 1,028.57... and 514.28... GPU
        // seconds, which add up to 2.3e-13 s more than the slice's
        GpuHour hour = sliceOfTwoJobs(2400, 1.2, 0.6);

        List<FocusRow> written = rows.of(hour);

        // Then 0.285714 and 0.142857 GPU-hours, and the hour's idle cost and activity on a's row, the longer
        assertThat(written).extracting(row -> row.text(FocusColumn.X_JOB_ID)).containsExactly("a", "b");
        assertThat(written).extracting(row -> row.decimal(FocusColumn.CONSUMED_QUANTITY))
                .usingElementComparator(BigDecimal::compareTo)
                .containsExactly(new BigDecimal("0.285714"), new BigDecimal("0.142857"));
        assertThat(written).extracting(row -> row.decimal(FocusColumn.X_IDLE_COST))
                .usingElementComparator(NULLS_FIRST).containsExactly(new BigDecimal("0.3"), null);
        assertThat(written).extracting(row -> row.decimal(FocusColumn.X_SM_ACTIVE))
                .usingElementComparator(NULLS_FIRST).containsExactly(new BigDecimal("0.4"), null);
    }

    @Test
    void shouldLeaveTheUnmonitoredTimeOfASharedHourToNoJobEvenWhereOneJobTookAllItsSampledTime() {
        // Given a shared GPU at 12.29 an hour whose one job had a share of 1 of its 3,540 sampled seconds, and whose
        // agent was silent for 60 s
        double rate = 12.29;
        UsageTotals totals = FocusFixtures.totals(3540, rate * 3540 / 3600, 1.0, 60, rate * 60 / 3600, 0.6, 0.7)
                .toBuilder().sum(Sum.EVEN_SHARED_SECONDS, 3540).build();
        GpuHour shared = new GpuHour("GPU-sh-3", 3, "H100",
                FocusFixtures.placement("i-0sh", "p5.48xlarge", Lifecycle.ON_DEMAND), FocusFixtures.HOUR,
                FocusFixtures.HOUR.plusSeconds(3600), "USD", 1.0, totals,
                List.of(new JobPart("train-llm", "research", 3540, rate * 3540 / 3600, 0.6, 0)));

        List<FocusRow> written = rows.of(shared);

        // Then the job pays its 3,540 s (0.983333 GPU-hours, 12.29 less 0.2048333333: 12.0851666667) and no job the
        // 60 s no sample covered (0.016667 GPU-hours, 12.29 / 60: 0.2048333333), which the unallocated row carries
        // with the hour's idle cost
        assertThat(written).extracting(row -> row.text(FocusColumn.X_JOB_ID)).containsExactly("train-llm", null);
        assertThat(written).extracting(row -> row.decimal(FocusColumn.CONSUMED_QUANTITY))
                .usingElementComparator(BigDecimal::compareTo)
                .containsExactly(new BigDecimal("0.983333"), new BigDecimal("0.016667"));
        assertThat(written).extracting(row -> row.decimal(FocusColumn.EFFECTIVE_COST))
                .usingElementComparator(BigDecimal::compareTo)
                .containsExactly(new BigDecimal("12.0851666667"), new BigDecimal("0.2048333333"));
        assertThat(written).extracting(row -> row.decimal(FocusColumn.X_UNMONITORED_COST))
                .usingElementComparator(BigDecimal::compareTo)
                .containsExactly(BigDecimal.ZERO, new BigDecimal("0.2048333333"));
        FocusRow rest = written.get(1);
        // the node names no team: the rest's is spelled as the roll-ups and the jobs' parts spell none
        assertThat(rest.text(FocusColumn.TAGS)).isEqualTo(
                "{\"gpuledger/unallocated\":true,\"gpuledger/team\":\"unassigned\"}");
        assertThat(rest.text(FocusColumn.X_TEAM)).isEqualTo("unassigned");
        assertThat(rest.decimal(FocusColumn.X_IDLE_COST)).isEqualByComparingTo("1.0");
        assertThat(written.get(0).decimal(FocusColumn.X_IDLE_COST)).isNull();
    }

    @Test
    void shouldBillTheDarkMinutesOfAJobThatHadTheGpuAloneToThatJobAsTheRollupsDo() {
        // Given an on-demand GPU at 12.29 an hour, job a's (team research) for 1,500 s sampled and 300 s dark, then
        // job b's (team vision) for 1,800 s sampled: the hour names vision, its latest minute's team
        double rate = 12.29;
        double dark = rate * 300 / 3600;
        GpuHour hour = new GpuHour("GPU-dk-4", 4, "H100", FocusFixtures.placement("i-0dk", "p5.48xlarge",
                Lifecycle.ON_DEMAND), FocusFixtures.HOUR, FocusFixtures.HOUR.plusSeconds(3600), "USD", 1.0,
                FocusFixtures.totals(3300, rate * 3300 / 3600, 0, 300, dark, 0.6, 0.7),
                List.of(new JobPart("a", "research", 1500, rate * 1500 / 3600, 0.3, 0, 300, dark),
                        new JobPart("b", "vision", 1800, rate * 1800 / 3600, 0.3, 0)), "vision");

        List<FocusRow> written = rows.of(hour);

        // Then a's row holds its 1,800 s (0.5 GPU-hours, 6.145) with its 300 dark seconds' 1.0241666667 as
        // unmonitored, b's its 0.5 GPU-hours, and no row is left for what no job took
        assertThat(written).extracting(row -> row.text(FocusColumn.X_JOB_ID)).containsExactly("a", "b");
        assertThat(written).extracting(row -> row.text(FocusColumn.X_TEAM)).containsExactly("research", "vision");
        assertThat(written).extracting(row -> row.decimal(FocusColumn.CONSUMED_QUANTITY))
                .usingElementComparator(BigDecimal::compareTo)
                .containsExactly(new BigDecimal("0.5"), new BigDecimal("0.5"));
        assertThat(written).extracting(row -> row.decimal(FocusColumn.EFFECTIVE_COST))
                .usingElementComparator(BigDecimal::compareTo)
                .containsExactly(new BigDecimal("6.145"), new BigDecimal("6.145"));
        assertThat(written).extracting(row -> row.decimal(FocusColumn.X_UNMONITORED_COST))
                .usingElementComparator(BigDecimal::compareTo)
                .containsExactly(new BigDecimal("1.0241666667"), BigDecimal.ZERO);
    }

    /**
     * A 3/7 MIG slice of an on-demand A100, at 1.80 for its hour, 0.30 of it idle, at a mean SM activity of 0.4: job
     * a's for the first {@code firstSeconds} of the hour, costing {@code firstCost}, then job b's, costing
     * {@code secondCost}. Never shared.
     */
    private static GpuHour sliceOfTwoJobs(double firstSeconds, double firstCost, double secondCost) {
        return new GpuHour("MIG-a3", 0, "A100", new Placement("node-m", "i-0mig", "a2-highgpu-1g", "gcp",
                "us-central1", Lifecycle.ON_DEMAND), FocusFixtures.HOUR, FocusFixtures.HOUR.plusSeconds(3600), "USD",
                3.0 / 7, FocusFixtures.totals(ofThreeSevenths(3600), 1.8, 0.3, 0, 0, 0.1, 0.4),
                List.of(new JobPart("a", null, ofThreeSevenths(firstSeconds), firstCost, 0.04, 0),
                        new JobPart("b", null, ofThreeSevenths(3600 - firstSeconds), secondCost, 0.06, 0)));
    }

    /** The GPU seconds of a 3/7 slice over {@code seconds}, as its samples' charged fraction makes them. */
    private static double ofThreeSevenths(double seconds) {
        return seconds * 3 / 7;
    }

    private GpuHour spotHour(double gpuSeconds, double cost, List<JobPart> parts) {
        return new GpuHour("GPU-sp-9", 1, "A100", FocusFixtures.placement("i-0sp", "p4d.24xlarge", Lifecycle.SPOT),
                FocusFixtures.HOUR, FocusFixtures.HOUR.plusSeconds(3600), "USD", 1.0,
                FocusFixtures.totals(gpuSeconds, cost, 0, 0, 0, 0.3, 0.5), parts);
    }

    private static BigDecimal sum(List<FocusRow> rows, FocusColumn column) {
        return rows.stream().map(row -> row.decimal(column)).reduce(BigDecimal.ZERO, BigDecimal::add);
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
