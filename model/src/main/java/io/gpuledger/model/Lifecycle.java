package io.gpuledger.model;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Arrays;
import java.util.stream.Collectors;

/** How the capacity is bought; each has its own price for the same instance type. */
public enum Lifecycle {
    ON_DEMAND("on-demand"),
    SPOT("spot"),
    RESERVED("reserved");

    private final String wire;

    Lifecycle(String wire) {
        this.wire = wire;
    }

    @JsonValue
    public String wire() {
        return wire;
    }

    @JsonCreator
    public static Lifecycle fromWire(String value) {
        for (Lifecycle lifecycle : values()) {
            if (lifecycle.wire.equalsIgnoreCase(value) || lifecycle.name().equalsIgnoreCase(value)) {
                return lifecycle;
            }
        }
        throw new IllegalArgumentException("unknown lifecycle '" + value + "', expected one of "
                + Arrays.stream(values()).map(Lifecycle::wire).collect(Collectors.joining(", ")));
    }
}
