package io.gpuledger.streams.state;

import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/** A {@link Codec} as a Kafka serde, for the engine's own repartition topics. */
public final class CodecSerde<T> implements Serde<T> {

    private final Codec<T> codec;

    public CodecSerde(Codec<T> codec) {
        this.codec = codec;
    }

    @Override
    public Serializer<T> serializer() {
        return (topic, value) -> value == null ? null : codec.toBytes(value);
    }

    @Override
    public Deserializer<T> deserializer() {
        return (topic, bytes) -> bytes == null ? null : codec.fromBytes(bytes);
    }
}
