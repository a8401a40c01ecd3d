package io.gpuledger.alerts.anomaly;

import io.gpuledger.alerts.anomaly.Anomalies.Finding;
import io.gpuledger.alerts.metrics.MetricCatalogue;
import io.gpuledger.model.AnomalyKind;
import io.gpuledger.model.CapacityEvent;
import io.gpuledger.model.CapacityEventKind;
import io.gpuledger.model.CostAnomaly;
import io.gpuledger.model.CostAnomaly.Severity;
import io.gpuledger.model.GpuUsage;
import io.gpuledger.model.Offer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * GPUs gone dark: their agent silent for longer than the cost engine's maximum gap, after which the
 * engine takes a GPU to have stopped and its time stops counting, even as unmonitored. Unless a
 * capacity notice (or the instance's own agent, as it shut down) said the instance goes away, it
 * may well be running, and billed, with nobody
 * watching: each such GPU is counted per pool ({@code gpuledger_gpus_dark}) and raised once as a
 * {@link AnomalyKind#GPU_DARK} anomaly, until it reports again or a notice for its instance comes.
 *
 * <p>Time is the usage windows' own: a GPU is dark when the newest window of any GPU ended more
 * than the horizon after its own latest observed one, so a replay judges as the live run did, and
 * an engine that is down makes nobody dark. Bounded: a GPU dark for {@code forgetAfter} is let go.
 */
public final class DarkGpus {

    /** The cost engine's maximum gap ({@code CostSettings.DEFAULT_MAX_GAP}): longer silences stop counting. */
    public static final Duration HORIZON = Duration.ofMinutes(15);
    /** How long a dark GPU is followed before it is let go (its anomaly stays published). */
    public static final Duration FORGET_AFTER = Duration.ofDays(7);
    /** Notices after which an instance is gone, taken back by its cloud or shut down: its silence is explained. */
    static final Set<CapacityEventKind> STOPS = EnumSet.of(CapacityEventKind.SPOT_INTERRUPTION,
            CapacityEventKind.PREEMPTION, CapacityEventKind.TERMINATION, CapacityEventKind.INSTANCE_STOPPING);
    static final String DIMENSION = "gpu";
    static final String MEASURE = "spend per hour nobody observes";
    private static final long MINUTE_MILLIS = 60_000;

    private final MeterRegistry registry;
    private final Duration horizon;
    private final Duration forgetAfter;
    /** Every GPU with an observed window, by UUID. */
    private final Map<String, Followed> gpus = new HashMap<>();
    private final Map<Offer, AtomicLong> darkByPool = new HashMap<>();
    /**
     * When each instance was last said to stop: its GPUs may report until the notice's deadline and
     * then fall silent, explained. Kept as long as a dark GPU is.
     */
    private final Map<String, Instant> stopped = new HashMap<>();
    /** The end of the newest window of any GPU: the fleet's clock. */
    private Instant clock = Instant.MIN;
    private long judgedMinute = Long.MIN_VALUE;

    /** One GPU as last observed, and whether it is dark now. */
    private static final class Followed {
        GpuUsage lastObserved;
        /** Spend per hour of wall time in its latest closed window with samples; 0 until one closed. */
        double costPerHour;
        boolean dark;
    }

    public DarkGpus(MeterRegistry registry, Duration horizon, Duration forgetAfter) {
        this.registry = registry;
        this.horizon = horizon;
        this.forgetAfter = forgetAfter;
    }

    /**
     * A GPU window: a GPU that observed something is followed (and is no longer dark); once a minute
     * of the fleet's clock, the GPUs silent for longer than the horizon are judged. Returns the
     * anomalies of GPUs newly dark.
     */
    public synchronized List<CostAnomaly> onWindow(GpuUsage usage, Instant detectedAt) {
        if (usage.samples() > 0) {
            observed(usage);
        }
        if (usage.windowEnd().isAfter(clock)) {
            clock = usage.windowEnd();
        }
        long minute = Math.floorDiv(clock.toEpochMilli(), MINUTE_MILLIS);
        if (minute == judgedMinute) {
            return List.of();
        }
        judgedMinute = minute;
        return judge(detectedAt);
    }

    /** A capacity notice: an instance that stops explains its GPUs' silence; they are no longer followed. */
    public synchronized void onNotice(CapacityEvent notice) {
        if (!STOPS.contains(notice.kind())) {
            return;
        }
        stopped.merge(notice.instanceId(), notice.noticedAt(), (known, fresh) -> fresh.isAfter(known) ? fresh : known);
        for (Iterator<Followed> it = gpus.values().iterator(); it.hasNext(); ) {
            Followed gpu = it.next();
            if (notice.instanceId().equals(gpu.lastObserved.instanceId())) {
                it.remove();
                if (gpu.dark) {
                    pool(gpu.lastObserved).decrementAndGet();
                }
            }
        }
    }

    /** GPUs dark now. */
    public synchronized long dark() {
        return gpus.values().stream().filter(gpu -> gpu.dark).count();
    }

    private void observed(GpuUsage usage) {
        Followed gpu = gpus.computeIfAbsent(usage.gpuUuid(), uuid -> new Followed());
        if (gpu.lastObserved != null && usage.windowStart().isBefore(gpu.lastObserved.windowStart())) {
            return;
        }
        if (gpu.dark) {
            gpu.dark = false;
            pool(gpu.lastObserved).decrementAndGet();
        }
        if (gpu.lastObserved == null || !sameWindowAndPlace(gpu.lastObserved, usage)) {
            gpu.lastObserved = usage;
        }
        if (usage.closed()) {
            // What it spent an hour while observed: its last window may be covered only in part.
            gpu.costPerHour = usage.costPerHour();
        }
    }

    /**
     * Whether {@code usage} is another version of {@code last}'s window, on the same instance, host,
     * job and currency: all that is kept of it. The older record is then kept (a window is updated
     * every 2 s, and a record held until the next outlives a young collection).
     */
    private static boolean sameWindowAndPlace(GpuUsage last, GpuUsage usage) {
        return last.windowStart().equals(usage.windowStart()) && last.instanceId().equals(usage.instanceId())
                && last.instanceType().equals(usage.instanceType()) && last.lifecycle() == usage.lifecycle()
                && Objects.equals(last.host(), usage.host()) && Objects.equals(last.jobId(), usage.jobId())
                && Objects.equals(last.currency(), usage.currency());
    }

    private List<CostAnomaly> judge(Instant detectedAt) {
        List<CostAnomaly> found = new ArrayList<>();
        Instant darkBefore = clock.minus(horizon);
        Instant forgetBefore = clock.minus(forgetAfter);
        for (Iterator<Map.Entry<String, Followed>> it = gpus.entrySet().iterator(); it.hasNext(); ) {
            Followed gpu = it.next().getValue();
            Instant seen = gpu.lastObserved.windowEnd();
            if (seen.isBefore(forgetBefore)) {
                it.remove();
                if (gpu.dark) {
                    pool(gpu.lastObserved).decrementAndGet();
                }
            } else if (!gpu.dark && seen.isBefore(darkBefore) && stoppedBefore(gpu.lastObserved)) {
                it.remove();
            } else if (!gpu.dark && seen.isBefore(darkBefore)) {
                gpu.dark = true;
                pool(gpu.lastObserved).incrementAndGet();
                found.add(anomaly(gpu, detectedAt));
            }
        }
        stopped.values().removeIf(noticedAt -> noticedAt.isBefore(forgetBefore));
        return found;
    }

    /**
     * Whether the instance of a GPU that fell silent after {@code last} was said to stop shortly
     * before (within the horizon) or since: then its silence is explained. A notice older than that
     * was for an earlier run of the instance (one stopped, then started again).
     */
    private boolean stoppedBefore(GpuUsage last) {
        Instant noticedAt = stopped.get(last.instanceId());
        return noticedAt != null && !noticedAt.isBefore(last.windowEnd().minus(horizon));
    }

    private CostAnomaly anomaly(Followed gpu, Instant detectedAt) {
        GpuUsage last = gpu.lastObserved;
        Finding finding = Finding.of(AnomalyKind.GPU_DARK).dimension(DIMENSION).subject(last.gpuUuid())
                .severity(Severity.WARNING).measure(MEASURE).expected(0).actual(gpu.costPerHour)
                .currency(last.currency()).windowStart(last.windowEnd()).windowEnd(clock);
        Map<String, Object> evidence = new LinkedHashMap<>();
        evidence.put("instanceId", last.instanceId());
        evidence.put("host", last.host());
        evidence.put("pool", offerOf(last).key());
        evidence.put("jobId", last.jobId());
        evidence.put("lastObservedAt", last.windowEnd().toString());
        evidence.put("horizonSeconds", horizon.toSeconds());
        String summary = "GPU " + last.gpuUuid() + " of " + last.instanceId() + " (" + offerOf(last).key()
                + ") has sent nothing since " + last.windowEnd() + ", more than " + horizon.toMinutes()
                + " min, and no notice said its instance stopped: if it still runs, about "
                + Anomalies.money(gpu.costPerHour) + " " + last.currency()
                + " an hour is spent that no figure counts";
        return finding.toAnomaly(detectedAt, null, summary, evidence);
    }

    /** The count of dark GPUs of {@code usage}'s pool, its gauge registered the first time. */
    private AtomicLong pool(GpuUsage usage) {
        return darkByPool.computeIfAbsent(offerOf(usage), offer -> {
            AtomicLong count = new AtomicLong();
            MetricCatalogue.shipped().family("gpuledger_gpus_dark").gauge(registry,
                    Tags.of("provider", offer.provider(), "region", offer.region(), "instance_type",
                            offer.instanceType(), "lifecycle", offer.lifecycle().wire()), count, AtomicLong::get);
            return count;
        });
    }

    private static Offer offerOf(GpuUsage usage) {
        return new Offer(usage.provider(), usage.region(), usage.instanceType(), usage.lifecycle());
    }
}
