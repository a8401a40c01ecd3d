package io.gpuledger.cli;

import io.gpuledger.model.Topics;
import io.gpuledger.model.UsageRollup;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

/**
 * The job, team and pool minutes of {@code gpu.rollups.v1}, read as a downstream stage reads
 * them ({@code read_committed}, from the beginning), keeping the last record of each: a minute
 * is re-emitted as its GPUs' windows change, and its last record is its total. Hours and the
 * rolling five minutes are passed over.
 */
final class RollupLedger implements AutoCloseable {

    private static final Duration MINUTE = Duration.ofMinutes(1);

    private final KafkaConsumer<String, UsageRollup> consumer;
    private final Map<String, UsageRollup> minutes = new HashMap<>();

    RollupLedger(String bootstrapServers) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        this.consumer = new KafkaConsumer<>(props, Topics.ROLLUPS.keySerde().deserializer(),
                Topics.ROLLUPS.valueSerde().deserializer());
        List<TopicPartition> partitions = consumer.partitionsFor(Topics.ROLLUPS.name()).stream()
                .map(info -> new TopicPartition(info.topic(), info.partition())).toList();
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
    }

    /** {@code dimension|id@minute}: how minutes are keyed here. */
    static String minuteKey(UsageRollup.Dimension dimension, String id, Instant start) {
        return UsageRollup.keyOf(dimension, id) + "@" + start;
    }

    /** Reads on until {@code done} holds for the minutes seen or {@code wait} has passed. */
    void readUntil(Predicate<Map<String, UsageRollup>> done, Duration wait) {
        long deadline = System.nanoTime() + wait.toNanos();
        do {
            for (ConsumerRecord<String, UsageRollup> record : consumer.poll(Duration.ofMillis(200))) {
                UsageRollup rollup = record.value();
                if (Duration.between(rollup.windowStart(), rollup.windowEnd()).equals(MINUTE)) {
                    minutes.put(minuteKey(rollup.dimension(), rollup.id(), rollup.windowStart()), rollup);
                }
            }
        } while (!done.test(minutes) && System.nanoTime() < deadline);
    }

    Map<String, UsageRollup> minutes() {
        return Map.copyOf(minutes);
    }

    @Override
    public void close() {
        consumer.close();
    }
}
