package io.gpuledger.model;

/** What a recommendation asks automation to do. */
public enum RecommendationKind {
    /** Give back a GPU that has been idle for a sustained period. */
    RECLAIM_IDLE
}
