package io.gpuledger.finance;

import io.gpuledger.model.GpuHour;
import io.gpuledger.model.InvalidRecordException;
import io.gpuledger.model.Json;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.Topics;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.KafkaConsumer;

/** The engine's GPU hours and the price versions, read from Kafka for reconciliation. */
public final class LedgerTopics {

    /** What was read, and how many records were no hour or price (left out). */
    public record Read<T>(List<T> records, long unreadable) {
    }

    private LedgerTopics() {
    }

    /**
     * The GPU hours that start in {@code [from, to)}, one per GPU and hour (the latest record of each), each partition
     * read until its records are dated {@link FocusExport#LATEST_ARRIVAL} after {@code to}, or to its end with
     * {@code readToEnd} (an hour sent again after the engine's state was reset comes behind later hours).
     */
    public static Read<GpuHour> hours(String bootstrap, Instant from, Instant to, Duration timeout,
            boolean readToEnd) {
        Map<String, GpuHour> latest = new LinkedHashMap<>();
        long[] unreadable = {0};
        try (KafkaConsumer<String, byte[]> consumer = TopicRange.consumer(bootstrap, "gpu-ledger-reconcile", timeout)) {
            TopicRange.read(consumer, Topics.HOURS.name(), from, FocusExport.readUntil(to, readToEnd), timeout,
                    record -> {
                        try {
                            GpuHour hour = Json.read(record.value(), GpuHour.class);
                            if (!hour.windowStart().isBefore(from) && hour.windowStart().isBefore(to)) {
                                latest.put(hour.gpuUuid() + "@" + hour.windowStart(), hour);
                            }
                        } catch (InvalidRecordException e) {
                            unreadable[0]++;
                        }
                    });
        }
        return new Read<>(new ArrayList<>(latest.values()), unreadable[0]);
    }

    /** Every price version on {@code pricing.quotes.v1}, the latest record of each key. */
    public static Read<PriceQuote> prices(String bootstrap, Duration timeout) {
        Map<String, PriceQuote> latest = new LinkedHashMap<>();
        long[] unreadable = {0};
        try (KafkaConsumer<String, byte[]> consumer = TopicRange.consumer(bootstrap, "gpu-ledger-reconcile", timeout)) {
            TopicRange.read(consumer, Topics.PRICES.name(), null, null, timeout, record -> {
                try {
                    PriceQuote quote = Json.read(record.value(), PriceQuote.class);
                    latest.put(quote.key(), quote);
                } catch (InvalidRecordException e) {
                    unreadable[0]++;
                }
            });
        }
        return new Read<>(new ArrayList<>(latest.values()), unreadable[0]);
    }
}
