package io.gpuledger.model;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/**
 * How a shared GPU's time is split among the jobs that use it: chosen per pool (the agents of a pool are given
 * it), and said in every {@link Allocation} as what its share was measured by.
 */
public enum SharePolicy {
    /** By each job's share of the GPU's SM time, from NVML's per-process samples; the GPU's idle time is no one's. */
    SM("sm"),
    /** By each job's share of the GPU's memory; memory no job holds is no one's. */
    MEMORY("memory"),
    /** Evenly among the processes present, as request-based tools split; an idle GPU with processes is theirs. */
    EVEN("even");

    /** Every policy, made once: {@code values()} makes a new array at every call. */
    private static final SharePolicy[] ALL = values();

    private final String wireName;

    SharePolicy(String wireName) {
        this.wireName = wireName;
    }

    @JsonValue
    public String wireName() {
        return wireName;
    }

    @JsonCreator
    public static SharePolicy fromWire(String value) {
        return WireNames.find(ALL, SharePolicy::wireName, value).orElseThrow(() -> new IllegalArgumentException(
                "unknown share policy '" + value + "', expected one of "
                        + WireNames.expected(values(), SharePolicy::wireName)));
    }
}
