package io.gpuledger.ingest.kafka;

import io.gpuledger.model.KafkaClientSettings;
import io.gpuledger.model.Topic;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/** Producers of contract records: idempotent, acknowledged by all replicas, compressed. */
public final class Producers {

    private Producers() {
    }

    public static Properties config(String bootstrapServers, String clientId) {
        return KafkaClientSettings.producer(bootstrapServers, clientId, 5);
    }

    public static <K, V> KafkaProducer<K, V> forTopic(Topic<K, V> topic, String bootstrapServers, String clientId) {
        return new KafkaProducer<>(config(bootstrapServers, clientId),
                topic.keySerde().serializer(), topic.valueSerde().serializer());
    }

    /**
     * One producer for several topics of the contract: records are written with each topic's own
     * serdes by {@link #record}, so one connection and one idempotent sequence serve them all.
     */
    public static KafkaProducer<byte[], byte[]> forTopics(String bootstrapServers, String clientId) {
        return new KafkaProducer<>(config(bootstrapServers, clientId), new ByteArraySerializer(),
                new ByteArraySerializer());
    }

    /** A record for {@code topic}, key and value written with the topic's serdes, for a {@link #forTopics} producer. */
    public static <K, V> ProducerRecord<byte[], byte[]> record(Topic<K, V> topic, long timestamp, K key, V value) {
        return new ProducerRecord<>(topic.name(), null, timestamp,
                topic.keySerde().serializer().serialize(topic.name(), key),
                topic.valueSerde().serializer().serialize(topic.name(), value));
    }
}
