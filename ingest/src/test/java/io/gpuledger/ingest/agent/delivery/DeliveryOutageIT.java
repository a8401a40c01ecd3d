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
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The broker goes away while records keep coming and comes back: every record arrives, in order per key, through
 * the producer's buffer and the on-disk spool; exactly once, but for what the producer had in flight when the
 * broker went (a batch the broker wrote without acknowledging it may come again under the producer's next epoch,
 * as {@link Delivery} says: the Kafka client bumps the epoch when a partition's sequence is lost, and sends every
 * partition's unacknowledged batches again under it).
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
        // Taken once the broker is gone, when no acknowledgement can come any more (ClusterOutageIT says why).
        Set<Long> inFlightAtStop = delivery.unacknowledged();
        sent[0] = submit(delivery, sent[0], Duration.ofSeconds(3));
        long spooledDuringOutage = delivery.counters().spooled();
        broker.kafka().restartBroker();
        sent[0] = submit(delivery, sent[0], Duration.ofSeconds(1));
        await().atMost(Duration.ofSeconds(60)).until(() -> delivery.spooledNow() == 0 && delivery.pending() == 0);
        delivery.close(Duration.ofSeconds(10));

        // Then every record is on the topic exactly once, and in order for each key
        List<ConsumerRecord<String, String>> received = readAll(broker.bootstrap());
        assertThat(spooledDuringOutage).as("records spooled during the outage").isPositive();
        assertThat(log).as("what the delivery logged").isEmpty();
        assertThat(delivery.dropped()).isZero();
        assertOnceInOrderPerKey(received, sent[0], inFlightAtStop);
        assertThat(delivery.counters().sent()).isEqualTo(sent[0]);
    }

    /**
     * Asserts that records 1 to {@code sent} are each there, their first copies in order for each key, and each
     * once unless its number is among {@code mayRepeat} (unacknowledged when the brokers went); a failure names the
     * missing and the repeated ones rather than listing every record.
     */
    static void assertOnceInOrderPerKey(List<ConsumerRecord<String, String>> received, int sent,
            Set<Long> mayRepeat) {
        Map<String, List<Integer>> byKey = new HashMap<>();
        Map<Integer, Integer> copies = new TreeMap<>();
        // Where each copy lies, partition-offset: copies side by side are a batch written twice, copies far apart
        // a record sent again later.
        Map<Integer, List<String>> at = new TreeMap<>();
        for (ConsumerRecord<String, String> record : received) {
            int number = Integer.parseInt(record.value().substring(0, record.value().indexOf(' ')));
            at.computeIfAbsent(number, n -> new ArrayList<>()).add(record.partition() + "-" + record.offset());
            if (copies.merge(number, 1, Integer::sum) == 1) {
                byKey.computeIfAbsent(record.key(), k -> new ArrayList<>()).add(number);
            }
        }
        List<Integer> missing = new ArrayList<>();
        for (int number = 1; number <= sent; number++) {
            if (!copies.containsKey(number)) {
                missing.add(number);
            }
        }
        Map<Integer, Integer> repeated = new TreeMap<>(copies);
        repeated.values().removeIf(count -> count == 1);
        repeated.keySet().removeIf(number -> mayRepeat.contains((long) number));
        assertThat(missing).as("records of 1 to %d not on the topic", sent).isEmpty();
        Map<Integer, List<String>> repeatedAt = new TreeMap<>(at);
        repeatedAt.keySet().retainAll(repeated.keySet());
        assertThat(repeated).as("records on the topic more than once that were acknowledged before the brokers went,"
                + " or sent after (number=copies), at partition-offset %s; may repeat: %s", repeatedAt,
                new TreeSet<>(mayRepeat)).isEmpty();
        assertThat(copies.keySet()).as("records on the topic that were never sent").allMatch(n -> n <= sent);
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

    /**
     * Reads the telemetry topic from its start to its end as it is now, partition by partition,
     * without a consumer group (so without waiting on a group coordinator after a restart).
     */
    static List<ConsumerRecord<String, String>> readAll(String bootstrap) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        List<ConsumerRecord<String, String>> received = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer =
                new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(Topics.TELEMETRY.name(), Duration.ofSeconds(30))
                    .stream().map(info -> new TopicPartition(info.topic(), info.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions, Duration.ofSeconds(30));
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (partitions.stream().anyMatch(p -> consumer.position(p) < ends.get(p))) {
                assertThat(System.nanoTime()).as("read the topic to its end within a minute").isLessThan(deadline);
                consumer.poll(Duration.ofMillis(200)).forEach(received::add);
            }
        }
        return received;
    }
}
