package io.gpuledger.streams.it;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serdes;

/** Reads a topic as the alert service does ({@code read_committed}, from its start) until a wanted record comes. */
final class CommittedRecords {

    private CommittedRecords() {
    }

    /** The first committed record of {@code topic} that {@code wanted} accepts; fails after {@code within}. */
    static <V> ConsumerRecord<String, V> first(String bootstrap, String topic, Deserializer<V> values,
            Predicate<ConsumerRecord<String, V>> wanted, Duration within) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, "committed-reader-" + System.nanoTime());
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        int seen = 0;
        try (KafkaConsumer<String, V> consumer =
                new KafkaConsumer<>(props, Serdes.String().deserializer(), values)) {
            consumer.subscribe(List.of(topic));
            long deadline = System.nanoTime() + within.toNanos();
            while (System.nanoTime() < deadline) {
                for (ConsumerRecord<String, V> record : consumer.poll(Duration.ofMillis(200))) {
                    seen++;
                    if (wanted.test(record)) {
                        return record;
                    }
                }
            }
        }
        throw new AssertionError("no wanted record on " + topic + " within " + within.toSeconds() + " s; saw "
                + seen + " records");
    }

    /** Every committed record of {@code topic}, from its start to its end as it is now. */
    static <V> List<ConsumerRecord<String, V>> all(String bootstrap, String topic, Deserializer<V> values) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        List<ConsumerRecord<String, V>> found = new ArrayList<>();
        try (KafkaConsumer<String, V> consumer =
                new KafkaConsumer<>(props, Serdes.String().deserializer(), values)) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                    .map(info -> new TopicPartition(info.topic(), info.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (partitions.stream().anyMatch(partition -> consumer.position(partition) < ends.get(partition))) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("could not read " + topic + " to its end within 60 s");
                }
                consumer.poll(Duration.ofMillis(200)).forEach(found::add);
            }
        }
        return found;
    }
}
