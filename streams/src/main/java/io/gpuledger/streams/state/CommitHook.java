// Kafka Streams 4.1 internal API, used in this file only: no public one lets a store write before its task commits.
package io.gpuledger.streams.state;

import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.state.internals.CacheFlushListener;
import org.apache.kafka.streams.state.internals.CachedStateStore;
import org.apache.kafka.streams.state.internals.WrappedStateStore;

/**
 * What a {@link LiveStore} needs of Kafka Streams' internals. Before it commits a task's input
 * offsets (and, under exactly-once, its transaction), Kafka Streams empties the record caches of
 * the task's stores ({@link CachedStateStore#flushCache}) into the stores underneath, whose
 * changelogs make the writes part of the same commit; {@link StateStore#flush()} comes only later,
 * when it writes a checkpoint. Taking the part of a cache, a live store writes its changes there.
 * Should Kafka Streams stop calling {@code flushCache} before its commits,
 * {@code LiveStoreOnBrokerIT} fails.
 */
abstract class CommitHook<V> implements StateStore, CachedStateStore<String, V> {

    /** Writes what changed since the last commit: Kafka Streams is about to commit. */
    abstract void writeChanges();

    /** Drops what was not written: the task is closing without a commit, and will restore from the changelog. */
    abstract void dropChanges();

    /**
     * The task was committed and its state is recycled, an active task's into a standby's or back: Kafka Streams
     * goes on restoring the changelog from where the store stands, not from its start, so what the store holds
     * stays, and what the restore reads back from now on is laid over it.
     */
    abstract void recycled();

    @Override
    public final void flushCache() {
        writeChanges();
    }

    /** Called by Kafka Streams only when it recycles a task's state (KAFKA-14172), after a commit. */
    @Override
    public final void clearCache() {
        recycled();
    }

    /** No listener: a live store forwards nothing itself. */
    @Override
    public final boolean setFlushListener(CacheFlushListener<String, V> listener, boolean sendOldValues) {
        return false;
    }

    /** The store under the metered and logging layers Kafka Streams wraps a store's own in. */
    static StateStore innermost(StateStore store) {
        StateStore inner = store;
        while (inner instanceof WrappedStateStore<?, ?, ?> wrapper) {
            inner = wrapper.wrapped();
        }
        return inner;
    }
}
