package io.gpuledger.finance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gpuledger.finance.BillWorld.Instance;
import io.gpuledger.finance.Reconciliation.InstanceDay;
import io.gpuledger.finance.Reconciliation.OfferRate;
import io.gpuledger.model.GpuHour;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The engine's estimates held against a bill of another world's terms ({@link BillWorld}): a 7% negotiated
 * discount, spot hours, a Savings Plan and a reservation. Every expected figure is worked out here from the
 * world's own parameters, not from the reconciliation's arithmetic.
 */
class ReconciliationTest {

    private static final Instant WEEK_TWO = BillWorld.START.plus(Duration.ofDays(7));
    private static final Instant END = BillWorld.START.plus(Duration.ofDays(BillWorld.DAYS));

    @TempDir
    Path folder;

    @Test
    void shouldExplainEachInstanceDayByTheBillsDiscountsAndTheHoursEitherSideLacks() throws Exception {
        try (Connection connection = DriverManager.getConnection("jdbc:duckdb:")) {
            BillRows.load(connection, List.of(BillWorld.writeBill(folder.resolve("bill.csv"))));

            Reconciliation.Report report = Reconciliation.of(connection,
                    BillWorld.engineHours(0, 7, BillWorld::enginePrice), BillWorld.START, WEEK_TWO);

            // 4 instances x 7 days
            assertThat(report.days()).hasSize(28);
            InstanceDay onDemand = day(report, BillWorld.ON_DEMAND, "2026-10-01");
            assertThat(onDemand.estimated().doubleValue()).isCloseTo(24 * 98.32, within(1e-6));
            assertThat(onDemand.effective().doubleValue()).isCloseTo(24 * 98.32 * 0.93, within(1e-6));
            assertThat(onDemand.negotiated().doubleValue()).isCloseTo(24 * 98.32 * 0.07, within(1e-6));
            assertThat(onDemand.ratio()).isCloseTo(0.93, within(1e-9));
            assertThat(onDemand.account()).isEqualTo("012345678901");
            // day 3: three hours billed that the engine did not see
            InstanceDay silent = day(report, BillWorld.ON_DEMAND, "2026-10-03");
            assertThat(silent.hoursEstimated()).isEqualTo(21);
            assertThat(silent.hoursBilled()).isEqualTo(24);
            assertThat(silent.unseen().doubleValue()).isCloseTo(3 * 98.32 * 0.93, within(1e-6));
            // the Savings Plan: billed nothing, effective 2.90 an hour against a contracted 4.60 x 0.93
            InstanceDay plan = day(report, BillWorld.SAVINGS_PLAN, "2026-10-02");
            assertThat(plan.billed().doubleValue()).isZero();
            assertThat(plan.effective().doubleValue()).isCloseTo(24 * 2.90, within(1e-6));
            assertThat(plan.commitment().doubleValue()).isCloseTo(24 * (4.60 * 0.93 - 2.90), within(1e-6));
            // day 5: an hour the engine charged at 16.20 that the bill does not have
            InstanceDay stopped = day(report, BillWorld.RESERVED, "2026-10-05");
            assertThat(stopped.unbilled().doubleValue()).isCloseTo(16.20, within(1e-6));
            assertThat(stopped.hoursBilled()).isEqualTo(23);
            // spot: the bill's market price is the feed's
            assertThat(day(report, BillWorld.SPOT, "2026-10-04").ratio()).isCloseTo(1.0, within(1e-9));

            Map<String, Double> rates = new HashMap<>();
            report.offers().forEach(rate -> rates.put(rate.offer().instanceType(), rate.ratio()));
            assertThat(rates.get("p5.48xlarge")).isCloseTo(0.93, within(1e-6));
            assertThat(rates.get("g6.12xlarge")).isCloseTo(2.90 / 4.60, within(1e-6));
            assertThat(rates.get("g5.48xlarge")).isCloseTo(15.07 / 16.20, within(1e-6));
            assertThat(rates.get("p4d.24xlarge")).isCloseTo(1.0, within(1e-6));
        }
    }

    @Test
    void shouldHoldOnlyAnInstancesRunningTimeAgainstItsEstimateNotTheDataTransferBilledOnItsId() throws Exception {
        try (Connection connection = DriverManager.getConnection("jdbc:duckdb:")) {
            // Given the bill with 20 USD of data transfer out an hour billed on the on-demand instance's id, as AWS's
            // FOCUS bills it (Compute, in GB: 256 of the FOCUS 1.0 sample's 284 rows on an instance id are such)
            Path bill = BillWorld.writeBill(folder.resolve("bill.csv"));
            List<String> transfer = new java.util.ArrayList<>();
            for (int h = 0; h < 7 * 24; h++) {
                transfer.add(BillWorld.dataTransferRow(BillWorld.ON_DEMAND, h, 20));
            }
            Files.write(bill, transfer, StandardCharsets.UTF_8, java.nio.file.StandardOpenOption.APPEND);
            BillRows.load(connection, List.of(bill));

            // When it is held against the engine's hours
            Reconciliation.Report report = Reconciliation.of(connection,
                    BillWorld.engineHours(0, 7, BillWorld::enginePrice), BillWorld.START, WEEK_TWO);

            // Then the instance's GPUs are off by the 7% negotiated discount only, as without the transfer: not
            // 20 USD an hour over (a ratio of 1.13, learned as a price and raised as a drift)
            OfferRate onDemand = report.offers().stream()
                    .filter(rate -> rate.offer().instanceType().equals("p5.48xlarge")).findFirst().orElseThrow();
            assertThat(onDemand.ratio()).isCloseTo(0.93, within(1e-6));
        }
    }

    @Test
    void shouldCompareNoAmountOfABillInAnotherCurrencyThanTheEstimates() throws Exception {
        try (Connection connection = DriverManager.getConnection("jdbc:duckdb:")) {
            // Given the bill in US dollars, and the engine's hours of the same instances reported in euros
            BillRows.load(connection, List.of(BillWorld.writeBill(folder.resolve("bill.csv"))));
            List<GpuHour> inEuros = BillWorld.engineHours(0, 7, BillWorld::enginePrice).stream()
                    .map(hour -> new GpuHour(hour.gpuUuid(), hour.gpuIndex(), hour.gpuModel(), hour.placement(),
                            hour.windowStart(), hour.windowEnd(), "EUR", hour.gpuFraction(), hour.totals(),
                            hour.jobParts(), hour.team()))
                    .toList();

            // When they are held against each other
            Reconciliation.Report report = Reconciliation.of(connection, inEuros, BillWorld.START, WEEK_TWO);

            // Then no offer's ratio mixes dollars with euros (a ratio off by the exchange rate would be learned as a
            // price, and raised as a drift), and every instance-day both sides have is named as not compared
            assertThat(report.offers()).isEmpty();
            assertThat(report.otherCurrency()).hasSize(28).allSatisfy(day -> assertThat(day.currency())
                    .isEqualTo("USD"));
        }
    }

    @Test
    void shouldBringTheNextWeeksEstimatesWithinOnePercentOfTheBillOnceItsRatesAreLearned() throws Exception {
        try (Connection connection = DriverManager.getConnection("jdbc:duckdb:")) {
            BillWorld.loadInto(connection, folder);
            // Given the first week reconciled, and its learned rates as new price versions of the offers
            Map<String, Double> learned = new HashMap<>();
            for (OfferRate rate : Reconciliation.of(connection, BillWorld.engineHours(0, 7, BillWorld::enginePrice),
                    BillWorld.START, WEEK_TWO).offers()) {
                if (Reconciliation.learnable(rate.offer())) {
                    learned.put(rate.offer().instanceType(), rate.ratio());
                }
            }
            assertThat(learned).doesNotContainKey("p4d.24xlarge");

            // When the engine prices the second week at them (a price version scales the hours it prices)
            List<GpuHour> weekTwo = BillWorld.engineHours(7, 14, (instance, hour) ->
                    BillWorld.enginePrice(instance, hour) * learned.getOrDefault(instance.type(), 1.0));
            Reconciliation.Report report = Reconciliation.of(connection, weekTwo, WEEK_TWO, END);

            // Then every instance-day's estimate is within 1% of the bill's effective cost
            assertThat(report.days()).hasSize(28).allSatisfy(day -> assertThat(day.estimated().doubleValue())
                    .as(day.instanceId() + " " + day.day())
                    .isCloseTo(day.effective().doubleValue(), within(day.effective().doubleValue() * 0.01)));
        }
    }

    @Test
    void shouldReadTheSameBillGzippedAndAsParquetAndSayWhichDaysItCovers() throws Exception {
        Path csv = BillWorld.writeBill(folder.resolve("bill.csv"));
        Path gzip = folder.resolve("bill.csv.gz");
        try (var out = new java.util.zip.GZIPOutputStream(Files.newOutputStream(gzip))) {
            Files.copy(csv, out);
        }
        Path parquet = folder.resolve("bill.parquet");
        try (Connection connection = DriverManager.getConnection("jdbc:duckdb:");
                var statement = connection.createStatement()) {
            statement.execute("COPY (SELECT * FROM read_csv('" + csv + "', all_varchar = true)) TO '" + parquet
                    + "' (FORMAT parquet)");
        }

        for (Path bill : List.of(csv, gzip, parquet)) {
            try (Connection connection = DriverManager.getConnection("jdbc:duckdb:")) {
                // 4 instances x 14 days x 24 h, less the hour not billed, and a tax and a fee row
                assertThat(BillRows.load(connection, List.of(bill))).as(bill.toString()).isEqualTo(4 * 14 * 24 - 1 + 2);
                assertThat(BillRows.period(connection)).as(bill.toString()).contains(
                        new BillRows.Period(BillWorld.START, END));
            }
        }
    }

    @Test
    void shouldReadACostAndUsageReportTwoPointZeroInFocusTerms() throws Exception {
        // Columns and line item types as AWS's CUR 2.0 data dictionary names them; an hour of Savings Plan
        // covered usage with its negation, an hour of plain usage, and a tax line
        Path cur = folder.resolve("cur2.csv");
        Files.writeString(cur, String.join("\n",
                "line_item_usage_account_id,line_item_resource_id,line_item_usage_start_date,line_item_usage_end_date,"
                        + "line_item_line_item_type,line_item_usage_type,line_item_unblended_cost,"
                        + "pricing_public_on_demand_cost,savings_plan_savings_plan_effective_cost,"
                        + "savings_plan_savings_plan_a_r_n,line_item_currency_code",
                "012345678901,i-0cur,2026-10-01T00:00:00Z,2026-10-01T01:00:00Z,SavingsPlanCoveredUsage,"
                        + "USE1-BoxUsage:g6.12xlarge,4.6,4.6,2.9,"
                        + "arn:aws:savingsplans::012345678901:savingsplan/sp-1,USD",
                "012345678901,i-0cur,2026-10-01T00:00:00Z,2026-10-01T01:00:00Z,SavingsPlanNegation,"
                        + "USE1-BoxUsage:g6.12xlarge,-4.6,,,,USD",
                "012345678901,i-0cur,2026-10-01T01:00:00Z,2026-10-01T02:00:00Z,Usage,USE1-BoxUsage:g6.12xlarge,"
                        + "4.278,4.6,,,USD",
                "012345678901,,2026-10-01T00:00:00Z,2026-10-02T00:00:00Z,Tax,,12.5,,,,USD") + "\n",
                StandardCharsets.UTF_8);
        try (Connection connection = DriverManager.getConnection("jdbc:duckdb:")) {
            BillRows.load(connection, List.of(cur));
            GpuHour first = BillWorld.engineHours(0, 1, (instance, hour) -> 4.6).get(0);

            Reconciliation.Report report = Reconciliation.of(connection, List.of(retarget(first, 0),
                    retarget(first, 1)), BillWorld.START, BillWorld.START.plus(Duration.ofDays(1)));

            InstanceDay day = report.days().get(0);
            // effective: 2.90 covered + 4.278 plain; billed: 0 + 4.278; the negation and the tax no usage
            assertThat(day.effective().doubleValue()).isCloseTo(2.9 + 4.278, within(1e-9));
            assertThat(day.billed().doubleValue()).isCloseTo(4.278, within(1e-9));
            assertThat(day.account()).isEqualTo("012345678901");
            assertThat(day.commitment().doubleValue()).isCloseTo(4.6 - 2.9, within(1e-9));
            assertThat(day.hoursBilled()).isEqualTo(2);
        }
    }

    @Test
    void shouldMatchAnAzureVmByTheNameItsResourcePathEndsIn() throws Exception {
        // Azure's FOCUS export names a VM by its resource path; the agent reports its vmId and its name as the host
        Path bill = folder.resolve("azure.csv");
        Files.writeString(bill, "BillingAccountId,ResourceId,ChargeCategory,ChargePeriodStart,ChargePeriodEnd,"
                + "BilledCost,EffectiveCost,ListCost,ContractedCost,BillingCurrency\n"
                + "8611537,/subscriptions/0f4e/resourceGroups/gpu/providers/Microsoft.Compute/virtualMachines/"
                + "GPU-NODE-7,Usage,2026-10-01T00:00:00Z,2026-10-01T01:00:00Z,2.5,2.5,3.0,2.5,USD\n",
                StandardCharsets.UTF_8);
        GpuHour hour = BillWorld.engineHours(0, 1, (instance, h) -> 3.0).get(0);
        GpuHour onAzure = new GpuHour(hour.gpuUuid(), 0, hour.gpuModel(), new io.gpuledger.model.Placement(
                "gpu-node-7", "4b1c6a2e-9f0d-4c7e-8a55-2c1d0e7b9f11", "Standard_NC24ads_A100_v4", "azure", "eastus",
                hour.placement().lifecycle()), BillWorld.START, BillWorld.START.plusSeconds(3600), "USD", 1.0,
                hour.totals(), hour.jobParts());
        try (Connection connection = DriverManager.getConnection("jdbc:duckdb:")) {
            BillRows.load(connection, List.of(bill));

            Reconciliation.Report report = Reconciliation.of(connection, List.of(onAzure), BillWorld.START,
                    BillWorld.START.plus(Duration.ofDays(1)));

            assertThat(report.days()).singleElement().satisfies(day -> {
                assertThat(day.instanceId()).isEqualTo("4b1c6a2e-9f0d-4c7e-8a55-2c1d0e7b9f11");
                assertThat(day.effective().doubleValue()).isEqualTo(2.5);
                assertThat(day.hoursBilled()).isEqualTo(1);
                assertThat(day.account()).isEqualTo("8611537");
            });
        }
    }

    /** One GPU's hour moved onto instance {@code i-0cur}, hour {@code h}, as the whole instance's cost. */
    private static GpuHour retarget(GpuHour hour, int h) {
        Instant start = BillWorld.START.plus(Duration.ofHours(h));
        return new GpuHour(hour.gpuUuid(), 0, hour.gpuModel(), new io.gpuledger.model.Placement("node-cur", "i-0cur",
                "g6.12xlarge", "aws", "us-east-1", hour.placement().lifecycle()), start, start.plusSeconds(3600),
                "USD", 1.0, hour.totals(), hour.jobParts());
    }

    private static InstanceDay day(Reconciliation.Report report, Instance instance, String day) {
        return report.days().stream()
                .filter(d -> d.instanceId().equals(instance.id()) && d.day().equals(LocalDate.parse(day)))
                .findFirst().orElseThrow();
    }
}
