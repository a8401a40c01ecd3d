package io.gpuledger.streams.state;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.StateRestoreCallback;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.query.Position;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The bytes store under a {@link LiveStore}, beneath the store that writes its changelog: it
 * keeps what a restore reads back from the changelog until the live store takes it, and nothing
 * else. Writes pass through it to no effect by design: the live store holds every value as an
 * object, and the logging store above this one has written each to the changelog already.
 */
final class RestoreBuffer implements KeyValueStore<Bytes, byte[]> {

    private final String name;
    /**
     * What the restore read back from the changelog, not yet taken by the live store: a key's latest value, or null
     * for a tombstone, which deletes what the live store holds of the key when the restore goes on after a recycle.
     */
    private Map<Bytes, byte[]> readBack = new HashMap<>();
    private boolean open;

    RestoreBuffer(String name) {
        this.name = name;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public void init(StateStoreContext context, StateStore root) {
        readBack.clear();
        context.register(root, (StateRestoreCallback) (key, value) -> readBack.put(Bytes.wrap(key), value));
        open = true;
    }

    /** What was restored since the last call, handed over and forgotten here. */
    Map<Bytes, byte[]> takeReadBack() {
        Map<Bytes, byte[]> taken = readBack;
        readBack = new HashMap<>();
        return taken;
    }

    /** Kept by no one here: the live store holds the value, and the store above has logged it. */
    @Override
    public void put(Bytes key, byte[] value) {
    }

    @Override
    public byte[] putIfAbsent(Bytes key, byte[] value) {
        throw unsupported("putIfAbsent");
    }

    @Override
    public void putAll(List<KeyValue<Bytes, byte[]>> entries) {
    }

    /** Nothing kept, so no old value: the store above logs the deletion. */
    @Override
    public byte[] delete(Bytes key) {
        return null;
    }

    @Override
    public byte[] get(Bytes key) {
        throw unsupported("get");
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> range(Bytes from, Bytes to) {
        throw unsupported("range");
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> all() {
        throw unsupported("all");
    }

    @Override
    public long approximateNumEntries() {
        return readBack.size();
    }

    @Override
    public Position getPosition() {
        return Position.emptyPosition();
    }

    @Override
    public void flush() {
    }

    @Override
    public void close() {
        readBack.clear();
        open = false;
    }

    @Override
    public boolean persistent() {
        return false;
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    private UnsupportedOperationException unsupported(String operation) {
        return new UnsupportedOperationException(operation + " on " + name
                + ": a live store's values are read from the live store itself");
    }
}
