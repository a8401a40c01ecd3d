package io.gpuledger.model;

import java.util.Map;
import org.apache.kafka.common.serialization.Serde;

/**
 * A topic of the contract: its name, how its keys and values are written, and the topic-level
 * configuration it must be created with (compaction, retention).
 */
public record Topic<K, V>(String name, Serde<K> keySerde, Serde<V> valueSerde, Map<String, String> config) {

    public Topic {
        config = Map.copyOf(config);
    }
}
