package io.gpuledger.ingest.sim;

/** What a group of simulated GPUs is doing: it decides how their telemetry and work reports look. */
public enum Workload {
    /** Data-parallel training over several whole nodes: a ring all-reduce over the network every step. */
    DISTRIBUTED_TRAINING("ddp"),
    /** Training on one node: one GPU, or every GPU of an instance all-reducing over NVLink. */
    TRAINING("train"),
    /** Serving requests: load that comes and goes, lower SM activity, no collectives. */
    INFERENCE("serve"),
    /** Allocated to an interactive notebook that mostly waits for its user. */
    NOTEBOOK("notebook"),
    /** Running and paid for, given to no job. */
    UNALLOCATED("spare"),
    /**
     * One GPU time-sliced among inference replicas and notebooks, its {@link SimulatedJob#tenants() tenants}, each a
     * job of its own: its samples say the contract's {@code shared} job and list each tenant's share.
     */
    SHARED("shared");

    private final String prefix;

    Workload(String prefix) {
        this.prefix = prefix;
    }

    /** Idle capacity: SM activity stays under the 5% idle threshold, and no work is reported. */
    public boolean idle() {
        return this == NOTEBOOK || this == UNALLOCATED;
    }

    public boolean training() {
        return this == DISTRIBUTED_TRAINING || this == TRAINING;
    }

    String jobIdPrefix() {
        return prefix;
    }
}
