package io.gpuledger.model;

import com.fasterxml.jackson.databind.JavaType;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/**
 * Kafka serde of one contract record type. Deserialization validates: an invalid record throws
 * {@link InvalidRecordException}, which the consuming stage turns into a dead letter.
 */
public final class JsonSerde<T> implements Serde<T>, Serializer<T>, Deserializer<T> {

    private final JavaType type;

    public JsonSerde(Class<T> type) {
        this(Json.MAPPER.constructType(type));
    }

    private JsonSerde(JavaType type) {
        this.type = type;
    }

    /** The serde of {@link CloudEvent}s whose data is a {@code dataType}. */
    public static <D> JsonSerde<CloudEvent<D>> cloudEvents(Class<D> dataType) {
        return new JsonSerde<>(Json.MAPPER.getTypeFactory().constructParametricType(CloudEvent.class, dataType));
    }

    @Override
    public byte[] serialize(String topic, T data) {
        return data == null ? null : Json.write(data);
    }

    @Override
    public T deserialize(String topic, byte[] data) {
        return data == null ? null : Json.read(data, type);
    }

    @Override
    public void configure(java.util.Map<String, ?> configs, boolean isKey) {
        // Nothing to configure: the mapping is fixed by the contract.
    }

    @Override
    public void close() {
        // Stateless.
    }

    @Override
    public Serializer<T> serializer() {
        return this;
    }

    @Override
    public Deserializer<T> deserializer() {
        return this;
    }
}
