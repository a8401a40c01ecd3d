package io.gpuledger.alerts.recommend;

import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Offer;
import io.gpuledger.model.UsageRollup;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * How many instances of each instance type and region were in use, clock hour by clock hour, over
 * the lookback, on demand and reserved apart: what the reserve-capacity rule weighs against the
 * break-even, and what it knows to be reserved already. Spot is not counted. The cost engine sends
 * a pool's hour only when something ran in it, so an hour the pool did not send counts as no
 * instance in use:
 * a pool that scales to zero at night is idle at night, not busy all the time. Hours are counted
 * from the first hour the pool was seen (what came before is not known), up to the last final
 * hour, so a pool seen for less than the lookback has fewer hours.
 *
 * <p>An hour is final once the pools' clock, the latest end of any pool window seen, has passed
 * its end by {@link #SLACK}; the engine's partitions keep their own clocks. The latest version of
 * an hour is the one that counts, even after it is final: an engine working off a backlog sends a
 * complete hour after the minutes that follow it, so a replay would otherwise count every hour as
 * idle. Such a version replaces the hour's count and has its pool judged again; one older than
 * the lookback is counted in {@link #late()} and left out. An hour counts as GPU-hours over the
 * GPUs of one instance: two instances busy half the hour count as one for that hour.
 *
 * <p>Not thread-safe: fed by one reader. At most {@code maxPools} pools are followed; the one heard
 * of least recently makes room for a new one.
 */
public final class PoolHours {

    static final Duration SLACK = Duration.ofMinutes(2);
    private static final Duration HOUR = Duration.ofHours(1);

    private final int lookbackHours;
    private final int maxPools;
    private final Map<Offer, Pool> pools = new HashMap<>();
    /** The latest end of any pool window seen: the pools' clock. */
    private Instant clock = Instant.MIN;
    /** The start of the latest hour made final. */
    private Instant finalThrough = Instant.MIN;
    private long late;

    /** On demand and reserved, the two ways of buying an instance type that are counted. */
    private static final int ON_DEMAND = 0;
    private static final int RESERVED = 1;

    /**
     * One instance type's GPU-hours per clock hour, on demand and reserved: the final ones in a ring,
     * the open ones by start.
     */
    private static final class Pool {
        private final double[][] gpuHours;
        private int size;
        private int next;
        private final TreeMap<Instant, double[]> open = new TreeMap<>();
        /** The first hour not yet final. */
        private Instant nextHour;
        /** The first hour it was seen in: where the history it is judged on begins. */
        private final Instant firstHour;
        private Instant heard;
        private String currency;

        private Pool(int lookbackHours, Instant firstHour) {
            this.gpuHours = new double[2][lookbackHours];
            this.nextHour = firstHour;
            this.firstHour = firstHour;
        }

        private int length() {
            return gpuHours[ON_DEMAND].length;
        }

        /**
         * Replaces the count of the final hour {@code hour} bought {@code way}; false when it is
         * older than the hours kept.
         */
        private boolean revise(Instant hour, int way, double used) {
            long back = Duration.between(hour, nextHour).toHours();
            if (back > size) {
                return false;
            }
            gpuHours[way][(int) ((next - back + length()) % length())] = used;
            return true;
        }

        private void close(double[] used) {
            gpuHours[ON_DEMAND][next] = used[ON_DEMAND];
            gpuHours[RESERVED][next] = used[RESERVED];
            next = (next + 1) % length();
            size = Math.min(size + 1, length());
        }

        /** Final hours up to {@code through} (an hour start): those it sent, and zero for the rest. */
        private void closeThrough(Instant through) {
            long missing = Duration.between(nextHour, through).toHours() + 1;
            if (missing > length()) {
                // Only the last lookback of them is kept: skip the rest, as zeros or not.
                nextHour = through.minus(HOUR.multipliedBy(length() - 1));
                open.headMap(nextHour).clear();
            }
            while (!nextHour.isAfter(through)) {
                double[] used = open.remove(nextHour);
                close(used == null ? new double[2] : used);
                nextHour = nextHour.plus(HOUR);
            }
        }

        /** Instances in use bought {@code way}, hour by hour, oldest first. */
        private List<Double> hours(int way, double per) {
            List<Double> instances = new ArrayList<>(size);
            int first = size < length() ? 0 : next;
            for (int i = 0; i < size; i++) {
                instances.add(gpuHours[way][(first + i) % length()] / per);
            }
            return instances;
        }
    }

    public PoolHours(int lookbackHours, int maxPools) {
        if (lookbackHours < 1) {
            throw new IllegalArgumentException("lookbackHours must be at least 1, was " + lookbackHours);
        }
        this.lookbackHours = lookbackHours;
        this.maxPools = maxPools;
    }

    /**
     * Takes a pool's roll-up; returns, when it made a new clock hour final, the usage of every
     * pool followed, ready for the rule (a pool whose instance size is not known, from the catalog
     * or its price, is left out), and when it revised a final hour, the usage of its pool. Minute
     * windows and spot or reserved pools only move the clock.
     */
    public List<PoolUsage> onRollup(UsageRollup rollup, PriceBoard board, GpuCatalog catalog) {
        if (rollup.dimension() != UsageRollup.Dimension.POOL) {
            return List.of();
        }
        if (rollup.windowEnd().isAfter(clock)) {
            clock = rollup.windowEnd();
        }
        Optional<Offer> revised = Optional.empty();
        if (Duration.between(rollup.windowStart(), rollup.windowEnd()).equals(HOUR)
                && rollup.windowStart().truncatedTo(ChronoUnit.HOURS).equals(rollup.windowStart())) {
            revised = take(rollup);
        }
        Instant through = clock.minus(HOUR).minus(SLACK).truncatedTo(ChronoUnit.HOURS);
        if (!through.isAfter(finalThrough)) {
            return revised.flatMap(offer -> usage(offer, pools.get(offer), board, catalog)).stream().toList();
        }
        finalThrough = through;
        List<PoolUsage> ready = new ArrayList<>();
        for (var entry : pools.entrySet()) {
            Pool pool = entry.getValue();
            pool.closeThrough(through);
            usage(entry.getKey(), pool, board, catalog).ifPresent(ready::add);
        }
        return ready;
    }

    /**
     * Takes a version of a pool's hour, on demand or reserved; returns its instance type's on-demand
     * offer when the version revised one of its final hours.
     */
    private Optional<Offer> take(UsageRollup hour) {
        Offer bought = Offer.fromKey(hour.id());
        if (bought.lifecycle() == Lifecycle.SPOT) {
            return Optional.empty();
        }
        int way = bought.lifecycle() == Lifecycle.RESERVED ? RESERVED : ON_DEMAND;
        Offer offer = new Offer(bought.provider(), bought.region(), bought.instanceType(), Lifecycle.ON_DEMAND);
        Pool pool = pools.get(offer);
        if (pool == null) {
            if (pools.size() >= maxPools) {
                forgetQuietest();
            }
            pool = new Pool(lookbackHours, hour.windowStart());
            pools.put(offer, pool);
        }
        double used = hour.totals().gpuSeconds() / 3600.0;
        if (hour.windowStart().isBefore(pool.nextHour)) {
            if (pool.revise(hour.windowStart(), way, used)) {
                return Optional.of(offer);
            }
            late++;
            return Optional.empty();
        }
        pool.open.computeIfAbsent(hour.windowStart(), start -> new double[2])[way] = used;
        pool.heard = pool.heard == null || hour.windowStart().isAfter(pool.heard) ? hour.windowStart() : pool.heard;
        if (way == ON_DEMAND || pool.currency == null) {
            pool.currency = hour.currency();
        }
        return Optional.empty();
    }

    private static Optional<PoolUsage> usage(Offer offer, Pool pool, PriceBoard board, GpuCatalog catalog) {
        if (pool.size == 0) {
            return Optional.empty();
        }
        return catalog.gpusPerInstance(offer, board).map(per -> new PoolUsage(offer, pool.hours(ON_DEMAND, per),
                pool.hours(RESERVED, per), pool.firstHour, pool.nextHour, pool.currency));
    }

    /** Makes room by forgetting the pool heard of least recently. */
    private void forgetQuietest() {
        Offer quietest = null;
        Instant oldest = Instant.MAX;
        for (var entry : pools.entrySet()) {
            if (entry.getValue().heard.isBefore(oldest)) {
                oldest = entry.getValue().heard;
                quietest = entry.getKey();
            }
        }
        pools.remove(quietest);
    }

    /** Versions of pool hours that arrived after their hour was final, left out. */
    public long late() {
        return late;
    }

    /** Pools followed. */
    public int pools() {
        return pools.size();
    }
}
