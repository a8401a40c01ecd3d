package io.gpuledger.alerts.recommend;

import java.util.OptionalDouble;

/**
 * A synchronous job on spot capacity as a renewal process. Each of its {@code instances} is taken
 * back at random, at {@code interruptionsPerInstanceHour}, so the job as a whole is stopped at
 * {@code rate = instances × interruptionsPerInstanceHour}: any one lost stops all of them. It keeps
 * its work at each checkpoint, every {@code checkpointHours} of work; a stop throws away the work
 * since the last one and costs {@code restartHours} (waiting for capacity, starting, loading the
 * checkpoint) before work resumes.
 *
 * <p>A stretch of {@code C} hours of work then takes, on average, {@code (1/rate + R)(e^(rate·C) − 1)}
 * hours of wall time: the number of failed tries before one runs {@code C} uninterrupted is geometric
 * with mean {@code e^(rate·C) − 1}, and each failed try costs its time to the interruption plus the
 * restart. The share of wall time that does work kept is {@code C} over that. Unlike counting the
 * expected loss per hour (half an interval and a restart per interruption), it stays right when
 * {@code rate × C} nears or passes 1, where the loss per hour would pass the hour itself.
 */
record SpotRenewal(int instances, double interruptionsPerInstanceHour, double checkpointHours,
        double restartHours) {

    SpotRenewal {
        if (instances < 1) {
            throw new IllegalArgumentException("a job runs on at least one instance, not " + instances);
        }
        if (!(interruptionsPerInstanceHour >= 0) || !(checkpointHours >= 0) || !(restartHours >= 0)) {
            throw new IllegalArgumentException("rates and times must not be negative");
        }
    }

    /** How often the job as a whole is stopped, per hour of wall time it runs. */
    double jobInterruptionsPerHour() {
        return instances * interruptionsPerInstanceHour;
    }

    /** The long-run share of wall time spent on work that is kept, 0 to 1. */
    double usefulFraction() {
        return usefulFraction(checkpointHours);
    }

    private double usefulFraction(double checkpoint) {
        double rate = jobInterruptionsPerHour();
        if (rate == 0) {
            return 1;
        }
        double x = rate * checkpoint;
        // With no work between checkpoints only the restarts are lost: the limit of x / (e^x − 1) is 1.
        double keptPerTry = x == 0 ? 1 : x / Math.expm1(x);
        return keptPerTry / (1 + rate * restartHours);
    }

    /** The same job checkpointing every {@code hours} instead. */
    SpotRenewal checkpointingEvery(double hours) {
        return new SpotRenewal(instances, interruptionsPerInstanceHour, hours, restartHours);
    }

    /**
     * The longest checkpoint interval, up to the job's own, at which the useful fraction reaches
     * {@code wanted}; empty when even checkpointing all the time would not (the restarts alone lose more).
     */
    OptionalDouble longestCheckpointReaching(double wanted) {
        if (usefulFraction() >= wanted) {
            return OptionalDouble.of(checkpointHours);
        }
        if (usefulFraction(0) < wanted) {
            return OptionalDouble.empty();
        }
        // The fraction falls as the interval grows: halve the bracket around the interval where it reaches wanted.
        double reaches = 0;
        double fallsShort = checkpointHours;
        for (int i = 0; i < 60; i++) {
            double middle = (reaches + fallsShort) / 2;
            if (usefulFraction(middle) >= wanted) {
                reaches = middle;
            } else {
                fallsShort = middle;
            }
        }
        return OptionalDouble.of(reaches);
    }
}
