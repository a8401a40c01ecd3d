package io.gpuledger.ingest.agent.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Delivery while Kafka is away and its spool meets a full disk or damage: the agent goes on, and counts what it lost.
 */
class DeliverySpoolFaultsTest {

    @TempDir
    Path dir;

    @Test
    void shouldCountTheRecordTheFullDiskLostAndSpoolTheNextOnesOnceThereIsRoom() {
        // Given a producer that cannot reach Kafka, and a disk with room for the spool's header and three
        // records: 8 + 3 * 65 = 203 bytes (each frame 12 bytes and a 53-byte record, see SpoolTest)
        MockProducer<String, byte[]> producer = new MockProducer<>(false, null, new StringSerializer(),
                new ByteArraySerializer());
        producer.sendException = new TimeoutException("broker away");
        FillingDisk disk = new FillingDisk(203);
        List<String> log = new CopyOnWriteArrayList<>();
        Spool spool = new Spool(dir, 1_000_000, 1_000_000, SpoolSync.DEFAULT, disk, () -> 0L);
        Delivery delivery = new Delivery(producer, spool, Duration.ofHours(1), log::add);
        try {
            // When four records are submitted, then, once room is made, a fifth
            for (int i = 1; i <= 4; i++) {
                submit(delivery, i);
            }
            disk.free();
            submit(delivery, 5);

            // Then the fourth alone is lost and counted, and the agent's spool holds the four others
            assertThat(delivery.spoolWriteLost()).isEqualTo(1);
            assertThat(delivery.counters().failed()).isEqualTo(1);
            assertThat(delivery.counters().spooled()).isEqualTo(4);
            assertThat(delivery.spooledNow()).isEqualTo(4);
            assertThat(log).singleElement().asString().contains("No space left on device");
        } finally {
            delivery.close(Duration.ZERO);
        }
    }

    @Test
    void shouldTellDamageFoundWhileReplayingAndDeliverTheRecordsAfterIt() throws Exception {
        // Given five records spooled while Kafka was away, then the third damaged on disk: its payload
        // starts at 8 + 2 * 65 + 12 = 150, so bytes 170-173 lie inside it (frames as in SpoolTest)
        MockProducer<String, byte[]> producer = new MockProducer<>(true, null, new StringSerializer(),
                new ByteArraySerializer());
        producer.sendException = new TimeoutException("broker away");
        List<String> log = new CopyOnWriteArrayList<>();
        Delivery delivery = new Delivery(producer, new Spool(dir, 1_000_000, 1_000_000), Duration.ofHours(1), log::add);
        try {
            for (int i = 1; i <= 5; i++) {
                submit(delivery, i);
            }
            Path segment;
            try (Stream<Path> files = Files.list(dir)) {
                segment = files.filter(f -> f.toString().endsWith(".spool")).findFirst().orElseThrow();
            }
            byte[] bytes = Files.readAllBytes(segment);
            Arrays.fill(bytes, 170, 174, (byte) 0xFF);
            Files.write(segment, bytes);

            // When Kafka is back and the spool is replayed
            producer.sendException = null;
            delivery.replay();

            // Then the records around the damage reach Kafka, and the damage is told and counted once
            assertThat(producer.history()).extracting(record -> record.timestamp() - 1_700_000_000_000L)
                    .containsExactly(1L, 2L, 4L, 5L);
            assertThat(delivery.spoolDamaged()).isEqualTo(1);
            assertThat(log).containsExactly("spool: " + segment.getFileName()
                    + ": 65 damaged bytes at offset 138 skipped, read on from offset 203");
        } finally {
            delivery.close(Duration.ZERO);
        }
    }

    @Test
    void shouldNotSpoolARecordAgainForAFailedSendOnceItIsHandedOverAgain() throws Exception {
        // Given a producer whose first send fails within send(), as when its buffer stays full past max.block.ms:
        // the producer then calls back with the failure too, and the delivery spools the record for its replay
        // thread, which also takes the callback's word for it
        MockProducer<String, byte[]> producer = new MockProducer<>(false, null, new StringSerializer(),
                new ByteArraySerializer()) {
            private boolean failed;

            @Override
            public synchronized Future<RecordMetadata> send(ProducerRecord<String, byte[]> record, Callback callback) {
                if (failed) {
                    return super.send(record, callback);
                }
                failed = true;
                TimeoutException full = new TimeoutException("buffer full past max.block.ms");
                callback.onCompletion(null, full);
                return CompletableFuture.failedFuture(full);
            }
        };
        Spool spool = new Spool(dir, 1_000_000, 1_000_000);
        Delivery delivery = new Delivery(producer, spool, Duration.ofHours(1), message -> { });
        try {
            // When the record is replayed from the spool before the replay thread gets to that callback (it waits
            // for the spool, held here)
            synchronized (spool) {
                submit(delivery, 1);
                assertThat(delivery.spooledNow()).isEqualTo(1);
                delivery.replay();
                assertThat(delivery.spooledNow()).isZero();
            }
            // and the callback's turn has come
            delivery.awaitReplayThread();

            // Then the record handed over again is the one in flight, and it is not spooled to go out twice
            assertThat(delivery.pending()).isEqualTo(1);
            assertThat(delivery.spooledNow()).isZero();
            assertThat(producer.history()).hasSize(1);
        } finally {
            delivery.close(Duration.ZERO);
        }
    }

    private static void submit(Delivery delivery, int n) {
        delivery.submit("gpu.telemetry.v1", "GPU-" + n % 3, ("{\"n\":" + n + "}").getBytes(StandardCharsets.UTF_8),
                1_700_000_000_000L + n);
    }
}
