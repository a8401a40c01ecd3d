package io.gpuledger.alerts.feed;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Reads a topic from its start to its end as of now, outside any consumer group: how the alert
 * service learns at start what it published before (recommendations and their states, anomalies,
 * webhook deliveries), so that a restart neither repeats nor forgets them.
 */
public final class TopicReplay {

    private TopicReplay() {
    }

    /** Feeds every committed record of {@code topic} to {@code sink}; returns how many. */
    public static long replay(String bootstrapServers, String topic, Duration timeout,
            Consumer<ConsumerRecord<String, byte[]>> sink) {
        Instant deadline = Instant.now().plus(timeout);
        long records = 0;
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(KafkaClients.replay(bootstrapServers),
                new StringDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic, timeout).stream()
                    .map(info -> new TopicPartition(topic, info.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions, timeout);
            while (!reached(consumer, end)) {
                if (Instant.now().isAfter(deadline)) {
                    throw new IllegalStateException("could not read " + topic + " to its end within " + timeout);
                }
                for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    sink.accept(record);
                    records++;
                }
            }
        }
        return records;
    }

    private static boolean reached(KafkaConsumer<?, ?> consumer, Map<TopicPartition, Long> end) {
        for (Map.Entry<TopicPartition, Long> partition : end.entrySet()) {
            if (consumer.position(partition.getKey()) < partition.getValue()) {
                return false;
            }
        }
        return true;
    }
}
