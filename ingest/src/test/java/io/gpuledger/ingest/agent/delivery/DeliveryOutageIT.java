package io.gpuledger.ingest.agent.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuledger.model.Topics;
import io.gpuledger.testing.BrokerExtension;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The broker goes away while records keep coming and comes back: every record arrives exactly
 * once, in order per key, through the producer's buffer and the on-disk spool.
 */
class DeliveryOutageIT {

    private static final int KEYS = 4;

    @TempDir
    Path spoolDir;

    @RegisterExtension
    final BrokerExtension broker = BrokerExtension.withTopics(2);

    @Test
    void shouldDeliverEveryRecordExactlyOnceInOrderAcrossABrokerOutage() throws Exception {
        List<String> log = new CopyOnWriteArrayList<>();
        // A buffer of 32 KiB fills within a second of outage, so the spool is exercised.
        Delivery delivery = new Delivery(Delivery.producer(broker.bootstrap(), "outage-test", 32 * 1024),
                new Spool(spoolDir, 64L * 1024 * 1024, 64 * 1024), Duration.ofMillis(100), log::add);
        int[] sent = {0};

        // Given records flowing, when the broker stops for a while and then returns
        sent[0] = submit(delivery, sent[0], Duration.ofSeconds(1));
        broker.kafka().stopBroker();
        sent[0] = submit(delivery, sent[0], Duration.ofSeconds(3));
        long spooledDuringOutage = delivery.counters().spooled();
        broker.kafka().restartBroker();
        sent[0] = submit(delivery, sent[0], Duration.ofSeconds(1));
        await().atMost(Duration.ofSeconds(60)).until(() -> delivery.spooledNow() == 0 && delivery.pending() == 0);
        delivery.close(Duration.ofSeconds(10));

        // Then every record is on the topic exactly once, and in order for each key
        List<ConsumerRecord<String, String>> received = readAll(broker.bootstrap(), sent[0]);
        assertThat(spooledDuringOutage).as("records spooled during the outage").isPositive();
        assertThat(delivery.dropped()).isZero();
        assertThat(received).hasSize(sent[0]);
        assertOnceInOrderPerKey(received, sent[0]);
        assertThat(delivery.counters().sent()).isEqualTo(sent[0]);
        assertThat(log).isEmpty();
    }

    /** Asserts that records 1 to {@code sent} are each there once, in order for each key. */
    static void assertOnceInOrderPerKey(List<ConsumerRecord<String, String>> received, int sent) {
        Map<String, List<Integer>> byKey = new HashMap<>();
        for (ConsumerRecord<String, String> record : received) {
            byKey.computeIfAbsent(record.key(), k -> new ArrayList<>())
                    .add(Integer.parseInt(record.value().substring(0, record.value().indexOf(' '))));
        }
        assertThat(byKey.values().stream().flatMap(List::stream).distinct().count()).isEqualTo(sent);
        assertThat(byKey.values()).allSatisfy(sequence -> assertThat(sequence).isSorted());
    }

    /** Submits a record every 2 ms for {@code duration}; returns the new total. */
    static int submit(Delivery delivery, int from, Duration duration) throws InterruptedException {
        int n = from;
        long end = System.nanoTime() + duration.toNanos();
        while (System.nanoTime() < end) {
            n++;
            // Incompressible padding, so that the producer's buffer fills like it does with real samples.
            String value = n + " " + randomHex(200);
            delivery.submit(Topics.TELEMETRY.name(), "GPU-" + n % KEYS, value.getBytes(StandardCharsets.UTF_8),
                    System.currentTimeMillis());
            // The pace of a sampling agent, not a wait for anything
            Thread.sleep(2);
        }
        return n;
    }

    private static String randomHex(int length) {
        StringBuilder hex = new StringBuilder(length);
        java.util.concurrent.ThreadLocalRandom random = java.util.concurrent.ThreadLocalRandom.current();
        while (hex.length() < length) {
            hex.append(Long.toHexString(random.nextLong()));
        }
        return hex.substring(0, length);
    }

    /** Reads the telemetry topic from its start until {@code expected} records and two seconds more have come. */
    static List<ConsumerRecord<String, String>> readAll(String bootstrap, int expected) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, "outage-reader");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        List<ConsumerRecord<String, String>> received = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer =
                new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of(Topics.TELEMETRY.name()));
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            long quietUntil = Long.MAX_VALUE;
            while (System.nanoTime() < Math.min(deadline, quietUntil)) {
                consumer.poll(Duration.ofMillis(200)).forEach(received::add);
                if (received.size() >= expected && quietUntil == Long.MAX_VALUE) {
                    // Keep reading a little longer: duplicates would arrive after the expected count.
                    quietUntil = System.nanoTime() + Duration.ofSeconds(2).toNanos();
                }
            }
        }
        return received;
    }
}
