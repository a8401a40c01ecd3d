package io.gpuledger.model;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * A time-weighted mean kept as its parts, so that means of GPUs and windows add up exactly:
 * {@code weightedSum} is Σ value × seconds, {@code seconds} the time the value was known.
 */
public record Mean(double weightedSum, double seconds) {

    public static final Mean NONE = new Mean(0, 0);

    /** This mean with a reading held for {@code readingSeconds}; a null reading leaves it unchanged. */
    public Mean add(Double value, double readingSeconds) {
        return value == null ? this : new Mean(weightedSum + value * readingSeconds, seconds + readingSeconds);
    }

    public Mean plus(Mean other) {
        return new Mean(weightedSum + other.weightedSum, seconds + other.seconds);
    }

    /** The mean, or null when no reading was ever known. */
    @JsonProperty(access = JsonProperty.Access.READ_ONLY)
    public Double value() {
        return seconds <= 1e-9 ? null : weightedSum / seconds;
    }
}
