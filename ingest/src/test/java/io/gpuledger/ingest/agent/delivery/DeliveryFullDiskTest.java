package io.gpuledger.ingest.agent.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Delivery while Kafka is away and the spool's disk fills up: the agent goes on, and counts what it lost. */
class DeliveryFullDiskTest {

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

    private static void submit(Delivery delivery, int n) {
        delivery.submit("gpu.telemetry.v1", "GPU-" + n % 3, ("{\"n\":" + n + "}").getBytes(StandardCharsets.UTF_8),
                1_700_000_000_000L + n);
    }
}
