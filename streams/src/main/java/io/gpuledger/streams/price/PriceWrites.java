package io.gpuledger.streams.price;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts the price versions written to one engine's global price store: a {@link PriceTable} keeps
 * the span of time a quote holds for only while no version was written since. One per topology,
 * shared by its price writer and its tasks' tables: engines in one JVM (tests, benchmarks) do not
 * drop each other's spans.
 */
public final class PriceWrites {

    private final AtomicLong count = new AtomicLong();

    /** A version was written (or deleted, or confirmed) in the store. */
    public void written() {
        count.incrementAndGet();
    }

    /** Versions written so far. */
    long count() {
        return count.get();
    }
}
