package io.gpuledger.model;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/**
 * Where a recommendation stands. Every change is published as a new record with the same id, so
 * the latest record of an id is its state.
 */
public enum RecommendationStatus {
    /** The situation holds: act on it before {@code expiresAt}. */
    OPEN,
    /** The situation is over (the GPU works again, the cheaper pool is gone): do nothing. */
    WITHDRAWN,
    /** Someone (or some automation) said it is being acted on: it stays served until it expires. */
    ACKNOWLEDGED,
    /** Someone said not to act on it: the same situation is not raised again until this record expires. */
    DISMISSED;

    @JsonValue
    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }

    @JsonCreator
    public static RecommendationStatus fromWire(String value) {
        for (RecommendationStatus status : values()) {
            if (status.name().equalsIgnoreCase(value)) {
                return status;
            }
        }
        throw new IllegalArgumentException("unknown recommendation status '" + value
                + "', expected one of open, withdrawn, acknowledged, dismissed");
    }

    /** Whether automation should still act on a recommendation in this state. */
    public boolean actionable() {
        return this == OPEN || this == ACKNOWLEDGED;
    }
}
