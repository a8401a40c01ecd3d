package io.gpuledger.model;

/**
 * How much an enriched capacity notice knows about what ran on its instance. Automation must be
 * able to tell "nothing runs there" from "we do not know what runs there": an empty list of jobs
 * means the latter, and this says why.
 */
public enum PlacementStatus {
    /** GPUs of the instance reported usage recently enough; the notice lists them. */
    CURRENT,
    /**
     * Usage of the instance is known, but none of its GPUs reported within the maximum age before
     * the notice; the notice lists none, and {@code placementUpdatedAt} says when it last did.
     */
    OUTDATED,
    /** No usage of the instance is known: never seen, or forgotten after it stopped reporting. */
    UNKNOWN
}
