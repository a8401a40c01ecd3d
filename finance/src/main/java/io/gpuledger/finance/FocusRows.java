package io.gpuledger.finance;

import io.gpuledger.model.CarbonIntensity;
import io.gpuledger.model.GpuHour;
import io.gpuledger.model.JobPart;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Placement;
import io.gpuledger.model.UsageRollup;
import io.gpuledger.model.UsageTotals;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Instant;
import java.time.YearMonth;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;

/**
 * The FOCUS rows of a GPU's closed hour: one for the hour when one job had it all, else one per job's part and
 * one for what no job took (a shared GPU's idle or unattributed time, and its unmonitored time) where more than
 * rounding is left, so that each row's tags name who is charged. One row carries the hour's idle cost and mean SM
 * activity: its only row, else what no job took, else the job's part of the most GPU time. The rows'
 * {@code EffectiveCost} adds up exactly to the hour's cost and unmonitored cost, to 10 decimals, and their
 * GPU-hours to the hour's, to 6.
 *
 * <p>How the engine's figures become FOCUS columns (docs/finance.md says it for finance):
 * <ul>
 *   <li>{@code PricingQuantity} and {@code ConsumedQuantity}: the row's GPU-hours (a MIG slice counts its share of
 *       the GPU), sampled and unmonitored, to 6 decimals; unit {@code GPU-Hours}.</li>
 *   <li>{@code ListUnitPrice}: the on-demand price per GPU-hour of the instance type in its region, at the hour's
 *       start, from the price versions; the row's own rate when none is known, or the hour's currency is not the
 *       one the list prices are converted to.</li>
 *   <li>{@code ContractedUnitPrice}: the rate the engine charged (cost over GPU-hours, to 10 decimals) for
 *       on-demand and spot time; the list price for reserved time, whose discount is a commitment discount.</li>
 *   <li>{@code ListCost} and {@code ContractedCost}: unit price × quantity, exactly.</li>
 *   <li>{@code BilledCost}: the row's cost; 0 for reserved time, which the reservation's own purchase bills.
 *       {@code EffectiveCost}: the row's cost, reserved time included.</li>
 *   <li>{@code PricingCategory}: on-demand {@code Standard}, spot {@code Dynamic}, reserved {@code Committed} (with
 *       the commitment-discount columns, named by offer: the engine knows no reservation's own id).</li>
 * </ul>
 */
public final class FocusRows {

    public static final String GPU_HOURS = "GPU-Hours";
    /** The tag prefix of GPU Ledger's own tags: they are provider-defined, as FOCUS names tags no user set. */
    public static final String TAG_PREFIX = "gpuledger/";

    private static final int QUANTITY_SCALE = 6;
    private static final int MONEY_SCALE = 10;
    private static final double SECONDS_PER_HOUR = 3600;
    /** Costs below this (in the reporting currency) are rounding, not a part of the hour. */
    private static final double NOTHING = 1e-9;
    /** GPU seconds below this are rounding, not a part of the hour: under half the quantity's last decimal. */
    private static final double NO_SECONDS = SECONDS_PER_HOUR * 0.5e-6;

    private final ListPrices listPrices;
    private final FocusAccount account;
    private final CarbonIntensity carbon;
    private final WorkCosts work;

    public FocusRows(ListPrices listPrices, FocusAccount account) {
        this(listPrices, account, CarbonIntensity.shipped(), null);
    }

    /** @param work what each job's work cost per million units by hour; null: no such column is filled */
    public FocusRows(ListPrices listPrices, FocusAccount account, CarbonIntensity carbon, WorkCosts work) {
        this.listPrices = listPrices;
        this.account = account;
        this.carbon = carbon;
        this.work = work;
    }

    /** Who a row charges and what: a job's part of the hour, the whole hour, or what no job took. */
    private record Part(String jobId, String team, double seconds, double cost, double energyKwh, Double idleCost,
            double unmonitoredCost, Double smActive) {
    }

    /**
     * The rows of {@code hour}, in a stable order: the jobs' parts as the hour lists them, then the rest. Their
     * costs add up to the hour's cost and unmonitored cost, and their GPU-hours to its GPU time, exactly as written:
     * what rounding each row leaves over or short goes to the row of the largest figure.
     */
    public List<FocusRow> of(GpuHour hour) {
        List<Part> parts = partsOf(hour);
        UsageTotals totals = hour.totals();
        List<BigDecimal> costs = settled(parts.stream().map(part -> money(part.cost)).toList(),
                money(wholeCost(totals)));
        List<BigDecimal> quantities = settled(parts.stream().map(part -> gpuHours(part.seconds)).toList(),
                gpuHours(wholeSeconds(totals)));
        List<FocusRow> rows = new ArrayList<>();
        for (int i = 0; i < parts.size(); i++) {
            rows.add(row(hour, parts.get(i), quantities.get(i), costs.get(i)));
        }
        return rows;
    }

    /**
     * {@code rounded}, with what they fall short of {@code whole} (or pass it by) given to the largest of them,
     * which is left no lower than zero.
     */
    private static List<BigDecimal> settled(List<BigDecimal> rounded, BigDecimal whole) {
        BigDecimal gap = whole.subtract(rounded.stream().reduce(BigDecimal.ZERO, BigDecimal::add));
        if (gap.signum() == 0 || rounded.isEmpty()) {
            return rounded;
        }
        int largest = 0;
        for (int i = 1; i < rounded.size(); i++) {
            if (rounded.get(i).compareTo(rounded.get(largest)) > 0) {
                largest = i;
            }
        }
        List<BigDecimal> settled = new ArrayList<>(rounded);
        settled.set(largest, rounded.get(largest).add(gap).max(BigDecimal.ZERO.setScale(whole.scale())));
        return settled;
    }

    private static List<Part> partsOf(GpuHour hour) {
        UsageTotals totals = hour.totals();
        List<JobPart> jobs = hour.jobParts();
        double unallocated = hour.unallocatedCost();
        // One job's whole hour, or no job's: by time too, as an hour without a price costs nothing whoever had it.
        // Never a shared GPU's, even with one job's share of all its samples: its unmonitored time is no job's.
        boolean whole = jobs.isEmpty() || totals.sharedGpuSeconds() <= 0
                && totals.gpuSeconds() - jobs.get(0).gpuSeconds() < NO_SECONDS;
        if (jobs.size() <= 1 && unallocated <= NOTHING && whole) {
            JobPart only = jobs.isEmpty() ? null : jobs.get(0);
            return List.of(new Part(only == null ? null : only.jobId(), only == null ? restTeam(hour) : only.team(),
                    wholeSeconds(totals), wholeCost(totals), totals.energyKwh(), totals.idleCost(),
                    totals.unmonitoredCost(), totals.smActive().value()));
        }
        List<Part> parts = new ArrayList<>();
        double partSeconds = 0;
        double partEnergy = 0;
        double partUnmonitoredSeconds = 0;
        double partUnmonitoredCost = 0;
        for (JobPart job : jobs) {
            // A job's part holds the time no sample covered in its own minutes, as the roll-ups give it to the job.
            parts.add(new Part(job.jobId(), job.team(), job.gpuSeconds() + job.unmonitoredSeconds(),
                    job.cost() + job.unmonitoredCost(), job.energyKwh(), null, job.unmonitoredCost(), null));
            partSeconds += job.gpuSeconds();
            partEnergy += job.energyKwh();
            partUnmonitoredSeconds += job.unmonitoredSeconds();
            partUnmonitoredCost += job.unmonitoredCost();
        }
        double restUnmonitoredCost = Math.max(0, totals.unmonitoredCost() - partUnmonitoredCost);
        double restSeconds = Math.max(0, totals.gpuSeconds() - partSeconds)
                + Math.max(0, totals.unmonitoredSeconds() - partUnmonitoredSeconds);
        double restCost = unallocated + restUnmonitoredCost;
        if (restCost > NOTHING || restSeconds >= NO_SECONDS) {
            // What no job took is the node's team's, as the roll-ups give it.
            double restEnergy = Math.max(0, totals.energyKwh() - partEnergy);
            parts.add(new Part(null, restTeam(hour), restSeconds, restCost, restEnergy, totals.idleCost(),
                    restUnmonitoredCost, totals.smActive().value()));
        } else if (!parts.isEmpty()) {
            putHoursFiguresOnLongest(parts, totals);
        }
        return parts;
    }

    /**
     * The team that takes what no job took of {@code hour}: the node's, {@value UsageRollup#NO_TEAM} where it names
     * none, as the roll-ups and the jobs' parts spell it.
     */
    private static String restTeam(GpuHour hour) {
        return hour.team() == null ? UsageRollup.NO_TEAM : hour.team();
    }

    /**
     * Puts the hour's own figures (its idle cost and mean SM activity, which no job's part has) on the part of
     * {@code parts}, an hour's whose jobs took all of it, of the most GPU time, the first of equals: with no row for
     * the rest, one row still carries them.
     */
    private static void putHoursFiguresOnLongest(List<Part> parts, UsageTotals totals) {
        int longest = 0;
        for (int i = 1; i < parts.size(); i++) {
            if (parts.get(i).seconds > parts.get(longest).seconds) {
                longest = i;
            }
        }
        Part part = parts.get(longest);
        parts.set(longest, new Part(part.jobId, part.team, part.seconds, part.cost, part.energyKwh, totals.idleCost(),
                part.unmonitoredCost, totals.smActive().value()));
    }

    /** The row of {@code part}, of {@code quantity} GPU-hours costing {@code cost}, as {@link #of} settled them. */
    private FocusRow row(GpuHour hour, Part part, BigDecimal quantity, BigDecimal cost) {
        Placement placement = hour.placement();
        Instant start = hour.windowStart();
        YearMonth month = YearMonth.from(start.atZone(ZoneOffset.UTC));
        BigDecimal rate = quantity.signum() > 0 ? cost.divide(quantity, MONEY_SCALE, RoundingMode.HALF_EVEN) : null;
        Double known = listPrices.perGpuHour(placement.offer(), hour.currency(), start.toEpochMilli());
        BigDecimal list = known != null ? money(known) : rate != null ? rate : BigDecimal.ZERO.setScale(MONEY_SCALE);
        boolean reserved = placement.lifecycle() == Lifecycle.RESERVED;
        BigDecimal contracted = reserved || rate == null ? list : rate;
        String provider = Providers.providerName(placement.provider());
        String sku = placement.provider() + ":" + placement.instanceType();

        FocusRow row = new FocusRow()
                .set(FocusColumn.BILLED_COST, reserved ? BigDecimal.ZERO.setScale(MONEY_SCALE) : cost)
                .set(FocusColumn.BILLING_ACCOUNT_ID, account.id())
                .set(FocusColumn.BILLING_ACCOUNT_NAME, account.name())
                .set(FocusColumn.BILLING_CURRENCY, hour.currency())
                .set(FocusColumn.BILLING_PERIOD_START, month.atDay(1).atStartOfDay(ZoneOffset.UTC).toInstant())
                .set(FocusColumn.BILLING_PERIOD_END,
                        month.plusMonths(1).atDay(1).atStartOfDay(ZoneOffset.UTC).toInstant())
                .set(FocusColumn.CHARGE_CATEGORY, "Usage")
                .set(FocusColumn.CHARGE_DESCRIPTION, description(hour, part))
                .set(FocusColumn.CHARGE_FREQUENCY, "Usage-Based")
                .set(FocusColumn.CHARGE_PERIOD_START, start)
                .set(FocusColumn.CHARGE_PERIOD_END, hour.windowEnd())
                .set(FocusColumn.CONSUMED_QUANTITY, quantity)
                .set(FocusColumn.CONSUMED_UNIT, GPU_HOURS)
                .set(FocusColumn.CONTRACTED_COST, contracted.multiply(quantity))
                .set(FocusColumn.CONTRACTED_UNIT_PRICE, contracted)
                .set(FocusColumn.EFFECTIVE_COST, cost)
                .set(FocusColumn.INVOICE_ISSUER_NAME, provider)
                .set(FocusColumn.LIST_COST, list.multiply(quantity))
                .set(FocusColumn.LIST_UNIT_PRICE, list)
                .set(FocusColumn.PRICING_CATEGORY, pricingCategory(placement.lifecycle()))
                .set(FocusColumn.PRICING_QUANTITY, quantity)
                .set(FocusColumn.PRICING_UNIT, GPU_HOURS)
                .set(FocusColumn.PROVIDER_NAME, provider)
                .set(FocusColumn.PUBLISHER_NAME, provider)
                .set(FocusColumn.REGION_ID, placement.region())
                .set(FocusColumn.REGION_NAME, placement.region())
                .set(FocusColumn.RESOURCE_ID, placement.instanceId())
                .set(FocusColumn.RESOURCE_NAME, placement.host())
                .set(FocusColumn.RESOURCE_TYPE, "Virtual Machine")
                .set(FocusColumn.SERVICE_CATEGORY, "Compute")
                .set(FocusColumn.SERVICE_NAME, Providers.serviceName(placement.provider()))
                .set(FocusColumn.SERVICE_SUBCATEGORY, "Virtual Machines")
                .set(FocusColumn.SKU_ID, sku)
                .set(FocusColumn.SKU_METER, "GPU Instance Usage")
                .set(FocusColumn.SKU_PRICE_DETAILS, JsonText.object("x_InstanceType", placement.instanceType(),
                        "x_Lifecycle", placement.lifecycle().wire()))
                .set(FocusColumn.SKU_PRICE_ID, sku + ":" + placement.region() + ":" + placement.lifecycle().wire())
                .set(FocusColumn.TAGS, tags(part))
                .set(FocusColumn.X_GPU_UUID, hour.gpuUuid())
                .set(FocusColumn.X_GPU_MODEL, hour.gpuModel())
                .set(FocusColumn.X_JOB_ID, part.jobId)
                .set(FocusColumn.X_TEAM, part.team)
                .set(FocusColumn.X_IDLE_COST, part.idleCost == null ? null : money(part.idleCost))
                .set(FocusColumn.X_UNMONITORED_COST, money(part.unmonitoredCost))
                .set(FocusColumn.X_SM_ACTIVE, part.smActive == null ? null
                        : BigDecimal.valueOf(part.smActive).setScale(QUANTITY_SCALE, RoundingMode.HALF_EVEN))
                .set(FocusColumn.X_ENERGY_KWH, BigDecimal.valueOf(part.energyKwh)
                        .setScale(MONEY_SCALE, RoundingMode.HALF_EVEN));
        WorkCosts.PerMillion perMillion = work == null || part.jobId == null ? null : work.of(part.jobId, start);
        if (perMillion != null) {
            row.set(FocusColumn.X_COST_PER_MILLION_UNITS, money(perMillion.cost()))
                    .set(FocusColumn.X_WORK_UNIT, perMillion.unit());
        }
        Double gramsPerKwh = carbon.gramsPerGpuKwh(placement.provider(), placement.region(), start);
        if (gramsPerKwh != null) {
            row.set(FocusColumn.X_CO2E_GRAMS, BigDecimal.valueOf(part.energyKwh * gramsPerKwh)
                    .setScale(QUANTITY_SCALE, RoundingMode.HALF_EVEN));
        }
        if (reserved) {
            String commitment = placement.provider() + ":" + placement.region() + ":" + placement.instanceType()
                    + ":reserved";
            row.set(FocusColumn.COMMITMENT_DISCOUNT_ID, commitment)
                    .set(FocusColumn.COMMITMENT_DISCOUNT_NAME, "Reserved " + placement.instanceType() + " in "
                            + placement.region())
                    .set(FocusColumn.COMMITMENT_DISCOUNT_CATEGORY, "Usage")
                    .set(FocusColumn.COMMITMENT_DISCOUNT_TYPE, "Reserved Capacity")
                    .set(FocusColumn.COMMITMENT_DISCOUNT_STATUS, "Used")
                    .set(FocusColumn.COMMITMENT_DISCOUNT_QUANTITY, quantity)
                    .set(FocusColumn.COMMITMENT_DISCOUNT_UNIT, GPU_HOURS);
        }
        return row;
    }

    private static BigDecimal money(double amount) {
        return BigDecimal.valueOf(amount).setScale(MONEY_SCALE, RoundingMode.HALF_EVEN);
    }

    /** The hour's GPU time, sampled and unmonitored. */
    private static double wholeSeconds(UsageTotals totals) {
        return totals.gpuSeconds() + totals.unmonitoredSeconds();
    }

    /** The hour's cost, of its samples and its unmonitored time. */
    private static double wholeCost(UsageTotals totals) {
        return totals.cost() + totals.unmonitoredCost();
    }

    private static BigDecimal gpuHours(double seconds) {
        return BigDecimal.valueOf(seconds / SECONDS_PER_HOUR).setScale(QUANTITY_SCALE, RoundingMode.HALF_EVEN);
    }

    private static String pricingCategory(Lifecycle lifecycle) {
        return switch (lifecycle) {
            case ON_DEMAND -> "Standard";
            case SPOT -> "Dynamic";
            case RESERVED -> "Committed";
        };
    }

    private static String description(GpuHour hour, Part part) {
        String gpu = hour.gpuModel() == null ? "GPU" : hour.gpuModel() + " GPU";
        String what = gpu + "-hours on " + hour.placement().instanceType() + ", " + hour.placement().lifecycle().wire();
        if (JobPart.unlisted(part.jobId)) {
            return what + ", taken by jobs" + (part.team == null ? "" : " of " + part.team) + " past the first "
                    + JobPart.MAX_LISTED + " listed";
        }
        return part.jobId == null && !hour.jobParts().isEmpty() ? what + ", taken by no job" : what;
    }

    private static String tags(Part part) {
        if (part.jobId == null) {
            return part.team == null ? JsonText.object(TAG_PREFIX + "unallocated", true)
                    : JsonText.object(TAG_PREFIX + "unallocated", true, TAG_PREFIX + "team", part.team);
        }
        return part.team == null ? JsonText.object(TAG_PREFIX + "job", part.jobId)
                : JsonText.object(TAG_PREFIX + "job", part.jobId, TAG_PREFIX + "team", part.team);
    }
}
