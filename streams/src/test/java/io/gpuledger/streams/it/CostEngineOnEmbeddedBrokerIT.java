package io.gpuledger.streams.it;

import io.gpuledger.broker.EmbeddedKafka;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The broker scenario on the in-JVM KRaft broker: runs everywhere, Docker or not. */
class CostEngineOnEmbeddedBrokerIT extends CostEngineOnBrokerScenario {

    private static EmbeddedKafka kafka;

    @BeforeAll
    static void startBroker() {
        kafka = EmbeddedKafka.start();
    }

    @AfterAll
    static void stopBroker() {
        kafka.close();
    }

    @Override
    String bootstrapServers() {
        return kafka.bootstrapServers();
    }
}
