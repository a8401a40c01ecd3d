package io.gpuledger.model;

/** What a recommendation asks automation to do. */
public enum RecommendationKind {
    /** Move the jobs off an instance the cloud is taking back, before its deadline. */
    EVACUATE(RecommendationAction.Evacuate.class, RecommendationEvidence.Evacuate.class),
    /** Give back a GPU that has been idle for a sustained period. */
    RECLAIM_IDLE(RecommendationAction.ReclaimIdle.class, RecommendationEvidence.ReclaimIdle.class),
    /** Run a job on another instance type where its work costs less. */
    SWITCH_INSTANCE_TYPE(RecommendationAction.SwitchInstanceType.class,
            RecommendationEvidence.SwitchInstanceType.class),
    /** Reserve the baseline of a pool that runs on demand above the reservation's break-even. */
    RESERVE_CAPACITY(RecommendationAction.ReserveCapacity.class, RecommendationEvidence.ReserveCapacity.class),
    /** Run an interruptible on-demand job on spot, where the saving outweighs the expected interruptions. */
    MOVE_TO_SPOT(RecommendationAction.MoveToSpot.class, RecommendationEvidence.MoveToSpot.class),
    /** Cut the communication overhead of a job that spends too much of each step waiting on collectives. */
    REDUCE_COMMUNICATION(RecommendationAction.ReduceCommunication.class,
            RecommendationEvidence.ReduceCommunication.class);

    private final Class<? extends RecommendationAction> actionType;
    private final Class<? extends RecommendationEvidence> evidenceType;

    RecommendationKind(Class<? extends RecommendationAction> actionType,
            Class<? extends RecommendationEvidence> evidenceType) {
        this.actionType = actionType;
        this.evidenceType = evidenceType;
    }

    /** The record that a recommendation of this kind's {@code action} is read into. */
    public Class<? extends RecommendationAction> actionType() {
        return actionType;
    }

    /** The record that a recommendation of this kind's {@code evidence} is read into. */
    public Class<? extends RecommendationEvidence> evidenceType() {
        return evidenceType;
    }
}
