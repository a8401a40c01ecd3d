package io.gpuledger.ingest.sim;

import java.time.Duration;

/**
 * How a simulation runs.
 *
 * @param interval                         time each round of samples and work reports covers
 * @param spotInterruptionsPerInstanceHour how often a spot instance is taken back: notices per spot instance-hour
 * @param replaceInterrupted               whether an interrupted instance's node comes back on a fresh instance
 * @param replacementDelay                 how long after the interruption deadline the replacement starts
 * @param spotPriceChangesPerOfferHour     how often each spot offer's price moves: new versions per offer-hour
 * @param spotPriceVolatility              standard deviation of one move, as a log-return
 */
public record SimulationSettings(
        Duration interval,
        double spotInterruptionsPerInstanceHour,
        boolean replaceInterrupted,
        Duration replacementDelay,
        double spotPriceChangesPerOfferHour,
        double spotPriceVolatility) {

    public SimulationSettings {
        if (interval == null || interval.isNegative() || interval.isZero() || interval.toMillis() == 0) {
            throw new IllegalArgumentException("the interval must be at least a millisecond, was " + interval);
        }
        rate("spotInterruptionsPerInstanceHour", spotInterruptionsPerInstanceHour);
        rate("spotPriceChangesPerOfferHour", spotPriceChangesPerOfferHour);
        rate("spotPriceVolatility", spotPriceVolatility);
        if (replacementDelay == null || replacementDelay.isNegative()) {
            throw new IllegalArgumentException("the replacement delay must not be negative, was " + replacementDelay);
        }
    }

    /**
     * Rounds of {@code interval}; a spot instance interrupted once in 20 hours, replaced a minute
     * after it goes; each spot price moving about once an hour by about 5%.
     */
    public static SimulationSettings defaults(Duration interval) {
        return new SimulationSettings(interval, 0.05, true, Duration.ofMinutes(1), 1.0, 0.05);
    }

    public SimulationSettings withSpotInterruptionsPerInstanceHour(double rate) {
        return new SimulationSettings(interval, rate, replaceInterrupted, replacementDelay,
                spotPriceChangesPerOfferHour, spotPriceVolatility);
    }

    public SimulationSettings withReplacement(boolean replace, Duration delay) {
        return new SimulationSettings(interval, spotInterruptionsPerInstanceHour, replace, delay,
                spotPriceChangesPerOfferHour, spotPriceVolatility);
    }

    public SimulationSettings withSpotPriceChangesPerOfferHour(double rate) {
        return new SimulationSettings(interval, spotInterruptionsPerInstanceHour, replaceInterrupted,
                replacementDelay, rate, spotPriceVolatility);
    }

    public double intervalSeconds() {
        return interval.toMillis() / 1000.0;
    }

    /**
     * Chance that an event arriving at {@code perHour} (a Poisson process) happens at least once in
     * one interval: the per-round draw that makes the long-run rate come out as configured.
     */
    public double chancePerInterval(double perHour) {
        return 1 - StrictMath.exp(-perHour * intervalSeconds() / 3600);
    }

    private static void rate(String name, double value) {
        if (!(value >= 0) || Double.isInfinite(value)) {
            throw new IllegalArgumentException(name + " must be a finite number of at least 0, was " + value);
        }
    }
}
