package io.gpuledger.model;

/** What a cloud, or the node's own agent, said is about to happen to an instance. */
public enum CapacityEventKind {
    /** AWS spot instance-action: the instance will be terminated, stopped or hibernated (2 minutes). */
    SPOT_INTERRUPTION,
    /** AWS rebalance recommendation: elevated risk of interruption; no deadline. */
    REBALANCE_RECOMMENDATION,
    /** GCP preemption or Azure {@code Preempt}: a spot/preemptible VM is being taken back (~30 s). */
    PREEMPTION,
    /** Host maintenance that moves or restarts the instance (GCP maintenance-event, Azure Freeze/Reboot/Redeploy). */
    MAINTENANCE,
    /** The instance is being deleted (Azure {@code Terminate}). */
    TERMINATION,
    /**
     * The instance is shutting down, said by its own agent when the host's shutdown asks it to:
     * its GPUs fall silent because it stops, not because nobody watches. Its jobs were stopped
     * on purpose, so nothing is to be evacuated.
     */
    INSTANCE_STOPPING
}
