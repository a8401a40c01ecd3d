package io.gpuledger.alerts.recommend;

import io.gpuledger.model.GpuUsage;
import io.gpuledger.model.JobEconomics;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Offer;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.TelemetrySample;
import io.gpuledger.model.UsageRollup;
import io.gpuledger.model.UsageTotals;
import io.gpuledger.model.WorkTotals;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.function.IntToDoubleFunction;

/**
 * Closed minutes of whole instances, as the cost engine sends them to the rules: every GPU's (or
 * MIG slice's) window of the instance, then the job's roll-up and economics of the minute. What the
 * tests of idleness and of instance-priced advice feed the rules with.
 */
final class FleetFeed {

    /** The alert service reads a closed minute a few seconds after it closes. */
    static final Duration READ_DELAY = Duration.ofSeconds(5);

    private final RulesOnMockTopic topic;

    FleetFeed(RulesOnMockTopic topic) {
        this.topic = topic;
    }

    /** Where an instance is and what it is: {@code gpus} of {@code model}, each of {@code fraction} of a GPU. */
    record Instance(String id, Offer offer, String model, int gpus, double fraction) {

        static Instance of(String id, Offer offer, String model, int gpus) {
            return new Instance(id, offer, model, gpus, 1.0);
        }

        String gpu(int index) {
            return "GPU-" + id + "-" + index;
        }
    }

    /**
     * The closed minute from {@code start} of every GPU of {@code instance}, running {@code jobId}
     * (null: no job) at {@code smActive.applyAsDouble(gpu index)}, each charged {@code gpuPricePerHour}
     * for a whole GPU (a slice its share).
     */
    void instanceMinute(Instance instance, String jobId, Instant start, double gpuPricePerHour,
            IntToDoubleFunction smActive) {
        Instant now = topic.at(start.plusSeconds(60).plus(READ_DELAY));
        for (int i = 0; i < instance.gpus(); i++) {
            topic.rules.onWindow(window(instance, i, jobId, start, gpuPricePerHour, smActive.applyAsDouble(i)), now);
        }
    }

    /**
     * The job's closed minute from {@code start} on {@code gpus} GPUs (equivalents) costing {@code costPerHour}
     * together: its roll-up and economics, with {@code units} of {@code unit} done (0: none reported).
     */
    void jobMinute(String jobId, Instant start, double gpus, double costPerHour, String unit, double units) {
        jobMinute(jobId, start, gpus, costPerHour, unit, units, start.plusSeconds(60).plus(READ_DELAY));
    }

    /** As {@link #jobMinute(String, Instant, double, double, String, double)}, read at {@code readAt}. */
    void jobMinute(String jobId, Instant start, double gpus, double costPerHour, String unit, double units,
            Instant readAt) {
        Instant now = topic.at(readAt);
        TelemetrySample sample = TelemetrySample.builder().gpuUuid("GPU-" + jobId + "-rollup").gpuModel("A100-40GB")
                .host("node-" + jobId).instanceId("i-" + jobId).instanceType("p4d.24xlarge").provider("aws")
                .region("us-east-1").lifecycle(Lifecycle.ON_DEMAND).jobId(jobId).time(start.plusSeconds(60))
                .intervalSeconds(60).smActive(0.5).build();
        UsageTotals oneGpu = UsageTotals.ZERO.add(sample, costPerHour / gpus);
        UsageTotals totals = UsageTotals.ZERO;
        for (int i = 0; i < Math.round(gpus); i++) {
            totals = totals.plus(oneGpu);
        }
        UsageRollup rollup = new UsageRollup(UsageRollup.Dimension.JOB, jobId, start, start.plusSeconds(60), "USD",
                Math.round(gpus), gpus, totals);
        WorkTotals work = units > 0 ? new WorkTotals(1, Map.of(unit, units), 1, 1, 0, 0) : WorkTotals.NONE;
        topic.rules.onRollup(rollup, now);
        topic.rules.onEconomics(JobEconomics.of(rollup, work), now);
    }

    /** A pool's closed hour from {@code start}, {@code gpuHours} of it used. */
    void poolHour(Offer pool, Instant start, double gpuHours) {
        poolHour(topic.rules, pool, start, gpuHours, topic.at(start.plusSeconds(3600).plus(READ_DELAY)));
    }

    /** A pool's closed hour from {@code start}, {@code gpuHours} of it used, read by {@code rules} at {@code now}. */
    static void poolHour(RecommendationRules rules, Offer pool, Instant start, double gpuHours, Instant now) {
        TelemetrySample sample = TelemetrySample.builder().gpuUuid("GPU-pool").gpuModel("A100-40GB").host("pool")
                .instanceId("i-pool").instanceType(pool.instanceType()).provider(pool.provider()).region(pool.region())
                .lifecycle(pool.lifecycle()).time(start.plusSeconds(3600)).intervalSeconds(3600).smActive(0.5).build();
        UsageTotals oneGpuHour = UsageTotals.ZERO.add(sample, 1.0);
        UsageTotals totals = UsageTotals.ZERO;
        for (int i = 0; i < Math.round(gpuHours); i++) {
            totals = totals.plus(oneGpuHour);
        }
        rules.onRollup(new UsageRollup(UsageRollup.Dimension.POOL, pool.key(), start, start.plusSeconds(3600), "USD",
                Math.round(gpuHours), gpuHours, totals), now);
    }

    /** A quote of {@code offer}, valid long before the tests' minutes. */
    static PriceQuote quote(Offer offer, String model, int gpus, double pricePerHour) {
        return new PriceQuote(offer.provider(), offer.region(), offer.instanceType(), offer.lifecycle(), model, gpus,
                pricePerHour, "USD", Instant.parse("2026-01-01T00:00:00Z"), "test");
    }

    static GpuUsage window(Instance instance, int index, String jobId, Instant start, double gpuPricePerHour,
            double smActive) {
        Offer offer = instance.offer();
        TelemetrySample.Builder builder = TelemetrySample.builder().gpuUuid(instance.gpu(index)).gpuIndex(index)
                .gpuModel(instance.model()).host("host-" + instance.id()).instanceId(instance.id())
                .instanceType(offer.instanceType()).provider(offer.provider()).region(offer.region())
                .lifecycle(offer.lifecycle()).jobId(jobId).team("team-a").time(start.plusSeconds(60))
                .intervalSeconds(60).smActive(smActive).dramActive(0.3);
        if (instance.fraction() < 1) {
            builder.migProfile("1g.10gb").gpuFraction(instance.fraction());
        }
        TelemetrySample sample = builder.build();
        GpuUsage open = GpuUsage.empty(sample, start, start.plusSeconds(60), "USD").add(sample, gpuPricePerHour);
        return open.toBuilder().closed(true).build();
    }
}
