package io.gpuledger.finance;

import io.gpuledger.model.CurrencyRates;
import io.gpuledger.model.GpuHour;
import io.gpuledger.model.InvalidRecordException;
import io.gpuledger.model.Json;
import io.gpuledger.model.KafkaClientSettings;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.Topics;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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

/**
 * {@code gpu-ledger export focus}: the GPU hours on {@code gpu.hours.v1} that start in {@code [from, to)} as a
 * FOCUS file, priced at the list prices on {@code pricing.quotes.v1}. Reads without a consumer group, so it
 * commits nothing and can run beside the alert service as often as finance likes. A record that cannot be read
 * is counted and left out; the export goes on.
 *
 * @param team    only the rows charged to this team (empty: all)
 * @param job     only the rows charged to this job (empty: all)
 * @param timeout how long reading a topic to its end may take
 */
public record FocusExport(String bootstrap, Instant from, Instant to, Optional<String> team, Optional<String> job,
        FocusAccount account, String currency, Duration timeout) {

    /**
     * How long after an hour's start its record may still arrive: an hour is sent when its last minute closes,
     * or an hour or so after its GPU fell silent, or later while the engine works off a backlog. A partition is
     * read until its records start this long after {@code to}.
     */
    static final Duration LATEST_ARRIVAL = Duration.ofHours(6);

    /** What an export wrote. */
    public record Summary(long hours, long rows, long corrections, long repeats, long unreadable) {
    }

    public FocusExport {
        if (!to.isAfter(from)) {
            throw new IllegalArgumentException("--to must be after --from");
        }
    }

    /** Reads the topics and writes the file. */
    public Summary writeTo(Path file) {
        FocusFile.Format.of(file);
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        KafkaClientSettings.applyTo(props);
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, "gpu-ledger-focus-export");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000);
        props.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
        try (KafkaConsumer<String, byte[]> consumer =
                new KafkaConsumer<>(props, new StringDeserializer(), new ByteArrayDeserializer());
                FocusFile focus = new FocusFile()) {
            ListPrices prices = new ListPrices(CurrencyRates.shipped(currency));
            long[] unreadable = {0};
            read(consumer, Topics.PRICES.name(), null, null, record -> {
                try {
                    prices.add(Json.read(record.value(), PriceQuote.class));
                } catch (InvalidRecordException e) {
                    unreadable[0]++;
                }
            });
            FocusLedger ledger = new FocusLedger(new FocusRows(prices, account));
            long[] hours = {0};
            read(consumer, Topics.HOURS.name(), from, to.plus(LATEST_ARRIVAL), record -> {
                GpuHour hour;
                try {
                    hour = Json.read(record.value(), GpuHour.class);
                } catch (InvalidRecordException e) {
                    unreadable[0]++;
                    return;
                }
                if (hour.windowStart().isBefore(from) || !hour.windowStart().isBefore(to)) {
                    return;
                }
                hours[0]++;
                for (FocusRow row : ledger.take(hour)) {
                    if (wanted(row)) {
                        focus.add(row);
                    }
                }
            });
            focus.writeTo(file);
            return new Summary(hours[0], focus.rows(), ledger.corrections(), ledger.repeats(), unreadable[0]);
        }
    }

    private boolean wanted(FocusRow row) {
        return team.map(wanted -> wanted.equals(row.text(FocusColumn.X_TEAM))).orElse(true)
                && job.map(wanted -> wanted.equals(row.text(FocusColumn.X_JOB_ID))).orElse(true);
    }

    /**
     * Reads {@code topic} up to its end as it is now, from the first record dated {@code from} or later (null:
     * from its beginning), each partition until its records are dated after {@code until} (null: to its end).
     * Tombstones and empty values are skipped.
     */
    private void read(KafkaConsumer<String, byte[]> consumer, String topic, Instant from, Instant until,
            Consumer<ConsumerRecord<String, byte[]>> each) {
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
