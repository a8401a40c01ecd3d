package io.gpuledger.model;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Arrays;
import java.util.stream.Collectors;

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
        for (WorkloadClass workloadClass : values()) {
            if (workloadClass.wire.equalsIgnoreCase(value) || workloadClass.name().equalsIgnoreCase(value)) {
                return workloadClass;
            }
        }
        throw new IllegalArgumentException("unknown workload class '" + value + "', expected one of "
                + Arrays.stream(values()).map(WorkloadClass::wire).collect(Collectors.joining(", ")));
    }
}
