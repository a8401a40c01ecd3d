package io.gpuledger.model;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

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
        return WireNames.find(values(), Lifecycle::wire, value).orElseThrow(() -> new IllegalArgumentException(
                "unknown lifecycle '" + value + "', expected one of " + WireNames.expected(values(), Lifecycle::wire)));
    }
}
