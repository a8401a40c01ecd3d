package io.gpuledger.streams.state;

import io.gpuledger.model.Compared;
import java.util.Map;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;

/**
 * Builds a {@link LiveStore} over a changelog topic (unless told otherwise) and a
 * {@link RestoreBuffer} store that holds only what a restore reads back. It has no record cache:
 * its values already wait as objects until the commit, which is what the cache would do, without
 * the copies.
 *
 * <p>In the benchmark that weighs live stores against a Streams key-value store with its record cache,
 * {@code -Dgpuledger.compare.store=memory} (or {@code rocksdb}) builds each over such a store, in memory
 * (or in RocksDB), and has it do that store's work as well ({@link LiveStore}).
 */
public final class LiveStoreBuilder<V> implements StoreBuilder<LiveStore<V>> {

    /** Ours, or the plain store of the benchmark: {@code memory} or {@code rocksdb}. */
    private static final String STORE = Compared.choice("gpuledger.compare.store", "memory", "rocksdb");

    /**
     * The record cache of each stream thread when the stores are plain: room for every value of a
     * large fleet between two commits, so that the cache, not its size, is what is measured.
     */
    public static final long PLAIN_CACHE_BYTES = 256L << 20;

    private final StoreBuilder<KeyValueStore<Bytes, byte[]>> logged;
    private final Codec<V> codec;

    public LiveStoreBuilder(String name, Codec<V> codec) {
        this.logged = switch (STORE) {
            case "memory" -> Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(name), Serdes.Bytes(),
                    Serdes.ByteArray()).withCachingEnabled();
            case "rocksdb" -> Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(name), Serdes.Bytes(),
                    Serdes.ByteArray()).withCachingEnabled();
            default -> Stores.keyValueStoreBuilder(new Supplier(name), Serdes.Bytes(), Serdes.ByteArray())
                    .withCachingDisabled();
        };
        this.codec = codec;
    }

    /** Whether the stores built here are plain ones, for the benchmark: the stream threads need a record cache. */
    public static boolean plain() {
        return !STORE.equals(Compared.OURS);
    }

    @Override
    public LiveStoreBuilder<V> withCachingEnabled() {
        throw new UnsupportedOperationException("a live store holds its values until the commit itself");
    }

    @Override
    public LiveStoreBuilder<V> withCachingDisabled() {
        return this;
    }

    @Override
    public LiveStoreBuilder<V> withLoggingEnabled(Map<String, String> config) {
        logged.withLoggingEnabled(config);
        return this;
    }

    @Override
    public LiveStoreBuilder<V> withLoggingDisabled() {
        logged.withLoggingDisabled();
        return this;
    }

    @Override
    public LiveStore<V> build() {
        return plain() ? new LiveStore<>(codec, logged.build()) : new LiveStore<>(logged.build(), codec);
    }

    @Override
    public Map<String, String> logConfig() {
        return logged.logConfig();
    }

    @Override
    public boolean loggingEnabled() {
        return logged.loggingEnabled();
    }

    @Override
    public String name() {
        return logged.name();
    }

    /** A new {@link RestoreBuffer} for each task's store. */
    private record Supplier(String name) implements KeyValueBytesStoreSupplier {
        @Override
        public KeyValueStore<Bytes, byte[]> get() {
            return new RestoreBuffer(name);
        }

        @Override
        public String metricsScope() {
            return "live";
        }
    }
}
