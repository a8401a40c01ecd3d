package io.gpuledger.streams.cost;

/**
 * Tells, at each update a processor sends, whether its input has been quiet long enough for a
 * backlog to be taken as worked off: {@link CostSettings#quietUpdates} updates in a row with no
 * record since the one before. One quiet update is not always enough: the stream thread may pause
 * for an update interval while it is behind (a collection, a long commit), and records that come
 * through a repartition topic arrive only as the tasks that sent them commit.
 */
final class QuietInput {

    private final int updatesNeeded;
    private boolean seenSinceUpdate;
    private int quietUpdates;

    QuietInput(CostSettings settings) {
        this(settings.quietUpdates());
    }

    /** Quiet after {@code updatesNeeded} updates in a row without a record (at least one). */
    QuietInput(int updatesNeeded) {
        this.updatesNeeded = Math.max(1, updatesNeeded);
    }

    /** A record came. */
    void seen() {
        seenSinceUpdate = true;
    }

    /** At an update: whether the input has now been quiet for the updates needed. */
    boolean quietAtUpdate() {
        quietUpdates = seenSinceUpdate ? 0 : Math.min(quietUpdates + 1, updatesNeeded);
        seenSinceUpdate = false;
        return quietUpdates >= updatesNeeded;
    }
}
