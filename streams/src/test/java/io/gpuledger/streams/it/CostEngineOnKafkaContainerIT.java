package io.gpuledger.streams.it;

import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.kafka.KafkaContainer;

/**
 * The broker scenario on Apache Kafka's own container image, at the version the build uses.
 * Skipped where no Docker engine runs; the embedded-broker variant covers those machines.
 */
@Testcontainers(disabledWithoutDocker = true)
class CostEngineOnKafkaContainerIT extends CostEngineOnBrokerScenario {

    @Container
    static final KafkaContainer KAFKA = new KafkaContainer("apache/kafka:4.1.2");

    @Override
    String bootstrapServers() {
        return KAFKA.getBootstrapServers();
    }
}
