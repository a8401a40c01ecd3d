package io.gpuledger.streams.state;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.internals.CacheFlushListener;
import org.apache.kafka.streams.state.internals.CachedStateStore;
import org.apache.kafka.streams.state.internals.WrappedStateStore;

/**
 * A key-value store whose values stay Java objects while the task runs and are written, as bytes,
 * to a logged store only when Kafka Streams commits.
 *
 * <p>Before Kafka Streams commits a task's input offsets (and, under exactly-once, its
 * transaction) it empties the record caches of the task's stores into the stores underneath,
 * whose changelogs make the writes part of the same commit; {@link StateStore#flush()} itself
 * only comes later, when it writes a checkpoint. This store therefore takes the part of a cache
 * ({@link CachedStateStore}, an interface internal to Kafka Streams 4.1): on
 * {@link #flushCache()} it writes the entries changed since the last commit to the logged store.
 * The state on the changelog always matches the committed input, as with any logged store, but
 * a value updated a hundred times between two commits is encoded once rather than a hundred
 * times, and reading it costs a map lookup. Should Kafka Streams stop calling
 * {@code flushCache} before its commits, {@code LiveStoreOnBrokerIT} fails.
 *
 * <p>Values are mutable: after changing one, {@link #put} it again so that it is written at the
 * next commit. The whole store is held in memory, decoded on first use from what the store
 * underneath ({@link RestoredBytes}) read back from the changelog; that store keeps nothing else.
 */
public final class LiveStore<V> implements StateStore, CachedStateStore<String, V> {

    private final KeyValueStore<Bytes, byte[]> logged;
    /** The innermost store, under the metered and logging ones: what a restore brought back. */
    private final RestoredBytes restored;
    private final Codec<V> codec;
    private final Map<String, V> live = new HashMap<>();
    private final Set<String> changed = new HashSet<>();
    private boolean loaded;
    private long commits;

    LiveStore(KeyValueStore<Bytes, byte[]> logged, Codec<V> codec) {
        this.logged = logged;
        this.restored = innermost(logged);
        this.codec = codec;
    }

    private static RestoredBytes innermost(StateStore store) {
        StateStore inner = store;
        while (inner instanceof WrappedStateStore<?, ?, ?> wrapper) {
            inner = wrapper.wrapped();
        }
        if (inner instanceof RestoredBytes bytes) {
            return bytes;
        }
        throw new IllegalArgumentException("a live store goes over restored bytes, not " + inner.getClass().getName());
    }

    @Override
    public String name() {
        return logged.name();
    }

    @Override
    public void init(StateStoreContext context, StateStore root) {
        commits++;
        live.clear();
        changed.clear();
        loaded = false;
        logged.init(context, root);
    }

    public V get(String key) {
        load();
        return live.get(key);
    }

    /**
     * How many times this store has written its changes (or dropped them): a value put since the
     * count last moved will be written at the next commit as it then stands, and need not be put
     * again after each change until then.
     */
    public long commits() {
        return commits;
    }

    /** How many entries the next commit writes: those put or deleted since the last. */
    public int pendingWrites() {
        return changed.size();
    }

    public void put(String key, V value) {
        load();
        live.put(key, value);
        changed.add(key);
    }

    public void delete(String key) {
        load();
        if (live.remove(key) != null) {
            changed.add(key);
        }
    }

    /** Deletes every entry whose value {@code expired} holds of. */
    public void deleteIf(Predicate<V> expired) {
        List<String> keys = new ArrayList<>();
        entries().forEach((key, value) -> {
            if (expired.test(value)) {
                keys.add(key);
            }
        });
        keys.forEach(this::delete);
    }

    /** Every entry, as a read-only view: collect keys first to delete while walking it. */
    public Map<String, V> entries() {
        load();
        return Collections.unmodifiableMap(live);
    }

    private void load() {
        if (loaded) {
            return;
        }
        for (Map.Entry<Bytes, byte[]> entry : restored.takeRestored().entrySet()) {
            live.put(new String(entry.getKey().get(), StandardCharsets.UTF_8), codec.fromBytes(entry.getValue()));
        }
        loaded = true;
    }

    /** Writes what changed since the last commit to the logged store: Kafka Streams calls it before each commit. */
    @Override
    public void flushCache() {
        writeChanges();
    }

    /** Drops what was not written: the task is closing without a commit, and will restore from the changelog. */
    @Override
    public void clearCache() {
        commits++;
        live.clear();
        changed.clear();
        loaded = false;
    }

    /** No listener: a live store forwards nothing itself. */
    @Override
    public boolean setFlushListener(CacheFlushListener<String, V> listener, boolean sendOldValues) {
        return false;
    }

    @Override
    public void flush() {
        writeChanges();
        logged.flush();
    }

    private void writeChanges() {
        commits++;
        for (String key : changed) {
            Bytes bytes = Bytes.wrap(key.getBytes(StandardCharsets.UTF_8));
            V value = live.get(key);
            if (value == null) {
                logged.delete(bytes);
            } else {
                logged.put(bytes, codec.toBytes(value));
            }
        }
        changed.clear();
    }

    @Override
    public void close() {
        live.clear();
        changed.clear();
        loaded = false;
        logged.close();
    }

    @Override
    public boolean persistent() {
        return logged.persistent();
    }

    @Override
    public boolean isOpen() {
        return logged.isOpen();
    }
}
