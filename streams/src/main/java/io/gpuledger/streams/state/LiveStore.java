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
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.internals.CachedStateStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A key-value store held in memory as Java objects and written, as bytes, to its changelog when
 * Kafka Streams commits ({@link CommitHook}): the changelog matches the committed input as with any
 * logged store, but a value updated many times between two commits is encoded once, and reading
 * it costs a map lookup. It is decoded on first use from what a restore read back ({@link RestoreBuffer}).
 *
 * <p>After changing a value in place, {@link #markDirty} its key; {@link #put} and {@link #delete}
 * mark theirs; a key put and deleted again between two commits writes nothing. A value read back
 * in a format version this release does not read is left out, logged and counted as a dead letter
 * of kind {@value #UNREADABLE}; it stays on the changelog until its key is written again.
 *
 * <p>Built by {@link LiveStoreBuilder#plain} for the benchmark that weighs it, it also does, beside
 * its own, all the work of the plain alternative, a Streams key-value store under its record cache:
 * each read decodes the value from the cache, each change encodes it there (or deletes it), a walk
 * over the entries decodes every one, and the commit empties the cache into the store and its
 * changelog. Its objects stay what the stage reads and changes, so the stage's output is the same;
 * what it keeps of its own beside the plain work is a map lookup a read and a set of marked keys.
 */
public final class LiveStore<V> extends CommitHook<V> {

    /** The dead-letter kind of restored values in a format this release does not read. */
    public static final String UNREADABLE = "unreadable-state";

    private static final Logger LOG = LoggerFactory.getLogger(LiveStore.class);

    private final KeyValueStore<Bytes, byte[]> logged;
    /** The innermost store, under the metered and logging ones: what a restore brought back; null when plain. */
    private final RestoreBuffer restoreBuffer;
    /** Whether every value also goes through the record cache of {@link #logged}, as in a plain store. */
    private final boolean plain;
    /** The value a plain read decoded last: kept, so that the decoding is not left out as unused. */
    private Object plainRead;
    private final Codec<V> codec;
    private final Map<String, V> live = new HashMap<>();
    /** Keys put, changed in place or deleted since the last commit: the next commit writes them. */
    private final Set<String> dirty = new HashSet<>();
    /**
     * Keys the changelog has no value for, put since the last commit: deleted before the next, they
     * are no change to it, and the commit writes nothing for them (partials that live between two
     * commits would otherwise leave a tombstone each).
     */
    private final Set<String> unlogged = new HashSet<>();
    /** Keys read back in a format this release does not read: on the changelog, though not live. */
    private final Set<String> leftOut = new HashSet<>();
    /** Run before each write of the changes: see {@link #beforeEachWrite}. */
    private Runnable beforeWrite = () -> { };
    private StateStoreContext context;
    private boolean loaded;
    private long commits;

    LiveStore(KeyValueStore<Bytes, byte[]> logged, Codec<V> codec) {
        this.logged = logged;
        if (!(innermost(logged) instanceof RestoreBuffer buffer)) {
            throw new IllegalArgumentException("a live store goes over a restore buffer, not "
                    + innermost(logged).getClass().getName());
        }
        this.restoreBuffer = buffer;
        this.codec = codec;
        this.plain = false;
    }

    /** A store that also does the plain store's work, over {@code cached}, a Streams store with its record cache. */
    LiveStore(Codec<V> codec, KeyValueStore<Bytes, byte[]> cached) {
        if (!(cached instanceof CachedStateStore<?, ?>)) {
            throw new IllegalArgumentException("a plain store has a record cache");
        }
        this.logged = cached;
        this.restoreBuffer = null;
        this.codec = codec;
        this.plain = true;
    }

    @Override
    public String name() {
        return logged.name();
    }

    @Override
    public void init(StateStoreContext context, StateStore root) {
        this.context = context;
        dropChanges();
        logged.init(context, root);
    }

    public V get(String key) {
        load();
        if (plain && key != null) {
            byte[] stored = logged.get(bytes(key));
            plainRead = stored == null ? null : codec.fromBytes(stored);
        }
        return live.get(key);
    }

    /** How many times this store has written its changes (or dropped them): a commit of its own. */
    public long commits() {
        return commits;
    }

    /** How many entries the next commit writes: those marked since the last. */
    public int pendingWrites() {
        return dirty.size();
    }

    public void put(String key, V value) {
        load();
        boolean wasLive = live.put(key, value) != null;
        boolean newlyMarked = dirty.add(key);
        if (value instanceof Markable markable) {
            markable.markedIn = commits + 1;
        }
        // Neither live nor marked (a key deleted since the last commit is): the changelog holds no value for it.
        if (newlyMarked && !wasLive && !plain && !leftOut.contains(key)) {
            unlogged.add(key);
        }
        writePlain(key, value);
    }

    /** The value of {@code key} was changed in place: the next commit writes it as it then stands. */
    public void markDirty(String key) {
        dirty.add(key);
        if (plain) {
            writePlain(key, live.get(key));
        }
    }

    /**
     * A value that remembers the commit it was last marked (or {@link #put}) in, for values changed at every record:
     * marking one again before the commit then costs a comparison, not a lookup in the marked keys.
     */
    public abstract static class Markable {
        private long markedIn;
    }

    /** As {@link #markDirty(String)}, once per commit for a value that remembers being marked. */
    public void markDirty(String key, Markable value) {
        long current = commits + 1;
        if (value.markedIn != current) {
            value.markedIn = current;
            dirty.add(key);
        }
        if (plain) {
            writePlain(key, live.get(key));
        }
    }

    public void delete(String key) {
        load();
        if (live.remove(key) != null) {
            if (unlogged.remove(key)) {
                dirty.remove(key);
            } else {
                dirty.add(key);
            }
            writePlain(key, null);
        }
    }

    private void writePlain(String key, V value) {
        if (!plain) {
            return;
        }
        if (value == null) {
            logged.delete(bytes(key));
        } else {
            logged.put(bytes(key), codec.toBytes(value));
        }
    }

    private static Bytes bytes(String key) {
        return Bytes.wrap(key.getBytes(StandardCharsets.UTF_8));
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
        if (plain) {
            try (KeyValueIterator<Bytes, byte[]> all = logged.all()) {
                all.forEachRemaining(entry -> plainRead = codec.fromBytes(entry.value));
            }
        }
        return Collections.unmodifiableMap(live);
    }

    private void load() {
        if (loaded) {
            return;
        }
        if (plain) {
            try (KeyValueIterator<Bytes, byte[]> all = logged.all()) {
                all.forEachRemaining(entry -> live.put(new String(entry.key.get(), StandardCharsets.UTF_8),
                        codec.fromBytes(entry.value)));
            }
            loaded = true;
            return;
        }
        for (Map.Entry<Bytes, byte[]> entry : restoreBuffer.takeReadBack().entrySet()) {
            String key = new String(entry.getKey().get(), StandardCharsets.UTF_8);
            if (entry.getValue() == null) {
                live.remove(key);
                leftOut.remove(key);
                continue;
            }
            try {
                live.put(key, codec.fromBytes(entry.getValue()));
                leftOut.remove(key);
            } catch (UnknownFormatException e) {
                LOG.error("{}: left out {}, restored from the changelog: {}", name(), key, e.getMessage());
                leftOut.add(key);
                unreadable().record();
            }
        }
        loaded = true;
    }

    private Sensor unreadable() {
        return context.metrics().addRateTotalSensor("gpuledger", UNREADABLE, "dead-letters",
                Sensor.RecordingLevel.INFO);
    }

    /**
     * Runs {@code action} each time, before, the store writes its changes: as Kafka Streams is about to
     * commit the task (and at its checkpoints). What the action changes in the store is written with the
     * rest; a processor that sends what it holds there ({@link CommitSends}) need not store it.
     */
    public void beforeEachWrite(Runnable action) {
        this.beforeWrite = action;
    }

    @Override
    void writeChanges() {
        beforeWrite.run();
        commits++;
        if (plain) {
            dirty.clear();
            ((CachedStateStore<?, ?>) logged).flushCache();
            return;
        }
        for (String key : dirty) {
            V value = live.get(key);
            if (value == null) {
                logged.delete(bytes(key));
            } else {
                logged.put(bytes(key), codec.toBytes(value));
            }
        }
        if (!leftOut.isEmpty()) {
            leftOut.removeAll(dirty);
        }
        dirty.clear();
        unlogged.clear();
    }

    @Override
    void dropChanges() {
        commits++;
        if (plain && logged.isOpen()) {
            ((CachedStateStore<?, ?>) logged).clearCache();
        }
        live.clear();
        dirty.clear();
        unlogged.clear();
        leftOut.clear();
        loaded = false;
    }

    @Override
    void recycled() {
        if (plain || !dirty.isEmpty()) {
            // The plain store's values are in the store under its cache. Changes not written cannot be told from
            // what was committed: never so after the commit Kafka Streams recycles a task after.
            if (!plain) {
                LOG.error("{}: recycled with {} changes not written; dropped them with all it held", name(),
                        dirty.size());
            }
            dropChanges();
            return;
        }
        commits++;
        unlogged.clear();
        // Read back from now on by the restore, laid over what is held at the next use.
        loaded = false;
        // A standby's commits run no processor's sends; an active task's processors set theirs again at their init.
        beforeWrite = () -> { };
    }

    @Override
    public void flush() {
        writeChanges();
        logged.flush();
    }

    @Override
    public void close() {
        live.clear();
        dirty.clear();
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
