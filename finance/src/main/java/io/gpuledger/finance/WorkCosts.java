package io.gpuledger.finance;

import io.gpuledger.model.JobEconomics;
import java.time.Duration;
import java.time.Instant;
import java.util.BitSet;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * What each job's work cost per million units, hour by hour, from its closed minutes on
 * {@code gpu.job-economics.v1}: the cost of the minutes that reported a unit over the units they reported (on a
 * shared GPU, the job's own share of the cost over its own work). A FOCUS row of the job's GPU-hour carries it.
 */
public final class WorkCosts {

    private static final long MINUTE = Duration.ofMinutes(1).toMillis();
    private static final long HOUR = Duration.ofHours(1).toMillis();

    /** One unit's figure for a job's hour: {@code unit} and what a million of them cost. */
    public record PerMillion(String unit, double cost) {
    }

    /** Per job and hour start: per unit, the cost of the minutes that reported it and their units. */
    private final Map<String, Map<Long, TreeMap<String, double[]>>> sums = new HashMap<>();
    /** Per job: the minutes taken since {@code from}, so that a minute sent again is not counted twice. */
    private final Map<String, BitSet> taken = new HashMap<>();
    private final long from;

    /** @param from the first minute the figures are asked for; minutes before it are left out */
    public WorkCosts(Instant from) {
        this.from = from.toEpochMilli();
    }

    /** Takes a job's closed minute; one taken before, or before {@code from}, is left out. */
    public void add(JobEconomics minute) {
        long start = minute.windowStart().toEpochMilli();
        if (start < from || minute.workUnits().isEmpty()) {
            return;
        }
        BitSet minutes = taken.computeIfAbsent(minute.jobId(), job -> new BitSet());
        int index = (int) ((start - from) / MINUTE);
        if (minutes.get(index)) {
            return;
        }
        minutes.set(index);
        long hour = Math.floorDiv(start, HOUR) * HOUR;
        TreeMap<String, double[]> units = sums.computeIfAbsent(minute.jobId(), job -> new HashMap<>())
                .computeIfAbsent(hour, h -> new TreeMap<>());
        minute.workUnits().forEach((unit, count) -> {
            if (count > 0) {
                double[] sum = units.computeIfAbsent(unit, u -> new double[2]);
                sum[0] += minute.cost();
                sum[1] += count;
            }
        });
    }

    /**
     * What a million units of {@code jobId}'s work cost in the hour starting at {@code hourStart}: of the unit it
     * reported most of; null when it reported none.
     */
    public PerMillion of(String jobId, Instant hourStart) {
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
