package io.gpuledger.streams.state;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.streams.StreamsMetrics;
import org.apache.kafka.streams.processor.CommitCallback;
import org.apache.kafka.streams.processor.StateRestoreCallback;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.junit.jupiter.api.Test;

/** What a live store makes of the values a restore reads back from its changelog. */
class LiveStoreRestoreTest {

    @Test
    void shouldLeaveOutAndCountARestoredValueOfANewerFormatAndKeepTheOthers() {
        Restoring context = new Restoring(new MockProcessorContext<>().getStateStoreContext());
        LiveStore<Long> store = new LiveStore<>(new RestoreBuffer("clock"), Codec.LONG);
        store.init(context, store);

        // Given one value this release wrote, one without a version byte, and one of version 2 (0xC0 + 2),
        context.callback.restore(key("GPU-0"), Codec.LONG.toBytes(7L));
        context.callback.restore(key("GPU-1"), new byte[] {0, 0, 0, 0, 0, 0, 0, 9});
        context.callback.restore(key("GPU-2"), new byte[] {(byte) 0xC2, 0, 0, 0, 0, 0, 0, 0, 5});

        // then the first is read, and the other two are left out and counted as dead letters.
        assertThat(store.entries()).isEqualTo(Map.of("GPU-0", 7L));
        assertThat(context.metrics().metrics().entrySet())
                .filteredOn(e -> e.getKey().name().equals("dead-letters-total")
                        && LiveStore.UNREADABLE.equals(e.getKey().tags().get("gpuledger-id")))
                .extracting(e -> e.getValue().metricValue()).containsExactly(2.0);
    }

    @Test
    void shouldKeepWhatItHeldWhenItsTaskIsRecycledAndLayWhatTheRestoreReadsBackSinceOverIt() {
        Restoring context = new Restoring(new MockProcessorContext<>().getStateStoreContext());
        LiveStore<Long> store = new LiveStore<>(new RestoreBuffer("counts"), Codec.LONG);
        store.init(context, store);
        // Given a store restored with three counts, one of which its task then changes and commits
        context.callback.restore(key("a"), Codec.LONG.toBytes(1L));
        context.callback.restore(key("b"), Codec.LONG.toBytes(2L));
        context.callback.restore(key("c"), Codec.LONG.toBytes(3L));
        store.put("a", 5L);
        store.flushCache();

        // When Kafka Streams recycles the task into a standby (after the commit), which restores on from where the
        // changelog stood: another instance's task counts a to 6, deletes c and counts d, and the standby becomes
        // the active task again
        store.clearCache();
        context.callback.restore(key("a"), Codec.LONG.toBytes(6L));
        context.callback.restore(key("c"), null);
        context.callback.restore(key("d"), Codec.LONG.toBytes(4L));
        store.clearCache();

        // Then it holds what it held with what was read back since laid over it, b included, which nothing
        // read back names
        assertThat(store.entries()).isEqualTo(Map.of("a", 6L, "b", 2L, "d", 4L));
    }

    @Test
    void shouldRunNoSendOfItsActiveTasksProcessorsOnceItsTaskIsRecycled() {
        Restoring context = new Restoring(new MockProcessorContext<>().getStateStoreContext());
        LiveStore<Long> store = new LiveStore<>(new RestoreBuffer("pending"), Codec.LONG);
        store.init(context, store);
        int[] sends = {0};
        store.beforeEachWrite(() -> sends[0]++);
        store.flushCache();

        // When the task is recycled into a standby, whose commits write the store too
        store.clearCache();
        store.flush();

        // Then the active task's processor sent at its own commit only
        assertThat(sends[0]).isEqualTo(1);
    }

    private static byte[] key(String key) {
        return key.getBytes(StandardCharsets.UTF_8);
    }

    /** The test utilities' store context, keeping the restore callback a store registers. */
    private static final class Restoring implements StateStoreContext {
        private final StateStoreContext inner;
        private StateRestoreCallback callback;

        Restoring(StateStoreContext inner) {
            this.inner = inner;
        }

        @Override
        public void register(StateStore store, StateRestoreCallback restore) {
            callback = restore;
        }

        @Override
        public void register(StateStore store, StateRestoreCallback restore, CommitCallback commit) {
            callback = restore;
        }

        @Override
        public String applicationId() {
            return inner.applicationId();
        }

        @Override
        public TaskId taskId() {
            return inner.taskId();
        }

        @Override
        public Optional<RecordMetadata> recordMetadata() {
            return inner.recordMetadata();
        }

        @Override
        public Serde<?> keySerde() {
            return inner.keySerde();
        }

        @Override
        public Serde<?> valueSerde() {
            return inner.valueSerde();
        }

        @Override
        public File stateDir() {
            return inner.stateDir();
        }

        @Override
        public StreamsMetrics metrics() {
            return inner.metrics();
        }

        @Override
        public Map<String, Object> appConfigs() {
            return inner.appConfigs();
        }

        @Override
        public Map<String, Object> appConfigsWithPrefix(String prefix) {
            return inner.appConfigsWithPrefix(prefix);
        }
    }
}
