package io.gpuledger.alerts.fleet;

import io.gpuledger.alerts.AlertSettings;
import io.gpuledger.alerts.Stage;
import io.gpuledger.model.CapacityEvent;
import io.gpuledger.model.EnrichedCapacityEvent;
import io.gpuledger.model.GpuUsage;
import io.gpuledger.model.JobPart;
import io.gpuledger.model.JobShare;
import io.gpuledger.model.Offer;
import io.gpuledger.model.PlacedGpu;
import io.gpuledger.model.UsageRollup;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The fleet as it is now: each GPU's latest usage window, for {@code GET /api/fleet}. A GPU not
 * heard of for {@code staleAfter} is no longer part of it. The service's board is a bean; it holds nothing to
 * open, but answers only once opened, as the active replica's.
 */
@ApplicationScoped
public class FleetBoard implements Stage {

    /** How far a GPU's latest window may end before the fleet's newest and still count as observed. */
    private static final long QUIET_MILLIS = Duration.ofMinutes(1).toMillis();
    /** How far the parts of a shared GPU may add up short of 1 and still leave no rest, for their rounding. */
    private static final double SHARES_TOLERANCE = 1e-9;

    private final Duration staleAfter;
    private final Map<String, Gpu> latest = new ConcurrentHashMap<>();
    private volatile boolean open;

    /**
     * A GPU's latest window, reduced to what the board shows. The window's record itself is not
     * kept: held until the GPU's next update, 2 s later, each record outlived a young collection and
     * went to the old generation; labels are taken from the entry before when unchanged, so that the
     * record's own strings die young with it.
     */
    private record Gpu(String uuid, int index, String model, String jobId, String instanceId, Offer pool,
            String team, String currency, long windowStartMillis, long windowEndMillis, double costPerHour,
            double idleCostPerHour, long heardAtMillis, List<JobShare> sharedBy, Map<String, Double> teamShares) {

        static Gpu of(GpuUsage usage, Gpu before, Instant now) {
            Offer pool = before != null && before.pool.isOfferOf(usage)
                    ? before.pool
                    : new Offer(usage.provider(), usage.region(), usage.instanceType(), usage.lifecycle());
            return new Builder().uuid(usage.gpuUuid()).index(usage.gpuIndex())
                    .model(kept(before == null ? null : before.model, usage.gpuModel()))
                    .jobId(kept(before == null ? null : before.jobId, usage.jobId()))
                    .instanceId(kept(before == null ? null : before.instanceId, usage.instanceId())).pool(pool)
                    .team(kept(before == null ? null : before.team, usage.team()))
                    .currency(kept(before == null ? null : before.currency, usage.currency()))
                    .windowStartMillis(usage.windowStart().toEpochMilli())
                    .windowEndMillis(usage.windowEnd().toEpochMilli()).costPerHour(usage.costPerHour())
                    .idleCostPerHour(usage.idleCostPerHour()).heardAtMillis(now.toEpochMilli())
                    .sharedBy(JobShare.of(usage)).teamShares(teamShares(usage)).build();
        }

        /**
         * Each team's part of a shared GPU's window, its jobs' shares added up (a part naming no team is the node's
         * team's); empty for a window of one job.
         */
        private static Map<String, Double> teamShares(GpuUsage usage) {
            if (usage.jobParts().isEmpty()) {
                return Map.of();
            }
            String nodeTeam = teamOf(usage.team());
            Map<String, Double> shares = new TreeMap<>();
            for (JobPart part : usage.jobParts()) {
                shares.merge(part.teamCharged(nodeTeam), JobShare.shareOf(usage, part), Double::sum);
            }
            return shares;
        }

        private static String kept(String before, String fresh) {
            return Objects.equals(before, fresh) ? before : fresh;
        }

        PlacedGpu placed() {
            return new PlacedGpu(uuid, index, model, jobId, costPerHour, currency,
                    Instant.ofEpochMilli(windowEndMillis), sharedBy);
        }

        private static final class Builder {
            private String uuid;
            private int index;
            private String model;
            private String jobId;
            private String instanceId;
            private Offer pool;
            private String team;
            private String currency;
            private long windowStartMillis;
            private long windowEndMillis;
            private double costPerHour;
            private double idleCostPerHour;
            private long heardAtMillis;
            private List<JobShare> sharedBy;
            private Map<String, Double> teamShares;

            Builder uuid(String value) { uuid = value; return this; }
            Builder index(int value) { index = value; return this; }
            Builder model(String value) { model = value; return this; }
            Builder jobId(String value) { jobId = value; return this; }
            Builder instanceId(String value) { instanceId = value; return this; }
            Builder pool(Offer value) { pool = value; return this; }
            Builder team(String value) { team = value; return this; }
            Builder currency(String value) { currency = value; return this; }
            Builder windowStartMillis(long value) { windowStartMillis = value; return this; }
            Builder windowEndMillis(long value) { windowEndMillis = value; return this; }
            Builder costPerHour(double value) { costPerHour = value; return this; }
            Builder idleCostPerHour(double value) { idleCostPerHour = value; return this; }
            Builder heardAtMillis(long value) { heardAtMillis = value; return this; }
            Builder sharedBy(List<JobShare> value) { sharedBy = value; return this; }
            Builder teamShares(Map<String, Double> value) { teamShares = value; return this; }

            Gpu build() {
                return new Gpu(uuid, index, model, jobId, instanceId, pool, team, currency, windowStartMillis,
                        windowEndMillis, costPerHour, idleCostPerHour, heardAtMillis, sharedBy, teamShares);
            }
        }
    }

    private static String teamOf(String nodeTeam) {
        return nodeTeam == null ? UsageRollup.NO_TEAM : nodeTeam;
    }

    /** A board of its own, open at once. */
    public FleetBoard(Duration staleAfter) {
        this.staleAfter = staleAfter;
        this.open = true;
    }

    /** The service's board, open once the service starts. */
    @Inject
    public FleetBoard(AlertSettings settings) {
        this.staleAfter = settings.metrics().staleAfter();
    }

    @Override
    public void open() {
        open = true;
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    @Override
    public void close() {
        // nothing opened
    }

    private Map<String, Gpu> latest() {
        if (!open) {
            throw new NotStartedException();
        }
        return latest;
    }

    public void record(GpuUsage usage, Instant now) {
        latest().compute(usage.gpuUuid(), (uuid, known) ->
                known != null && usage.windowStart().toEpochMilli() < known.windowStartMillis() ? known
                        : Gpu.of(usage, known, now));
    }

    /** Forgets the GPUs not heard of since {@code now - staleAfter}. */
    @Override
    public void sweep(Instant now) {
        long cutoff = now.minus(staleAfter).toEpochMilli();
        latest().values().removeIf(gpu -> gpu.heardAtMillis() < cutoff);
    }

    /**
     * A capacity notice with what the board knows runs on its instance: the GPUs whose latest
     * window ended at most {@code maxAge} before the notice. The cost engine's capacity stage
     * publishes the same join a commit later; this one is at hand the moment the notice is read.
     */
    public EnrichedCapacityEvent enrich(CapacityEvent notice, Duration maxAge) {
        long newest = Long.MIN_VALUE;
        long oldestPlaced = notice.noticedAt().minus(maxAge).toEpochMilli();
        List<PlacedGpu> gpus = new ArrayList<>();
        for (Gpu gpu : latest().values()) {
            if (!notice.instanceId().equals(gpu.instanceId())) {
                continue;
            }
            newest = Math.max(newest, gpu.windowEndMillis());
            if (gpu.windowEndMillis() >= oldestPlaced) {
                gpus.add(gpu.placed());
            }
        }
        return newest == Long.MIN_VALUE ? EnrichedCapacityEvent.unplaced(notice)
                : EnrichedCapacityEvent.placed(notice, Instant.ofEpochMilli(newest), gpus);
    }

    /** Spend now, in total and by pool, team and lifecycle, per currency. */
    public FleetSummary summary(Instant now) {
        Map<String, FleetSummary.Spend> total = new TreeMap<>();
        Map<String, FleetSummary.Spend> byPool = new TreeMap<>();
        Map<String, FleetSummary.Spend> byTeam = new TreeMap<>();
        Map<String, FleetSummary.Spend> byLifecycle = new TreeMap<>();
        List<Gpu> gpus = List.copyOf(latest().values());
        long newest = gpus.stream().mapToLong(Gpu::windowEndMillis).max().orElse(Long.MIN_VALUE);
        for (Gpu gpu : gpus) {
            String currency = gpu.currency() == null ? "none" : gpu.currency();
            boolean quiet = gpu.windowEndMillis() + QUIET_MILLIS < newest;
            FleetSummary.Spend spend = FleetSummary.Spend.of(gpu.costPerHour(), gpu.idleCostPerHour(), quiet);
            total.merge(currency, spend, FleetSummary.Spend::plus);
            byPool.merge(gpu.pool().key() + " " + currency, spend, FleetSummary.Spend::plus);
            // A shared GPU counts in each team that took a part of it, for that part; the node's team takes the rest
            // and the idle cost, as the teams' metrics do.
            double rest = 1;
            for (Map.Entry<String, Double> team : gpu.teamShares().entrySet()) {
                byTeam.merge(team.getKey() + " " + currency,
                        FleetSummary.Spend.of(gpu.costPerHour() * team.getValue(), 0, quiet), FleetSummary.Spend::plus);
                rest -= team.getValue();
            }
            boolean restTaken = gpu.teamShares().isEmpty() || rest > SHARES_TOLERANCE;
            if (restTaken || gpu.idleCostPerHour() > 0) {
                FleetSummary.Spend ofNode = FleetSummary.Spend.of(gpu.costPerHour() * Math.max(0, rest),
                        gpu.idleCostPerHour(), quiet);
                byTeam.merge(teamOf(gpu.team()) + " " + currency, restTaken ? ofNode : ofNode.asNoGpu(),
                        FleetSummary.Spend::plus);
            }
            byLifecycle.merge(gpu.pool().lifecycle().wire() + " " + currency, spend, FleetSummary.Spend::plus);
        }
        return new FleetSummary(now, gpus.isEmpty() ? null : Instant.ofEpochMilli(newest), FleetSummary.rows(total),
                FleetSummary.rows(byPool), FleetSummary.rows(byTeam), FleetSummary.rows(byLifecycle));
    }
}
