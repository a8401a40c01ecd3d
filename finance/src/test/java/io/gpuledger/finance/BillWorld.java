package io.gpuledger.finance;

import io.gpuledger.model.GpuHour;
import io.gpuledger.model.JobPart;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Placement;
import io.gpuledger.model.UsageTotals;
import io.gpuledger.model.UsageTotals.Sum;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Four instances of 8 GPUs on AWS for two weeks, and how each side sees them.
 *
 * <p>The bill (the provider's world) charges by its own terms, which the engine's prices do not know: a 7%
 * negotiated discount on every on-demand price (an enterprise agreement), an on-demand g6.12xlarge covered by a
 * Savings Plan at 2.90 USD an hour, a reserved g5.48xlarge amortized at 15.07 an hour, and spot hours at the
 * market price of each hour. It is written as a FOCUS export: the columns, their order, quoting, {@code NULL} and
 * date-times of the FinOps Foundation's sample data (FOCUS-Sample-Data, FOCUS-1.0/focus_sample.csv, CC BY 4.0),
 * with rows for GPU instances, which the sample has none of, and a tax and a Savings Plan fee row beside them.
 *
 * <p>The engine (its estimates, {@link GpuHour}s) prices the same hours at the catalog's list prices, the
 * spot feed's hourly prices, and a reserved price of 16.20 an hour from the catalog; the agent of the on-demand
 * instance is silent three hours on day 3 (the bill has them), and the bill lacks the reserved instance's last
 * hour of day 5 (it had stopped; the engine charged the hour its GPUs reported).
 */
final class BillWorld {

    static final Instant START = Instant.parse("2026-10-01T00:00:00Z");
    static final int DAYS = 14;
    static final double NEGOTIATED = 0.07;
    static final double OD_LIST = 98.32;
    static final double SP_LIST = 4.60;
    static final double SP_RATE = 2.90;
    static final double RI_CATALOG = 16.20;
    static final double RI_RATE = 15.07;
    static final String ACCOUNT = "012345678901";

    record Instance(String id, String type, Lifecycle lifecycle) {
    }

    static final Instance ON_DEMAND = new Instance("i-0a1b2c3d4e5f60001", "p5.48xlarge", Lifecycle.ON_DEMAND);
    static final Instance SPOT = new Instance("i-0a1b2c3d4e5f60002", "p4d.24xlarge", Lifecycle.SPOT);
    static final Instance SAVINGS_PLAN = new Instance("i-0a1b2c3d4e5f60003", "g6.12xlarge", Lifecycle.ON_DEMAND);
    static final Instance RESERVED = new Instance("i-0a1b2c3d4e5f60004", "g5.48xlarge", Lifecycle.RESERVED);
    static final List<Instance> INSTANCES = List.of(ON_DEMAND, SPOT, SAVINGS_PLAN, RESERVED);

    private static final DateTimeFormatter SAMPLE_TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");

    private BillWorld() {
    }

    /** The spot market's price of a p4d.24xlarge in hour {@code h} since the start. */
    static double spotPrice(int h) {
        return 32.77 * (0.35 + 0.08 * Math.sin(h / 5.0));
    }

    /** Hour {@code h} of the on-demand instance on day 3, 10:00 to 13:00: its agent was silent. */
    static boolean unseen(Instance instance, int h) {
        return instance == ON_DEMAND && h >= 2 * 24 + 10 && h < 2 * 24 + 13;
    }

    /** The reserved instance's last hour of day 5: not billed. */
    static boolean unbilled(Instance instance, int h) {
        return instance == RESERVED && h == 4 * 24 + 23;
    }

    /** The engine's price per instance-hour: catalog list, spot feed, catalog reserved. */
    static double enginePrice(Instance instance, int h) {
        if (instance == SPOT) {
            return spotPrice(h);
        }
        if (instance == RESERVED) {
            return RI_CATALOG;
        }
        return instance == ON_DEMAND ? OD_LIST : SP_LIST;
    }

    /** The engine's hours of days {@code [fromDay, toDay)}, each instance's 8 GPUs, priced by {@code price}. */
    static List<GpuHour> engineHours(int fromDay, int toDay, PriceOf price) {
        List<GpuHour> hours = new ArrayList<>();
        for (Instance instance : INSTANCES) {
            for (int h = fromDay * 24; h < toDay * 24; h++) {
                if (unseen(instance, h)) {
                    continue;
                }
                Instant start = START.plus(Duration.ofHours(h));
                double perGpu = price.of(instance, h) / 8;
                for (int gpu = 0; gpu < 8; gpu++) {
                    // 55 minutes sampled, 5 unmonitored: the estimate counts both
                    UsageTotals totals = UsageTotals.builder().samples(330).sum(Sum.GPU_SECONDS, 3300)
                            .sum(Sum.COST, perGpu * 3300 / 3600).sum(Sum.UNMONITORED_SECONDS, 300)
                            .sum(Sum.UNMONITORED_COST, perGpu * 300 / 3600).build();
                    hours.add(new GpuHour("GPU-" + instance.id() + "-" + gpu, gpu, "H100",
                            new Placement("node-" + instance.id(), instance.id(), instance.type(), "aws",
                                    "us-east-1", instance.lifecycle()), start, start.plus(Duration.ofHours(1)), "USD",
                            1.0, totals, List.of(new JobPart("job-" + instance.id(), "team", 3300,
                                    perGpu * 3300 / 3600, 0, 0))));
                }
            }
        }
        return hours;
    }

    /** A price per instance-hour. */
    interface PriceOf {
        double of(Instance instance, int hour);
    }

    /** Writes the bill into {@code folder} and loads it into {@code connection}. */
    static void loadInto(java.sql.Connection connection, Path folder) throws IOException, java.sql.SQLException {
        BillRows.load(connection, List.of(writeBill(folder.resolve("bill.csv"))));
    }

    /** The bill of every hour of the two weeks, as a FOCUS export in the sample's form. */
    static Path writeBill(Path file) throws IOException {
        List<String> lines = new ArrayList<>();
        lines.add(HEADER);
        for (Instance instance : INSTANCES) {
            for (int h = 0; h < DAYS * 24; h++) {
                if (!unbilled(instance, h)) {
                    lines.add(usageRow(instance, h));
                }
            }
        }
        LocalDateTime first = LocalDateTime.ofInstant(START, ZoneOffset.UTC);
        lines.add(row("NULL", money(1234.5), "Tax", "NULL", "Sales tax", first, first.plusDays(1), "NULL", "NULL",
                "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL"));
        lines.add(row("NULL", money(SP_RATE * 24 * DAYS), "Purchase", "NULL", "Savings Plan recurring fee", first,
                first.plusDays(DAYS), money(0), money(0), money(0), money(0), "NULL", "NULL", "Committed",
                "arn:aws:savingsplans::" + ACCOUNT + ":savingsplan/sp-1", "Savings Plan", "NULL", "NULL", "NULL"));
        Files.write(file, lines, StandardCharsets.UTF_8);
        return file;
    }

    /**
     * What AWS's FOCUS bills on an instance's id beside its running time: {@code amount} of data transfer out in
     * hour {@code h} (ServiceCategory Compute, in GB, as in the FOCUS 1.0 sample's rows of that kind).
     */
    static String dataTransferRow(Instance instance, int h, double amount) {
        LocalDateTime start = LocalDateTime.ofInstant(START.plus(Duration.ofHours(h)), ZoneOffset.UTC);
        return row(instance.id(), money(amount), "Usage", "NULL", "$0.09 per GB - first 10 TB / month data transfer"
                + " out", start, start.plusHours(1), money(amount), "0.09", money(amount), money(amount), "0.09",
                String.valueOf(amount / 0.09), "Standard", "NULL", "NULL", "GB", "USE1-DataTransfer-Out-Bytes",
                instance.type());
    }

    private static String usageRow(Instance instance, int h) {
        LocalDateTime start = LocalDateTime.ofInstant(START.plus(Duration.ofHours(h)), ZoneOffset.UTC);
        double list;
        double contracted;
        double effective;
        double billed;
        String category = "Standard";
        String commitmentId = "NULL";
        String commitmentType = "NULL";
        if (instance == SPOT) {
            list = OD_LIST_P4D;
            contracted = spotPrice(h);
            effective = contracted;
            billed = contracted;
            category = "Dynamic";
        } else if (instance == RESERVED) {
            list = 21.0;
            contracted = list * (1 - NEGOTIATED);
            effective = RI_RATE;
            billed = 0;
            category = "Committed";
            commitmentId = "arn:aws:ec2:us-east-1:" + ACCOUNT + ":reserved-instances/ri-1";
            commitmentType = "Reserved";
        } else {
            list = instance == ON_DEMAND ? OD_LIST : SP_LIST;
            contracted = list * (1 - NEGOTIATED);
            if (instance == SAVINGS_PLAN) {
                effective = SP_RATE;
                billed = 0;
                category = "Committed";
                commitmentId = "arn:aws:savingsplans::" + ACCOUNT + ":savingsplan/sp-1";
                commitmentType = "Savings Plan";
            } else {
                effective = contracted;
                billed = contracted;
            }
        }
        return row(instance.id(), money(billed), "Usage", "NULL",
                "$" + money(list) + " per On Demand Linux " + instance.type() + " Instance Hour", start,
                start.plusHours(1), money(contracted), money(contracted), money(effective), money(list), money(list),
                "1.00000000000", category, commitmentId, commitmentType, "Hrs", "USE1-BoxUsage:" + instance.type(),
                instance.type());
    }

    private static final double OD_LIST_P4D = 32.77;

    private static String row(String resource, String billed, String chargeCategory, String chargeClass,
            String description, LocalDateTime start, LocalDateTime end, String contractedCost,
            String contractedUnitPrice, String effective, String listCost, String listUnitPrice, String quantity,
            String pricingCategory, String commitmentId, String commitmentType, String unit, String sku,
            String type) {
        LocalDateTime month = start.withDayOfMonth(1).toLocalDate().atStartOfDay();
        boolean instance = !resource.equals("NULL");
        return String.join(",", "\"us-east-1a\"", billed, q(ACCOUNT), q("GPU Research"), q("USD"),
                q(SAMPLE_TIME.format(month.plusMonths(1))), q(SAMPLE_TIME.format(month)), q(chargeCategory),
                chargeClass, q(description), q(chargeCategory.equals("Usage") ? "Usage-Based" : "Recurring"),
                q(SAMPLE_TIME.format(end)), q(SAMPLE_TIME.format(start)), commitmentId.equals("NULL") ? "NULL"
                        : q(commitmentType.equals("Savings Plan") ? "Spend" : "Usage"), nq(commitmentId),
                nq(commitmentType.equals("NULL") ? "NULL" : commitmentType + " 1"),
                commitmentId.equals("NULL") ? "NULL" : q("Used"), nq(commitmentType), quantity, nq(unit),
                contractedCost, contractedUnitPrice.equals("NULL") ? "NULL" : q(contractedUnitPrice), effective,
                q("Amazon Web Services, Inc."), listCost, listUnitPrice.equals("NULL") ? "NULL" : q(listUnitPrice),
                nq(pricingCategory), quantity, nq(unit), q("AWS"), q("Amazon Web Services, Inc."), q("us-east-1"),
                q("US East (N. Virginia)"), nq(resource), instance ? q(resource) : "NULL",
                instance ? q("Instance") : "NULL", q("Compute"), String.valueOf(Math.abs(resource.hashCode() % 100000)),
                q("Amazon Elastic Compute Cloud"), nq(sku), sku.equals("NULL") ? "NULL" : q(sku + ".JRTCKXETXF"),
                q(ACCOUNT), q("GPU Research"),
                instance ? q("{\"team\": \"research\", \"instance_type\": \"" + type + "\"}") : "NULL");
    }

    private static String q(String text) {
        return "\"" + text.replace("\"", "\"\"") + "\"";
    }

    private static String nq(String text) {
        return text.equals("NULL") ? "NULL" : q(text);
    }

    private static String money(double amount) {
        return String.format(Locale.ROOT, "%.11f", amount);
    }

    /** The instance-days that hold a gap of either kind: their estimate and bill differ by it. */
    static final Set<String> GAPS = Set.of(ON_DEMAND.id() + "@2026-10-03", RESERVED.id() + "@2026-10-05");

    /** The sample's columns, in its order (FOCUS-Sample-Data, FOCUS-1.0/focus_sample.csv). */
    private static final String HEADER = String.join(",", List.of("AvailabilityZone", "BilledCost", "BillingAccountId",
            "BillingAccountName", "BillingCurrency", "BillingPeriodEnd", "BillingPeriodStart", "ChargeCategory",
            "ChargeClass", "ChargeDescription", "ChargeFrequency", "ChargePeriodEnd", "ChargePeriodStart",
            "CommitmentDiscountCategory", "CommitmentDiscountId", "CommitmentDiscountName",
            "CommitmentDiscountStatus", "CommitmentDiscountType", "ConsumedQuantity", "ConsumedUnit",
            "ContractedCost", "ContractedUnitPrice", "EffectiveCost", "InvoiceIssuerName", "ListCost",
            "ListUnitPrice", "PricingCategory", "PricingQuantity", "PricingUnit", "ProviderName", "PublisherName",
            "RegionId", "RegionName", "ResourceId", "ResourceName", "ResourceType", "ServiceCategory", "Id",
            "ServiceName", "SkuId", "SkuPriceId", "SubAccountId", "SubAccountName", "Tags").stream()
            .map(name -> "\"" + name + "\"").toList());
}
