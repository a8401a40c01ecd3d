package io.gpuledger.streams.cost;

import io.gpuledger.streams.price.CurrencyRates;
import java.time.Duration;

/**
 * What the cost topology is built with.
 *
 * @param grace          how long after a window ends late samples are still added to it; later
 *                       ones go to the dead-letter topic as late
 * @param rates          conversion of prices into the reporting currency of every published amount
 * @param updateInterval how often, in wall-clock time, changed windows and roll-ups are sent
 *                       before they close: the freshness of the live views
 * @param maxGap         the longest silence of a GPU counted as unmonitored time; after a longer
 *                       one the GPU is taken to have stopped when it fell silent
 */
public record CostSettings(Duration grace, CurrencyRates rates, Duration updateInterval, Duration maxGap) {

    public static final Duration DEFAULT_UPDATE_INTERVAL = Duration.ofSeconds(2);
    public static final Duration DEFAULT_MAX_GAP = Duration.ofMinutes(15);

    public CostSettings {
        requirePositive("grace", grace.plusMillis(1));
        requirePositive("updateInterval", updateInterval);
        requirePositive("maxGap", maxGap);
    }

    public static CostSettings of(Duration grace, CurrencyRates rates) {
        return new CostSettings(grace, rates, DEFAULT_UPDATE_INTERVAL, DEFAULT_MAX_GAP);
    }

    private static void requirePositive(String name, Duration value) {
        if (value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(name + " must be positive, was " + value);
        }
    }
}
