package io.gpuledger.model;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/**
 * The kind of work a job does, as far as comparing GPUs goes: GPUs rank differently for each
 * (a T4 out-serves a V100 at INT8 inference, yet trains at half its speed).
 */
public enum WorkloadClass {
    /** Training or fine-tuning in mixed precision (BF16/FP16): compute-bound. */
    TRAINING("training"),
    /** Serving or batch inference at reduced precision (INT8/FP8): compute-bound. */
    INFERENCE("inference"),
    /** Limited by memory bandwidth rather than arithmetic (decoding large models, embeddings, sparse work). */
    MEMORY_BOUND("memory-bound");

    private final String wire;

    WorkloadClass(String wire) {
        this.wire = wire;
    }

    @JsonValue
    public String wire() {
        return wire;
    }

    @JsonCreator
    public static WorkloadClass fromWire(String value) {
        return WireNames.find(values(), WorkloadClass::wire, value).orElseThrow(() -> new IllegalArgumentException(
                "unknown workload class '" + value + "', expected one of "
                        + WireNames.expected(values(), WorkloadClass::wire)));
    }
}
