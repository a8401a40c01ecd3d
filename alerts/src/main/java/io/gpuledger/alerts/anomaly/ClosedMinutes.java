package io.gpuledger.alerts.anomaly;

import io.gpuledger.model.GpuUsage;
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
        Map<String, String> ids = new HashMap<>();
        ids.put("team", window.team() == null ? UsageRollup.NO_TEAM : window.team());
        if (!window.sharedByJobs()) {
            // A shared GPU's jobs each took their share in their roll-ups; its window names none of them.
            ids.put("job", window.jobId() == null ? TelemetrySample.UNKNOWN_JOB : window.jobId());
        }
        ids.put("pool", new Offer(window.provider(), window.region(), window.instanceType(), window.lifecycle()).key());
        Map<String, Sum> sums = open.computeIfAbsent(minute, start -> new HashMap<>());
        double cost = window.cost();
        for (String dimension : DIMENSIONS) {
            String subject = ids.get(dimension);
            if (subject == null) {
                continue;
            }
            Sum sum = sums.computeIfAbsent(dimension + "|" + subject + "|" + window.currency(),
                    key -> new Sum(dimension, subject, window.currency()));
            sum.cost += cost;
            for (String other : DIMENSIONS) {
                if (!other.equals(dimension) && ids.containsKey(other)) {
                    sum.parts.computeIfAbsent(other, d -> new HashMap<>()).merge(ids.get(other), cost, Double::sum);
                }
            }
        }
        return complete(minute.minus(SLACK));
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
