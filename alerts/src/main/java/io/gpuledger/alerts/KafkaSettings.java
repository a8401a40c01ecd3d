package io.gpuledger.alerts;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithName;

/** The Kafka cluster the service reads the cost engine's topics from and publishes to. */
@ConfigMapping(prefix = "kafka")
public interface KafkaSettings {

    @WithName("bootstrap.servers")
    String bootstrapServers();
}
