package io.gpuledger.model;

import java.util.List;
import java.util.Locale;

/**
 * Which implementation of a piece of our own a program runs: ours, or the plain alternative a
 * benchmark compares it against (docs/benchmarks.md, "Pieces of our own"). Chosen by a system
 * property that only the benchmarks set; without it, ours. A piece that does not pay for itself
 * against its alternative is removed, and its property with it.
 */
public final class Compared {

    /** The value that names our own implementation, and the default. */
    public static final String OURS = "ours";

    private Compared() {
    }

    /**
     * The implementation {@code property} names: {@link #OURS} when it is not set.
     *
     * @throws IllegalArgumentException when it names neither ours nor one of {@code alternatives}
     */
    public static String choice(String property, String... alternatives) {
        String value = System.getProperty(property, OURS).strip().toLowerCase(Locale.ROOT);
        if (!value.equals(OURS) && !List.of(alternatives).contains(value)) {
            throw new IllegalArgumentException("-D" + property + "=" + value + ": expected " + OURS + " or one of "
                    + List.of(alternatives));
        }
        return value;
    }
}
