package io.gpuledger.ingest.sim;

import io.gpuledger.model.JobProgress;

/**
 * The work a job reported, summed over its nodes and intervals, and what follows from it: its
 * communication-overhead ratio and its cost per million work units.
 */
public record Work(String unit, double units, long steps, double stepSeconds, double commSeconds, double ncclBytes,
        long reports) {

    public static Work of(JobProgress progress) {
        return new Work(progress.unit(), progress.workUnits(), progress.steps(), orZero(progress.stepSeconds()),
                orZero(progress.commSeconds()), orZero(progress.ncclBytes()), 1);
    }

    public Work plus(Work other) {
        return new Work(unit != null ? unit : other.unit, units + other.units, steps + other.steps,
                stepSeconds + other.stepSeconds, commSeconds + other.commSeconds, ncclBytes + other.ncclBytes,
                reports + other.reports);
    }

    /** Exposed communication time over step time; 0 for work without collectives. */
    public double commOverheadRatio() {
        return stepSeconds == 0 ? 0 : commSeconds / stepSeconds;
    }

    /** Cost per million units, given {@code cost}, the job's tally over the same time; NaN without work. */
    public double costPerMillionUnits(Tally cost) {
        return units == 0 ? Double.NaN : cost.cost() / units * 1e6;
    }

    private static double orZero(Double value) {
        return value == null ? 0 : value;
    }
}
