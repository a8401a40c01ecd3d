package io.gpuledger.finance;

import io.gpuledger.model.KafkaClientSettings;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/** A topic read once, without a consumer group, over a range of record times: what finance's commands read. */
final class TopicRange {

    private TopicRange() {
    }

    /** A consumer of no group that commits nothing, with the client settings every command takes. */
    static KafkaConsumer<String, byte[]> consumer(String bootstrap, String clientId, Duration timeout) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        KafkaClientSettings.applyTo(props);
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000);
        props.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
        return new KafkaConsumer<>(props, new StringDeserializer(), new ByteArrayDeserializer());
    }

    /**
     * Reads {@code topic} up to its end as it is now, from the first record dated {@code from} or later (null:
     * from its beginning), each partition until its records are dated after {@code until} (null: to its end).
     * Tombstones and empty values are skipped.
     */
    static void read(KafkaConsumer<String, byte[]> consumer, String topic, Instant from, Instant until,
            Duration timeout, Consumer<ConsumerRecord<String, byte[]>> each) {
        List<PartitionInfo> infos = consumer.partitionsFor(topic, timeout);
        if (infos == null || infos.isEmpty()) {
            return;
        }
        List<TopicPartition> partitions = new ArrayList<>();
        infos.forEach(info -> partitions.add(new TopicPartition(topic, info.partition())));
        consumer.assign(partitions);
        Map<TopicPartition, Long> ends = new HashMap<>(consumer.endOffsets(partitions, timeout));
        if (from == null) {
            consumer.seekToBeginning(partitions);
        } else {
            Map<TopicPartition, Long> at = new HashMap<>();
            partitions.forEach(partition -> at.put(partition, from.toEpochMilli()));
            Map<TopicPartition, OffsetAndTimestamp> starts = consumer.offsetsForTimes(at, timeout);
            for (TopicPartition partition : partitions) {
                OffsetAndTimestamp start = starts.get(partition);
                consumer.seek(partition, start == null ? ends.get(partition) : start.offset());
            }
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            ends.entrySet().removeIf(end -> consumer.position(end.getKey()) >= end.getValue());
            if (ends.isEmpty()) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("could not read " + topic + " to its end within " + timeout);
            }
            consumer.pause(consumer.assignment().stream().filter(partition -> !ends.containsKey(partition)).toList());
            for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                TopicPartition partition = new TopicPartition(record.topic(), record.partition());
                if (until != null && record.timestamp() > until.toEpochMilli()) {
                    ends.remove(partition);
                    continue;
                }
                if (ends.containsKey(partition) && record.value() != null && record.value().length > 0) {
                    each.accept(record);
                }
            }
        }
    }
}
