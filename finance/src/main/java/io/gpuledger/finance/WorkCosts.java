package io.gpuledger.finance;

import io.gpuledger.model.JobEconomics;
import java.time.Duration;
import java.time.Instant;
import java.util.BitSet;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * What each job's work cost per million units, hour by hour, from its minutes on {@code gpu.job-economics.v1}: the
 * cost of the minutes that reported a unit over the units they reported (on a shared GPU, the job's own share of the
 * cost over its own work). A FOCUS row of the job's GPU-hour carries it.
 *
 * <p>The engine sends a minute again as its cost and work grow, while it is live, and once more when every task has
 * closed it: each version holds all of the minute so far, and the last is the minute. A job's versions come in the
 * order sent (the topic is keyed by job), so a minute's last version is the last read; a minute is summed into its
 * hour once the job's minutes read have gone {@link #SENT_AGAIN_WITHIN} past it, or when the figures are asked for.
 * A version of a minute summed already (sent again after a longer lag) is left out.
 */
public final class WorkCosts {

    /** How long after a job's later minutes a version of its minute may still come: the engine's live span and more. */
    static final Duration SENT_AGAIN_WITHIN = Duration.ofMinutes(30);
    private static final long MINUTE = Duration.ofMinutes(1).toMillis();
    private static final long HOUR = Duration.ofHours(1).toMillis();

    /** One unit's figure for a job's hour: {@code unit} and what a million of them cost. */
    public record PerMillion(String unit, double cost) {
    }

    /** A minute's latest version: what it cost and the work it reported. */
    private record Version(double cost, Map<String, Double> units) {
    }

    /** Per job and hour start: per unit, the cost of the minutes that reported it and their units. */
    private final Map<String, Map<Long, TreeMap<String, double[]>>> sums = new HashMap<>();
    /** Per job: the latest version of each minute not summed yet, by its start. */
    private final Map<String, TreeMap<Long, Version>> pending = new HashMap<>();
    /** Per job: the minutes summed since {@code from}, so that a minute sent again is not counted twice. */
    private final Map<String, BitSet> taken = new HashMap<>();
    private final long from;

    /** @param from the first minute the figures are asked for; minutes before it are left out */
    public WorkCosts(Instant from) {
        this.from = from.toEpochMilli();
    }

    /** Takes a version of a job's minute: the latest of a minute wins; one before {@code from} is left out. */
    public void add(JobEconomics minute) {
        long start = minute.windowStart().toEpochMilli();
        if (start < from || minute.workUnits().isEmpty()) {
            return;
        }
        if (taken.computeIfAbsent(minute.jobId(), job -> new BitSet()).get(index(start))) {
            return;
        }
        TreeMap<Long, Version> versions = pending.computeIfAbsent(minute.jobId(), job -> new TreeMap<>());
        versions.put(start, new Version(minute.cost(), minute.workUnits()));
        long summedBefore = versions.lastKey() - SENT_AGAIN_WITHIN.toMillis();
        while (versions.firstKey() < summedBefore) {
            Map.Entry<Long, Version> oldest = versions.pollFirstEntry();
            sum(minute.jobId(), oldest.getKey(), oldest.getValue());
        }
    }

    private int index(long start) {
        return (int) ((start - from) / MINUTE);
    }

    private void sum(String jobId, long start, Version minute) {
        taken.get(jobId).set(index(start));
        long hour = Math.floorDiv(start, HOUR) * HOUR;
        TreeMap<String, double[]> units = sums.computeIfAbsent(jobId, job -> new HashMap<>())
                .computeIfAbsent(hour, h -> new TreeMap<>());
        minute.units().forEach((unit, count) -> {
            if (count > 0) {
                double[] sum = units.computeIfAbsent(unit, u -> new double[2]);
                sum[0] += minute.cost();
                sum[1] += count;
            }
        });
    }

    /**
     * What a million units of {@code jobId}'s work cost in the hour starting at {@code hourStart}: of the unit it
     * reported most of; null when it reported none. Sums every minute pending first.
     */
    public PerMillion of(String jobId, Instant hourStart) {
        if (!pending.isEmpty()) {
            pending.forEach((job, versions) -> versions.forEach((start, version) -> sum(job, start, version)));
            pending.clear();
        }
        Map<Long, TreeMap<String, double[]>> hours = sums.get(jobId);
        TreeMap<String, double[]> units = hours == null ? null : hours.get(hourStart.toEpochMilli());
        if (units == null || units.isEmpty()) {
            return null;
        }
        Map.Entry<String, double[]> most = null;
        for (Map.Entry<String, double[]> unit : units.entrySet()) {
            if (most == null || unit.getValue()[1] > most.getValue()[1]) {
                most = unit;
            }
        }
        return new PerMillion(most.getKey(), most.getValue()[0] / most.getValue()[1] * 1e6);
    }
}
