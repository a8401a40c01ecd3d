package io.gpuledger.model;

/** What a cost anomaly is about. */
public enum AnomalyKind {
    /** A team's, job's or pool's spend rate is far from its own recent baseline. */
    SPEND_RATE,
    /** A team's or project's month-end spend, forecast from its spend so far, exceeds its budget. */
    BUDGET_BURN,
    /** A spot price jumped by more than the threshold. */
    PRICE_SPIKE,
    /** A job's cost per 1M work units got worse than its own baseline. */
    COST_PER_THROUGHPUT,
    /**
     * A GPU's agent has been silent for longer than the cost engine counts as unmonitored time, and
     * no notice said its instance stopped: it may be running, and billed, with no figure counting it.
     */
    GPU_DARK,
    /**
     * An offer's effective cost on the provider's bill differs from the engine's estimate by more than the
     * threshold (2% by default): found by {@code gpu-ledger reconcile}, naming the instances behind it.
     */
    BILL_DRIFT
}
