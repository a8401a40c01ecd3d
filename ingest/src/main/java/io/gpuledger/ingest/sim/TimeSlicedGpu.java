package io.gpuledger.ingest.sim;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.IntStream;

/**
 * The world of one time-sliced GPU: which of its tenants are on it, what each asks of it, and what the GPU's
 * scheduler gives each. Tenants other than the resident ones come and go; now and then a process of no job (a
 * debugging session, a stray benchmark) takes some of the GPU's time too.
 *
 * <p>This is the simulator's own model of the GPU, not the cost engine's. The engine sees only the shares an agent
 * reports, and charges each job its share of the GPU's cost over the interval at the price in force at the
 * interval's middle, the rest unallocated. Here each tenant draws a demand of its own (a replica's follows its load
 * cycle, a notebook's its user's bursts), the scheduler grants time slices fairly when the demands add up to more
 * than the interval (the smallest demands met first, the rest split evenly, in whole milliseconds), the process of
 * no job competes like any other, and a job is charged for the milliseconds it was given. Where the two differ: the
 * engine cannot tell idle time from a process of no job, nor a job's demand from its grant; it splits power and
 * energy by the same shares, while the simulated power follows each tenant's own SM intensity; and the agent here
 * measures each process's time exactly to the millisecond, where NVML's per-process samples are coarser. The
 * ground truth built from the grants, not from the allocations written, is what the engine's split must arrive at.
 */
final class TimeSlicedGpu {

    /** Rounds in which a process of no job runs on a shared GPU. */
    static final double UNATTRIBUTED_CHANCE = 0.05;
    /** How often a tenant that comes and goes leaves, and one that left comes back, per hour. */
    private static final double DEPARTURES_PER_HOUR = 1;
    private static final double ARRIVALS_PER_HOUR = 2;

    private final List<SharedTenant> tenants;
    private final boolean[] present;
    private final double departureChance;
    private final double arrivalChance;

    TimeSlicedGpu(List<SharedTenant> tenants, SimulationSettings settings) {
        this.tenants = List.copyOf(tenants);
        this.present = new boolean[tenants.size()];
        Arrays.fill(present, true);
        this.departureChance = settings.chancePerInterval(DEPARTURES_PER_HOUR);
        this.arrivalChance = settings.chancePerInterval(ARRIVALS_PER_HOUR);
    }

    /** The next interval of {@code intervalMillis}, whose middle is {@code epochSeconds}. */
    SharedGpuRound next(double epochSeconds, long intervalMillis, SplittableRandom random) {
        for (int i = 0; i < tenants.size(); i++) {
            if (!tenants.get(i).resident()) {
                present[i] = random.nextDouble() >= (present[i] ? departureChance : 1 - arrivalChance);
            }
        }
        List<SharedTenant> on = new ArrayList<>();
        for (int i = 0; i < tenants.size(); i++) {
            if (present[i]) {
                on.add(tenants.get(i));
            }
        }
        // The process of no job, if it runs, asks last.
        long[] demands = new long[on.size() + 1];
        for (int i = 0; i < on.size(); i++) {
            demands[i] = on.get(i).demandMillis(epochSeconds, intervalMillis, random);
        }
        if (random.nextDouble() < UNATTRIBUTED_CHANCE) {
            demands[on.size()] = Math.round(intervalMillis * (0.01 + 0.2 * random.nextDouble()));
        }
        long[] given = fairShares(intervalMillis, demands);
        List<SharedGpuRound.Grant> grants = new ArrayList<>(on.size());
        for (int i = 0; i < on.size(); i++) {
            grants.add(new SharedGpuRound.Grant(on.get(i), given[i]));
        }
        return new SharedGpuRound(intervalMillis, grants, given[on.size()]);
    }

    /**
     * What a fair time-slicing scheduler gives each of {@code demands} out of {@code capacity}: every demand when
     * they fit; otherwise the smallest demands in full and an even split of what is left among the larger ones,
     * in whole units, so that the grants never add up to more than the capacity.
     */
    static long[] fairShares(long capacity, long[] demands) {
        long[] given = new long[demands.length];
        Integer[] smallestFirst = IntStream.range(0, demands.length).boxed().toArray(Integer[]::new);
        Arrays.sort(smallestFirst, Comparator.comparingLong(i -> demands[i]));
        long left = capacity;
        int waiting = demands.length;
        for (int i : smallestFirst) {
            given[i] = Math.min(demands[i], left / waiting);
            left -= given[i];
            waiting--;
        }
        return given;
    }
}
