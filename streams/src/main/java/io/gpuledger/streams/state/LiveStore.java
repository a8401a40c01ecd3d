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
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A key-value store held in memory as Java objects and written, as bytes, to its changelog when
 * Kafka Streams commits ({@link CommitHook}): the changelog matches the committed input as with any
 * logged store, but a value updated many times between two commits is encoded once, and reading
 * it costs a map lookup. It is decoded on first use from what a restore read back ({@link RestoreBuffer}).
 *
 * <p>After changing a value in place, {@link #markDirty} its key; {@link #put} and {@link #delete}
 * mark theirs. A value read back in a format version this release does not read is left out,
 * logged and counted as a dead letter of kind {@value #UNREADABLE}; it stays on the changelog until
 * its key is written again.
 */
public final class LiveStore<V> extends CommitHook<V> {

    /** The dead-letter kind of restored values in a format this release does not read. */
    public static final String UNREADABLE = "unreadable-state";

    private static final Logger LOG = LoggerFactory.getLogger(LiveStore.class);

    private final KeyValueStore<Bytes, byte[]> logged;
    /** The innermost store, under the metered and logging ones: what a restore brought back. */
    private final RestoreBuffer restoreBuffer;
    private final Codec<V> codec;
    private final Map<String, V> live = new HashMap<>();
    /** Keys put, changed in place or deleted since the last commit: the next commit writes them. */
    private final Set<String> dirty = new HashSet<>();
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
        live.put(key, value);
        dirty.add(key);
    }

    /** The value of {@code key} was changed in place: the next commit writes it as it then stands. */
    public void markDirty(String key) {
        dirty.add(key);
    }

    /**
     * A value that remembers the commit it was last marked in, for values changed at every record:
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
    }

    public void delete(String key) {
        load();
        if (live.remove(key) != null) {
            dirty.add(key);
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
        for (Map.Entry<Bytes, byte[]> entry : restoreBuffer.takeReadBack().entrySet()) {
            String key = new String(entry.getKey().get(), StandardCharsets.UTF_8);
            try {
                live.put(key, codec.fromBytes(entry.getValue()));
            } catch (UnknownFormatException e) {
                LOG.error("{}: left out {}, restored from the changelog: {}", name(), key, e.getMessage());
                unreadable().record();
            }
        }
        loaded = true;
    }

    private Sensor unreadable() {
        return context.metrics().addRateTotalSensor("gpuledger", UNREADABLE, "dead-letters",
                Sensor.RecordingLevel.INFO);
    }

    @Override
    void writeChanges() {
        commits++;
        for (String key : dirty) {
            Bytes bytes = Bytes.wrap(key.getBytes(StandardCharsets.UTF_8));
            V value = live.get(key);
            if (value == null) {
                logged.delete(bytes);
            } else {
                logged.put(bytes, codec.toBytes(value));
            }
        }
        dirty.clear();
    }

    @Override
    void dropChanges() {
        commits++;
        live.clear();
        dirty.clear();
        loaded = false;
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
