package io.gpuledger.ingest.sim;

import io.gpuledger.model.Allocation;
import io.gpuledger.model.SharePolicy;
import java.util.List;

/**
 * What happened on one time-sliced GPU in one interval, as the simulated world knows it: the GPU time the scheduler
 * gave each tenant present, and the time it gave a process of no job. The rest of the interval the GPU was idle, or
 * switching between contexts.
 *
 * @param intervalMillis     the interval, in milliseconds
 * @param grants             each tenant present, in the order of its GPU's tenants, and the time it was given
 * @param unattributedMillis time given to a process the agent cannot map to a job
 */
record SharedGpuRound(long intervalMillis, List<Grant> grants, long unattributedMillis) {

    SharedGpuRound {
        grants = List.copyOf(grants);
    }

    /** One tenant's GPU time in the interval. */
    record Grant(SharedTenant tenant, long millis) {
    }

    /** Time the GPU ran anyone's kernels, tenants' or not. */
    long busyMillis() {
        return grants.stream().mapToLong(Grant::millis).sum() + unattributedMillis;
    }

    /** Time no job used: idle, switching, or a process of no job. */
    long unallocatedMillis() {
        return intervalMillis - grants.stream().mapToLong(Grant::millis).sum();
    }

    /**
     * The allocations an agent measuring SM time per process reports: each tenant's time over the interval. Time is
     * counted in whole milliseconds, so the shares are short decimals, as NVML's per-process samples give them.
     */
    List<Allocation> allocations() {
        return grants.stream().map(grant -> new Allocation(grant.tenant().id(), grant.tenant().team(),
                grant.millis() / (double) intervalMillis, SharePolicy.SM)).toList();
    }
}
