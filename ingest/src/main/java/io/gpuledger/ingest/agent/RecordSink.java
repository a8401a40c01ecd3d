package io.gpuledger.ingest.agent;

/** Where the agent's records go: Kafka (through delivery and the spool), or standard output in a dry run. */
public interface RecordSink {

    void publish(String topic, String key, byte[] value, long timestamp);

    /** Figures about delivery for the health endpoint (sent, spooled, dropped, …), by name. */
    default java.util.Map<String, Number> stats() {
        return java.util.Map.of();
    }
}
