package io.gpuledger.ingest.agent;

import io.gpuledger.ingest.agent.delivery.Delivery;
import java.util.LinkedHashMap;
import java.util.Map;

/** Publishes through {@link Delivery}: straight to Kafka, or by way of the on-disk spool. */
final class KafkaSink implements RecordSink {

    private final Delivery delivery;

    KafkaSink(Delivery delivery) {
        this.delivery = delivery;
    }

    @Override
    public void publish(String topic, String key, byte[] value, long timestamp) {
        delivery.submit(topic, key, value, timestamp);
    }

    @Override
    public Map<String, Number> stats() {
        Map<String, Number> stats = new LinkedHashMap<>();
        stats.put("sent", delivery.counters().sent());
        stats.put("spooled", delivery.counters().spooled());
        stats.put("replayed", delivery.counters().replayed());
        stats.put("dropped", delivery.dropped());
        stats.put("failed", delivery.counters().failed());
        stats.put("spoolWriteLost", delivery.spoolWriteLost());
        stats.put("spoolDamaged", delivery.spoolDamaged());
        stats.put("spooledNow", delivery.spooledNow());
        stats.put("pending", delivery.pending());
        return stats;
    }
}
