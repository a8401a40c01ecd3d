package io.gpuledger.ingest.sim;

import java.util.SplittableRandom;

/**
 * A job that runs on a time-sliced GPU beside others: an inference replica, whose demand follows its load cycle,
 * or a notebook, which waits for its user and now and then runs a burst of cells.
 *
 * @param id                the job's name, as its allocations say it
 * @param team              who pays for it; null for a notebook whose owner the node does not know
 * @param workload          {@link Workload#INFERENCE} or {@link Workload#NOTEBOOK}
 * @param demand            share of the GPU's time it wants at full load (inference) or in a burst (notebook)
 * @param smIntensity       SM activity while its kernels hold the GPU
 * @param memoryShare       share of the GPU's memory it holds while present
 * @param resident          stays on the GPU for the whole run; the others come and go
 * @param loadPeriodSeconds inference only: period of its load cycle
 * @param loadPhase         inference only: where in its cycle it stands at the epoch, in radians
 * @param unit              what its work units are ({@code tokens}, {@code requests}); null for a job that reports
 *                          no work (a notebook)
 * @param unitsPerGpuSecond the units it completes per second of the GPU's time it is given; 0 without a unit
 */
public record SharedTenant(
        String id,
        String team,
        Workload workload,
        double demand,
        double smIntensity,
        double memoryShare,
        boolean resident,
        double loadPeriodSeconds,
        double loadPhase,
        String unit,
        double unitsPerGpuSecond) {

    /** How often a notebook's user runs something heavy: the share of intervals with a burst. */
    static final double NOTEBOOK_BURST_CHANCE = 0.15;
    /** A notebook between bursts: a kernel now and then, under 1% of the GPU's time. */
    private static final double NOTEBOOK_QUIET_DEMAND = 0.01;

    /** Whether it publishes work reports: an inference replica does, for the time it was given. */
    boolean reportsWork() {
        return unit != null;
    }

    /**
     * The whole units it completes in {@code millis} of the GPU's time: its throughput while its kernels hold the
     * GPU, so that its work follows the time the scheduler gave it, not the time it asked for.
     */
    double unitsIn(long millis) {
        return Math.round(millis / 1000.0 * unitsPerGpuSecond);
    }

    /** The milliseconds of GPU time it asks for in the {@code intervalMillis} around {@code epochSeconds}. */
    long demandMillis(double epochSeconds, long intervalMillis, SplittableRandom random) {
        double wanted;
        if (workload == Workload.INFERENCE) {
            double load = 0.55 + 0.35 * StrictMath.sin(2 * Math.PI * epochSeconds / loadPeriodSeconds + loadPhase);
            wanted = demand * load * (0.8 + 0.4 * random.nextDouble());
        } else {
            wanted = random.nextDouble() < NOTEBOOK_BURST_CHANCE ? demand * (0.5 + random.nextDouble())
                    : NOTEBOOK_QUIET_DEMAND * random.nextDouble();
        }
        return Math.round(Math.min(1, wanted) * intervalMillis);
    }
}
