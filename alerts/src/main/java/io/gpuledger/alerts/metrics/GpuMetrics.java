package io.gpuledger.alerts.metrics;

import io.gpuledger.model.GpuUsage;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Per-GPU gauges, fed by usage windows. Each GPU's gauges show its latest window: an update of
 * an older window (a late sample) does not move them back.
 *
 * <p>Labels: {@code host}, {@code gpu} (UUID), {@code instance_type}, {@code provider},
 * {@code region}, {@code lifecycle}; money also carries {@code currency}. One series per GPU and
 * family: cardinality grows with the fleet, and with nothing else.
 */
@ApplicationScoped
public class GpuMetrics {

    public static final String COST_PER_HOUR = "gpuledger.gpu.cost.per.hour";
    public static final String SM_ACTIVE = "gpuledger.gpu.sm.active.ratio";

    private final MeterRegistry registry;
    private final Map<String, GpuSeries> byGpu = new ConcurrentHashMap<>();

    public GpuMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    public void record(GpuUsage usage) {
        GpuSeries series = byGpu.compute(usage.gpuUuid(), (gpu, current) -> {
            Tags tags = tags(usage);
            if (current != null && current.tags.equals(tags)) {
                return current;
            }
            if (current != null) {
                current.meters.forEach(registry::remove);
            }
            return register(tags);
        });
        series.show(usage);
    }

    /** GPUs with gauges. */
    public int gpus() {
        return byGpu.size();
    }

    private GpuSeries register(Tags tags) {
        GpuSeries series = new GpuSeries(tags);
        Gauge cost = Gauge.builder(COST_PER_HOUR, series, s -> s.costPerHour)
                .description("Observed spend rate of one GPU over its latest one-minute window, in the currency of its price")
                .tags(tags)
                .strongReference(true)
                .register(registry);
        Gauge sm = Gauge.builder(SM_ACTIVE, series, s -> s.smActive)
                .description("Time-weighted mean SM activity (0-1) of one GPU over its latest one-minute window")
                .tags(tags.stream().filter(tag -> !tag.getKey().equals("currency")).toList())
                .strongReference(true)
                .register(registry);
        series.meters = List.of(cost, sm);
        return series;
    }

    private static Tags tags(GpuUsage usage) {
        return Tags.of(
                "host", usage.host(),
                "gpu", usage.gpuUuid(),
                "instance_type", usage.instanceType(),
                "provider", usage.provider(),
                "region", usage.region(),
                "lifecycle", usage.lifecycle().wire(),
                "currency", usage.currency() == null ? "none" : usage.currency());
    }

    private static final class GpuSeries {
        private final Tags tags;
        private List<Meter> meters = List.of();
        private long windowStart = Long.MIN_VALUE;
        private volatile double costPerHour;
        private volatile double smActive;

        private GpuSeries(Tags tags) {
            this.tags = tags;
        }

        private synchronized void show(GpuUsage usage) {
            long start = usage.windowStart().toEpochMilli();
            if (start < windowStart) {
                return;
            }
            windowStart = start;
            costPerHour = usage.costPerHour();
            smActive = usage.smActive();
        }
    }
}
