package io.gpuledger.alerts.recommend;

import io.gpuledger.model.Check;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Offer;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * How many instances of one instance type and region were in use, hour by hour, over a lookback,
 * bought on demand and reserved: what a reservation would have covered, and what is reserved already.
 *
 * @param pool             the on-demand offer (provider, region, instance type)
 * @param instancesPerHour the average number of its on-demand instances in use in each clock hour of the
 *                         lookback, oldest first; 2.5 is two instances all hour and a third for half of it,
 *                         0 an hour in which none ran
 * @param reservedPerHour  the same of its reserved instances, hour for hour; empty where none were seen
 * @param firstSeen        the first hour the type was seen in: where the history the pool rests on begins;
 *                         null where not known (then its history is its lookback)
 * @param lookbackEnd      the end of the last hour of the lookback; null where not known
 * @param currency         ISO 4217 code of the amounts the pool's hours are reported in: what a
 *                         recommendation for it is priced in
 */
public record PoolUsage(Offer pool, List<Double> instancesPerHour, List<Double> reservedPerHour, Instant firstSeen,
        Instant lookbackEnd, String currency) {

    public PoolUsage {
        Check.present("pool", pool);
        if (pool.lifecycle() != Lifecycle.ON_DEMAND) {
            throw new IllegalArgumentException("pool must be an on-demand offer, was " + pool.key());
        }
        Check.present("instancesPerHour", instancesPerHour);
        for (Double count : instancesPerHour) {
            Check.nonNegative("instancesPerHour", Check.present("instancesPerHour", count));
        }
        instancesPerHour = List.copyOf(instancesPerHour);
        reservedPerHour = reservedPerHour == null || reservedPerHour.isEmpty()
                ? Collections.nCopies(instancesPerHour.size(), 0.0) : List.copyOf(reservedPerHour);
        if (reservedPerHour.size() != instancesPerHour.size()) {
            throw new IllegalArgumentException("reservedPerHour must have an entry per hour, had "
                    + reservedPerHour.size() + " for " + instancesPerHour.size());
        }
        Check.currency("currency", currency);
    }

    /** Usage of on-demand instances alone, first seen at the start of its hours. */
    public PoolUsage(Offer pool, List<Double> instancesPerHour, String currency) {
        this(pool, instancesPerHour, List.of(), null, null, currency);
    }

    public int hours() {
        return instancesPerHour.size();
    }

    /** Clock hours from the first hour seen to the end of the lookback: the history the pool rests on. */
    public long historyHours() {
        return firstSeen == null || lookbackEnd == null ? hours()
                : Math.max(hours(), Duration.between(firstSeen, lookbackEnd).toHours());
    }

    /** Instances in use in the {@code hour}-th hour (oldest first), however bought. */
    public double inUse(int hour) {
        return instancesPerHour.get(hour) + reservedPerHour.get(hour);
    }

    /** Hours of the lookback in which no instance was in use. */
    public int idleHours() {
        int idle = 0;
        for (int hour = 0; hour < hours(); hour++) {
            idle += inUse(hour) == 0 ? 1 : 0;
        }
        return idle;
    }

    /** The most instances in use in any hour, rounded up to a whole instance. */
    public int peakInstances() {
        double peak = 0;
        for (int hour = 0; hour < hours(); hour++) {
            peak = Math.max(peak, inUse(hour));
        }
        return (int) Math.ceil(peak - 1e-9);
    }

    /**
     * What stays busy: the whole instances in use in all but the lowest {@code percentile} of the
     * lookback's hours (the {@code percentile}-th percentile of the hourly counts, rounded down).
     */
    public int baseline(double percentile) {
        if (hours() == 0) {
            return 0;
        }
        double[] counts = new double[hours()];
        for (int hour = 0; hour < counts.length; hour++) {
            counts[hour] = inUse(hour);
        }
        Arrays.sort(counts);
        int index = (int) Math.floor(percentile * (counts.length - 1));
        return (int) Math.floor(counts[index] + 1e-9);
    }

    /** Reserved instances known to be held: the most seen in use in any hour, rounded up. */
    public int reservedHeld() {
        double most = 0;
        for (double count : reservedPerHour) {
            most = Math.max(most, count);
        }
        return (int) Math.ceil(most - 1e-9);
    }

    /**
     * The share of the lookback's hours the {@code k}-th instance (1-based) was in use, however
     * bought: in an hour with {@code n} instances on average it is in use for
     * {@code min(1, max(0, n − k + 1))} of the hour. With whole counts this is the share of hours
     * with at least {@code k} instances.
     */
    public double utilizationOfInstance(int k) {
        if (instancesPerHour.isEmpty()) {
            return 0;
        }
        double used = 0;
        for (int hour = 0; hour < hours(); hour++) {
            used += Math.min(1, Math.max(0, inUse(hour) - k + 1));
        }
        return used / hours();
    }
}
