package io.gpuledger.model;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * One job's part of a shared GPU over a sample's interval (time-slicing, MPS, a vGPU or a shared MIG slice).
 * The parts of a sample add up to at most 1; the rest of the GPU's time is unallocated: idle, or used by
 * processes the agent could not map to a job, whose use is never guessed.
 *
 * @param jobId      the job
 * @param team       who pays for it; null when the node does not say
 * @param share      its part of the GPU's cost over the interval, 0–1
 * @param measuredBy what the share was measured by: the pool's policy, or what the GPU allowed (NVML gives no
 *                   per-process SM time on a MIG slice, which is split by memory or evenly)
 */
public record Allocation(
        @JsonProperty(required = true) String jobId,
        String team,
        @JsonProperty(required = true) double share,
        @JsonProperty(required = true) SharePolicy measuredBy) {

    public Allocation {
        Check.allocatedJobId(jobId);
        team = team == null || team.isBlank() ? null : Check.identity("team", team);
        Check.ratio("share", share);
        if (measuredBy == null) {
            throw new InvalidRecordException("measuredBy", "is required: sm, memory or even");
        }
    }
}
