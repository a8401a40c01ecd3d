package io.gpuledger.streams.price;

import io.gpuledger.model.InvalidRecordException;
import io.gpuledger.model.Json;
import io.gpuledger.model.PriceQuote;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the global price-version store equal to the topic: each record is stored as received
 * (a tombstone deletes its version). Kafka Streams restores global stores by copying the topic
 * without this processor, so it must not transform anything; validation happens on lookup.
 *
 * <p>A record that is not a valid quote under its own version key is stored all the same (the
 * lookup passes over it, as it does after a restore), and is logged and counted here as it
 * arrives: Kafka Streams metric {@code invalid-records-total} of group
 * {@code stream-gpuledger-metrics}, tag {@code gpuledger-id=prices}. A record without a key has no
 * version to be: it is counted and left out. Nothing here throws: the global store's thread has
 * no exception handler, and a record that failed it would fail it again on every restart.
 */
public final class PriceVersionWriter implements Processor<String, byte[], Void, Void> {

    private static final Logger LOG = LoggerFactory.getLogger(PriceVersionWriter.class);

    private final String storeName;
    private final PriceWrites writes;
    private KeyValueStore<String, byte[]> store;
    private ProcessorContext<Void, Void> context;
    private Sensor invalidCounter;

    /** @param writes told of each version written, for the price tables that read the store */
    public PriceVersionWriter(String storeName, PriceWrites writes) {
        this.storeName = storeName;
        this.writes = writes;
    }

    @Override
    public void init(ProcessorContext<Void, Void> context) {
        this.context = context;
        store = context.getStateStore(storeName);
        invalidCounter = context.metrics().addRateTotalSensor("gpuledger", "prices", "invalid-records",
                Sensor.RecordingLevel.INFO);
    }

    @Override
    public void process(Record<String, byte[]> record) {
        if (record.key() == null) {
            passOver("$key: no key, so no price version");
            return;
        }
        if (record.value() == null) {
            store.delete(record.key());
        } else {
            judge(record.key(), record.value());
            store.put(record.key(), record.value());
        }
        writes.written();
    }

    /** Logs and counts a record the price table will pass over; the record is stored all the same. */
    private void judge(String key, byte[] raw) {
        try {
            PriceQuote quote = Json.read(raw, PriceQuote.class);
            if (!quote.key().equals(key)) {
                passOver("$key: record key '" + key + "' must be '" + quote.key() + "', the version the quote is");
            }
        } catch (InvalidRecordException e) {
            passOver(e.getMessage());
        }
    }

    private void passOver(String reason) {
        invalidCounter.record();
        String where = context.recordMetadata()
                .map(source -> source.topic() + "-" + source.partition() + "@" + source.offset())
                .orElse("a price record");
        LOG.warn("{}: not a valid price version, passed over when pricing: {}", where, reason);
    }
}
