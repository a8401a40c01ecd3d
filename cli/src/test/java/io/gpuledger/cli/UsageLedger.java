package io.gpuledger.cli;

import io.gpuledger.model.GpuUsage;
import io.gpuledger.model.Topics;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

/**
 * {@code gpu.usage.v1} read as a downstream stage reads it, {@code read_committed}, keeping the
 * last record of each (GPU, window): a window is re-emitted as samples arrive, and its last
 * record is its total.
 */
final class UsageLedger implements AutoCloseable {

    /** One GPU's one-minute window. */
    record Window(String gpuUuid, Instant start) {
    }

    private final KafkaConsumer<String, GpuUsage> consumer;
    private final List<TopicPartition> partitions;
    private final Map<Window, GpuUsage> totals = new HashMap<>();
    private Instant latestStart = Instant.EPOCH;
    private long records;

    UsageLedger(String bootstrapServers) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        this.consumer = new KafkaConsumer<>(props, Topics.USAGE.keySerde().deserializer(),
                Topics.USAGE.valueSerde().deserializer());
        this.partitions = consumer.partitionsFor(Topics.USAGE.name()).stream()
                .map(info -> new TopicPartition(info.topic(), info.partition())).toList();
        // Assigned, not subscribed: a reader with no group cannot be told to wait for a rebalance.
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
    }

    /** Reads what has been committed since the last call, waiting at most {@code wait} for it. */
    void poll(Duration wait) {
        for (ConsumerRecord<String, GpuUsage> record : consumer.poll(wait)) {
            GpuUsage usage = record.value();
            totals.put(new Window(usage.gpuUuid(), usage.windowStart()), usage);
            if (usage.windowStart().isAfter(latestStart)) {
                latestStart = usage.windowStart();
            }
            records++;
        }
    }

    /**
     * Reads up to the topic's last stable offset as it is now: once the engine has committed
     * its last input, everything it made is before that point. Fails once {@code timeout} passes
     * without it reading further: on a loaded machine a day of windows takes a while to read, and only a
     * reader that stopped moving says that something is wrong.
     */
    void readToEnd(Duration timeout) {
        Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
        long deadline = System.nanoTime() + timeout.toNanos();
        long readBefore = records;
        long position = position();
        while (partitions.stream().anyMatch(partition -> consumer.position(partition) < ends.get(partition))) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("gpu.usage.v1 not read to its end: no further for " + timeout.toSeconds()
                        + " s, " + (records - readBefore) + " records read since its end was taken");
            }
            poll(Duration.ofMillis(200));
            // Aborted transactions' records are passed over: the position says how far it read.
            long now = position();
            if (now > position) {
                position = now;
                deadline = System.nanoTime() + timeout.toNanos();
            }
        }
    }

    private long position() {
        return partitions.stream().mapToLong(consumer::position).sum();
    }

    /**
     * Reads to the end, then on as more is committed, until {@code done} holds for the windows
     * seen or {@code wait} has passed since it read to the end; whether it holds. What is missing
     * then is the caller's to report.
     */
    boolean readUntil(Predicate<Set<Window>> done, Duration wait) {
        readToEnd(wait);
        long deadline = System.nanoTime() + wait.toNanos();
        while (!done.test(totals.keySet())) {
            if (System.nanoTime() >= deadline) {
                return false;
            }
            poll(Duration.ofMillis(200));
        }
        return true;
    }

    /** Start of the latest window seen committed so far. */
    Instant latestStart() {
        return latestStart;
    }

    /** Records read, every re-emission of a window counted. */
    long records() {
        return records;
    }

    Map<Window, GpuUsage> windows() {
        return Map.copyOf(totals);
    }

    @Override
    public void close() {
        consumer.close();
    }
}
