package io.gpuledger.ingest.agent.collect;

import java.util.List;

/** One source of GPU readings on a node; each round it says what it read and what went wrong. */
public interface Collector extends AutoCloseable {

    /** Readings of one round, and one message per thing that could not be read. */
    record Round(List<GpuReading> readings, List<String> errors) {

        public static Round failed(String error) {
            return new Round(List.of(), List.of(error));
        }
    }

    String name();

    /** Reads once. Never throws for a source that is down: that is an error of the round. */
    Round collect();

    /** Stops what the collector keeps running between rounds, if anything. */
    @Override
    default void close() {
    }
}
