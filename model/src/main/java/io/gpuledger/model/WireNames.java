package io.gpuledger.model;

import java.util.Arrays;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

/** Reads an enum's wire name (or its constant's name), case-insensitively, as records and catalogs write it. */
final class WireNames {

    private WireNames() {
    }

    /** The constant of {@code values} whose wire name or name is {@code text}; empty when none is. */
    static <E extends Enum<E>> Optional<E> find(E[] values, Function<E, String> wire, String text) {
        for (E value : values) {
            if (wire.apply(value).equalsIgnoreCase(text) || value.name().equalsIgnoreCase(text)) {
                return Optional.of(value);
            }
        }
        return Optional.empty();
    }

    /** The wire names of {@code values}, for an error that lists what is expected. */
    static <E extends Enum<E>> String expected(E[] values, Function<E, String> wire) {
        return Arrays.stream(values).map(wire).collect(Collectors.joining(", "));
    }
}
