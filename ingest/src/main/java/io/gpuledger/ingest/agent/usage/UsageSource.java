package io.gpuledger.ingest.agent.usage;

import java.util.List;
import java.util.Map;

/** A source of who uses each GPU of the node: HAMi's per-container metrics, NVML's per-process samples. */
public interface UsageSource {

    /** What one read found, by GPU UUID, and one message per thing it could not read. */
    record Result(Map<String, GpuUsers> byGpu, List<String> errors) {

        public static Result failed(String error) {
            return new Result(Map.of(), List.of(error));
        }
    }

    String name();

    /** Reads once; never throws for a source that is down: that is an error of the read. */
    Result read();

    /** Stops what a read left running; nothing by default. */
    default void close() {
    }
}
