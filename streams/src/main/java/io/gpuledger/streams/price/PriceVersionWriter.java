package io.gpuledger.streams.price;

import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Keeps the global price-version store equal to the topic: each record is stored as received
 * (a tombstone deletes its version). Kafka Streams restores global stores by copying the topic
 * without this processor, so it must not transform anything; validation happens on lookup.
 */
public final class PriceVersionWriter implements Processor<String, byte[], Void, Void> {

    private final String storeName;
    private KeyValueStore<String, byte[]> store;

    public PriceVersionWriter(String storeName) {
        this.storeName = storeName;
    }

    @Override
    public void init(ProcessorContext<Void, Void> context) {
        store = context.getStateStore(storeName);
    }

    @Override
    public void process(Record<String, byte[]> record) {
        if (record.key() == null) {
            return;
        }
        if (record.value() == null) {
            store.delete(record.key());
        } else {
            store.put(record.key(), record.value());
        }
        PriceTable.versionWritten();
    }
}
