package io.gpuledger.cli;

import io.gpuledger.model.Topic;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

/** A topic of the contract read as automation reads it: committed records only, from its start to its end as of now. */
final class TopicRecords {

    private TopicRecords() {
    }

    /** The values of every committed record of {@code topic}, in the order of each partition. */
    static <K, V> List<V> read(String bootstrapServers, Topic<K, V> topic) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        List<V> values = new ArrayList<>();
        try (KafkaConsumer<K, V> consumer = new KafkaConsumer<>(props, topic.keySerde().deserializer(),
                topic.valueSerde().deserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic.name()).stream()
                    .map(info -> new TopicPartition(info.topic(), info.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (partitions.stream().anyMatch(partition -> consumer.position(partition) < ends.get(partition))) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError(topic.name() + " not read to its end within 30 s");
                }
                consumer.poll(Duration.ofMillis(200)).forEach(record -> values.add(record.value()));
            }
        }
        return values;
    }
}
