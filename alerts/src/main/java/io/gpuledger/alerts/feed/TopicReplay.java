package io.gpuledger.alerts.feed;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.jboss.logging.Logger;

/**
 * Reads a topic from its start to its end as of now, outside any consumer group: how the alert
 * service learns at start what it published before (recommendations and their states, anomalies,
 * webhook deliveries), so that a restart neither repeats nor forgets them. Or up to where a group
 * has committed: the price versions the service had read before it stopped.
 */
public final class TopicReplay {

    private static final Logger LOG = Logger.getLogger(TopicReplay.class);

    private TopicReplay() {
    }

    /**
     * Feeds every committed record of {@code topic} to {@code sink}; returns how many it took. A record the
     * sink fails on is logged and passed over.
     */
    public static long replay(String bootstrapServers, String topic, Duration timeout,
            Consumer<ConsumerRecord<String, byte[]>> sink) {
        return replay(bootstrapServers, topic, timeout, sink, (consumer, partitions) ->
                consumer.endOffsets(partitions, timeout));
    }

    /**
     * Feeds {@code sink} the records of {@code topic} that consumer group {@code groupId} has
     * committed past, from the start: what the group's member read and handled before it last
     * stopped. Nothing if the group has committed nothing there.
     */
    public static long replayCommitted(String bootstrapServers, String topic, String groupId, Duration timeout,
            Consumer<ConsumerRecord<String, byte[]>> sink) {
        return replay(bootstrapServers, topic, timeout, sink, (consumer, partitions) -> {
            // Asking a group for its offsets does not join it: its reader starts later, undisturbed.
            try (KafkaConsumer<String, byte[]> group = new KafkaConsumer<>(
                    KafkaClients.consumer(bootstrapServers, groupId), new StringDeserializer(),
                    new ByteArrayDeserializer())) {
                Map<TopicPartition, OffsetAndMetadata> committed = group.committed(Set.copyOf(partitions), timeout);
                Map<TopicPartition, Long> until = new HashMap<>();
                for (TopicPartition partition : partitions) {
                    OffsetAndMetadata offset = committed.get(partition);
                    until.put(partition, offset == null ? 0L : offset.offset());
                }
                return until;
            }
        });
    }

    private static long replay(String bootstrapServers, String topic, Duration timeout,
            Consumer<ConsumerRecord<String, byte[]>> sink,
            BiFunction<KafkaConsumer<String, byte[]>, List<TopicPartition>, Map<TopicPartition, Long>> until) {
        Instant deadline = Instant.now().plus(timeout);
        long records = 0;
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(KafkaClients.replay(bootstrapServers),
                new StringDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic, timeout).stream()
                    .map(info -> new TopicPartition(topic, info.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = until.apply(consumer, partitions);
            while (!reached(consumer, end)) {
                if (Instant.now().isAfter(deadline)) {
                    throw new IllegalStateException("could not read " + topic + " to its end within " + timeout);
                }
                for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    if (record.offset() < end.get(new TopicPartition(record.topic(), record.partition()))
                            && took(sink, record)) {
                        records++;
                    }
                }
            }
        }
        return records;
    }

    /**
     * Feeds one record to {@code sink}; false when the sink fails on it. Such a record was kept when it was
     * first read (or is the service's own); failing here would fail every start, since it stays in the topic.
     */
    private static boolean took(Consumer<ConsumerRecord<String, byte[]>> sink, ConsumerRecord<String, byte[]> record) {
        try {
            sink.accept(record);
            return true;
        } catch (RuntimeException e) {
            LOG.warnf(e, "passed over %s-%d@%d on read-back", record.topic(), record.partition(), record.offset());
            return false;
        }
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
