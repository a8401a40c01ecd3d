package io.gpuledger.alerts;

import io.gpuledger.model.GpuUsage;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Placement;
import io.gpuledger.model.TelemetrySample;
import io.gpuledger.model.UsageTotals;
import io.gpuledger.model.UsageTotals.Sum;
import java.time.Instant;

/** Usage windows as the cost engine publishes them, for the alert service's tests. */
public final class UsageWindows {

    private UsageWindows() {
    }

    /**
     * The minute from {@code start} of one A10G on {@code placement}, covered by a single sample at
     * {@code smActive} priced {@code pricePerHour}; {@code closed} as in its last record.
     */
    public static GpuUsage minute(Placement placement, String gpu, String job, String team, Instant start,
            double pricePerHour, double smActive, boolean closed) {
        TelemetrySample sample = TelemetrySample.builder().gpuUuid(gpu).gpuModel("A10G-24GB").placement(placement)
                .jobId(job).team(team).time(start.plusSeconds(60)).intervalSeconds(60).smActive(smActive).build();
        return minute(sample, start, pricePerHour, closed);
    }

    /**
     * The closed minute of {@code gpu} on the on-demand instance {@code instance} that ended a minute before
     * {@code now}: the latest a GPU running now has.
     */
    public static GpuUsage lastMinute(String instance, String gpu, String team, Instant now, double pricePerHour,
            double smActive) {
        Placement placement = new Placement("node-" + instance, instance, "g5.12xlarge", "aws", "us-east-1",
                Lifecycle.ON_DEMAND);
        return minute(placement, gpu, "job-" + instance, team, now.minusSeconds(120), pricePerHour, smActive, true);
    }

    /**
     * As {@link #minute(Placement, String, String, String, Instant, double, double, boolean)}, of a
     * 1g.10gb MIG slice (a seventh) of an A100 whose whole GPU is priced {@code gpuPricePerHour}.
     */
    public static GpuUsage seventhSliceMinute(Placement placement, String slice, String job, String team,
            Instant start, double gpuPricePerHour, double smActive, boolean closed) {
        TelemetrySample sample = TelemetrySample.builder().gpuUuid(slice).gpuModel("A100-80GB").placement(placement)
                .jobId(job).team(team).time(start.plusSeconds(60)).intervalSeconds(60).smActive(smActive)
                .migProfile("1g.10gb").gpuFraction(1.0 / 7).build();
        return minute(sample, start, gpuPricePerHour, closed);
    }

    private static GpuUsage minute(TelemetrySample sample, Instant start, double pricePerHour, boolean closed) {
        GpuUsage open = GpuUsage.empty(sample, start, start.plusSeconds(60), "USD").add(sample, pricePerHour);
        return open.toBuilder().closed(closed).build();
    }

    /** {@code window} with every second of it charged at a price its feed had not confirmed lately. */
    public static GpuUsage stalePriced(GpuUsage window) {
        UsageTotals t = window.totals();
        return withTotals(window, t.toBuilder().sum(Sum.STALE_PRICED_SECONDS, t.gpuSeconds())
                .sum(Sum.UNMONITORED_COST, 0).build());
    }

    /** {@code window} with no second of it priced (no price, or no exchange rate): charged nothing. */
    public static GpuUsage unpriced(GpuUsage window) {
        UsageTotals t = window.totals();
        return withTotals(window, t.toBuilder().sum(Sum.UNPRICED_SECONDS, t.gpuSeconds())
                .sum(Sum.STALE_PRICED_SECONDS, 0).sum(Sum.COST, 0).sum(Sum.IDLE_COST, 0).sum(Sum.UNMONITORED_COST, 0)
                .build());
    }

    /** {@code window} with {@code seconds} of unmonitored time more, estimated to cost {@code cost}. */
    public static GpuUsage unmonitored(GpuUsage window, double seconds, double cost) {
        return withTotals(window, window.totals().plusUnmonitored(seconds, cost));
    }

    private static GpuUsage withTotals(GpuUsage window, UsageTotals totals) {
        return window.toBuilder().totals(totals).build();
    }
}
