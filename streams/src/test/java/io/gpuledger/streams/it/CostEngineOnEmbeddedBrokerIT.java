package io.gpuledger.streams.it;

import io.gpuledger.testing.BrokerExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The broker scenario on the in-JVM KRaft broker: runs everywhere, Docker or not. */
class CostEngineOnEmbeddedBrokerIT extends CostEngineOnBrokerScenario {

    @RegisterExtension
    static final BrokerExtension broker = BrokerExtension.withoutTopics();

    @Override
    String bootstrapServers() {
        return broker.bootstrap();
    }
}
