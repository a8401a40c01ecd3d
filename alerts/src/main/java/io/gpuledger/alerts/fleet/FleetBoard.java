package io.gpuledger.alerts.fleet;

import io.gpuledger.model.CapacityEvent;
import io.gpuledger.model.EnrichedCapacityEvent;
import io.gpuledger.model.GpuUsage;
import io.gpuledger.model.PlacedGpu;
import io.gpuledger.model.Offer;
import io.gpuledger.model.UsageRollup;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The fleet as it is now: each GPU's latest usage window, for {@code GET /api/fleet}. A GPU not
 * heard of for {@code staleAfter} is no longer part of it.
 */
public final class FleetBoard {

    /** How far a GPU's latest window may end before the fleet's newest and still count as observed. */
    private static final Duration QUIET = Duration.ofMinutes(1);

    private final Duration staleAfter;
    private final Map<String, Seen> latest = new ConcurrentHashMap<>();

    private record Seen(GpuUsage usage, Instant at) {
    }

    public FleetBoard(Duration staleAfter) {
        this.staleAfter = staleAfter;
    }

    public void record(GpuUsage usage, Instant now) {
        latest.merge(usage.gpuUuid(), new Seen(usage, now),
                (known, fresh) -> fresh.usage().windowStart().isBefore(known.usage().windowStart()) ? known : fresh);
    }

    /** Forgets the GPUs not heard of since {@code now - staleAfter}. */
    public void sweep(Instant now) {
        Instant cutoff = now.minus(staleAfter);
        latest.values().removeIf(seen -> seen.at().isBefore(cutoff));
    }

    /**
     * A capacity notice with what the board knows runs on its instance: the GPUs whose latest
     * window ended at most {@code maxAge} before the notice. The cost engine's capacity stage
     * publishes the same join a commit later; this one is at hand the moment the notice is read.
     */
    public EnrichedCapacityEvent enrich(CapacityEvent notice, Duration maxAge) {
        Instant newest = null;
        List<PlacedGpu> gpus = new ArrayList<>();
        for (Seen seen : latest.values()) {
            GpuUsage usage = seen.usage();
            if (!notice.instanceId().equals(usage.instanceId())) {
                continue;
            }
            if (newest == null || usage.windowEnd().isAfter(newest)) {
                newest = usage.windowEnd();
            }
            if (!usage.windowEnd().isBefore(notice.noticedAt().minus(maxAge))) {
                gpus.add(PlacedGpu.of(usage));
            }
        }
        return newest == null ? EnrichedCapacityEvent.unplaced(notice)
                : EnrichedCapacityEvent.placed(notice, newest, gpus);
    }

    /** The latest window of every GPU heard of recently. */
    public Iterable<GpuUsage> gpus() {
        return latest.values().stream().map(Seen::usage).toList();
    }

    /** The end of the newest of {@code gpus}' windows; null when there is none. */
    private static Instant newestEnd(Iterable<GpuUsage> gpus) {
        Instant newest = null;
        for (GpuUsage usage : gpus) {
            if (newest == null || usage.windowEnd().isAfter(newest)) {
                newest = usage.windowEnd();
            }
        }
        return newest;
    }

    /** Spend now, in total and by pool, team and lifecycle, per currency. */
    public FleetSummary summary(Instant now) {
        Map<String, FleetSummary.Spend> total = new TreeMap<>();
        Map<String, FleetSummary.Spend> byPool = new TreeMap<>();
        Map<String, FleetSummary.Spend> byTeam = new TreeMap<>();
        Map<String, FleetSummary.Spend> byLifecycle = new TreeMap<>();
        Iterable<GpuUsage> gpus = gpus();
        Instant newest = newestEnd(gpus);
        for (GpuUsage usage : gpus) {
            String currency = usage.currency() == null ? "none" : usage.currency();
            FleetSummary.Spend spend = FleetSummary.Spend.of(usage, usage.windowEnd().plus(QUIET).isBefore(newest));
            total.merge(currency, spend, FleetSummary.Spend::plus);
            Offer pool = new Offer(usage.provider(), usage.region(), usage.instanceType(), usage.lifecycle());
            byPool.merge(pool.key() + " " + currency, spend, FleetSummary.Spend::plus);
            byTeam.merge((usage.team() == null ? UsageRollup.NO_TEAM : usage.team()) + " " + currency, spend,
                    FleetSummary.Spend::plus);
            byLifecycle.merge(usage.lifecycle().wire() + " " + currency, spend, FleetSummary.Spend::plus);
        }
        return new FleetSummary(now, newest, FleetSummary.rows(total), FleetSummary.rows(byPool),
                FleetSummary.rows(byTeam), FleetSummary.rows(byLifecycle));
    }
}
