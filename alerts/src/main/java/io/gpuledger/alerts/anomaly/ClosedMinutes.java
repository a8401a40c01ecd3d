package io.gpuledger.alerts.anomaly;

import io.gpuledger.model.GpuUsage;
import io.gpuledger.model.JobPart;
import io.gpuledger.model.Offer;
import io.gpuledger.model.TelemetrySample;
import io.gpuledger.model.UsageRollup;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Adds the closed one-minute windows of GPUs up to what each team, job and pool spent in each
 * minute, split by the other two dimensions (the root cause of an anomaly is found in that
 * split). The cost engine closes a minute's windows together, once its clock passes the minute's
 * end plus grace, but its partitions keep their own clocks: a minute is taken as complete when a
 * window {@link #SLACK} newer has closed. A window closing later than that is counted and left out.
 *
 * <p>Not thread-safe: fed by one reader.
 */
public final class ClosedMinutes {

    static final Duration SLACK = Duration.ofMinutes(2);
    private static final List<String> DIMENSIONS = List.of("team", "job", "pool");

    /** minute start → "dimension|subject|currency" → its sum. */
    private final TreeMap<Instant, Map<String, Sum>> open = new TreeMap<>();
    private Instant completeBefore = Instant.MIN;
    private long late;

    private static final class Sum {
        private final String dimension;
        private final String subject;
        private final String currency;
        private double cost;
        private final Map<String, Map<String, Double>> parts = new HashMap<>();

        private Sum(String dimension, String subject, String currency) {
            this.dimension = dimension;
            this.subject = subject;
            this.currency = currency;
        }
    }

    /** Takes a closed window; returns the minutes this completes (usually none). Open windows are ignored. */
    public List<SpendMinute> add(GpuUsage window) {
        if (!window.closed() || window.currency() == null) {
            return List.of();
        }
        Instant minute = window.windowStart();
        if (minute.isBefore(completeBefore)) {
            late++;
            return List.of();
        }
        String team = window.team() == null ? UsageRollup.NO_TEAM : window.team();
        String pool = new Offer(window.provider(), window.region(), window.instanceType(), window.lifecycle()).key();
        Map<String, Sum> sums = open.computeIfAbsent(minute, start -> new HashMap<>());
        if (window.jobParts().isEmpty() && !window.sharedByJobs()) {
            String job = window.jobId() == null ? TelemetrySample.UNKNOWN_JOB : window.jobId();
            addPiece(sums, window.currency(), new String[] {team, job, pool}, window.cost());
        } else {
            // A shared GPU's window: each job's part goes to it and its team, the rest to the node's team.
            double rest = window.cost();
            for (JobPart part : window.jobParts()) {
                // The jobs past those a window lists are their team's only: they are many, and no one job.
                addPiece(sums, window.currency(), new String[] {part.teamCharged(team), part.jobCharged(), pool},
                        part.cost());
                rest -= part.cost();
            }
            addPiece(sums, window.currency(), new String[] {team, null, pool}, Math.max(0, rest));
        }
        return complete(minute.minus(SLACK));
    }

    /**
     * Adds {@code cost} to the sum of each subject of {@code ids} (team, job, pool, as {@link #DIMENSIONS}; a
     * null is none), split by the other two.
     */
    private static void addPiece(Map<String, Sum> sums, String currency, String[] ids, double cost) {
        for (int d = 0; d < ids.length; d++) {
            if (ids[d] == null) {
                continue;
            }
            String dimension = DIMENSIONS.get(d);
            String subject = ids[d];
            Sum sum = sums.computeIfAbsent(dimension + "|" + subject + "|" + currency,
                    key -> new Sum(dimension, subject, currency));
            sum.cost += cost;
            for (int other = 0; other < ids.length; other++) {
                if (other != d && ids[other] != null) {
                    sum.parts.computeIfAbsent(DIMENSIONS.get(other), o -> new HashMap<>())
                            .merge(ids[other], cost, Double::sum);
                }
            }
        }
    }

    /** Closed windows that arrived after their minute was complete. */
    public long late() {
        return late;
    }

    private List<SpendMinute> complete(Instant upTo) {
        List<SpendMinute> done = new ArrayList<>();
        while (!open.isEmpty() && !open.firstKey().isAfter(upTo)) {
            var minute = open.pollFirstEntry();
            for (Sum sum : minute.getValue().values()) {
                done.add(new SpendMinute(sum.dimension, sum.subject, minute.getKey(), sum.cost, sum.currency,
                        sum.parts));
            }
            completeBefore = minute.getKey().plus(SpendMinute.LENGTH);
        }
        return done;
    }
}
