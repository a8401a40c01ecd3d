package io.gpuledger.streams.state;

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
 */
public final class LiveStoreBuilder<V> implements StoreBuilder<LiveStore<V>> {

    private final StoreBuilder<KeyValueStore<Bytes, byte[]>> logged;
    private final Codec<V> codec;

    public LiveStoreBuilder(String name, Codec<V> codec) {
        this.logged = Stores.keyValueStoreBuilder(new Supplier(name), Serdes.Bytes(), Serdes.ByteArray())
                .withCachingDisabled();
        this.codec = codec;
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
        return new LiveStore<>(logged.build(), codec);
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
