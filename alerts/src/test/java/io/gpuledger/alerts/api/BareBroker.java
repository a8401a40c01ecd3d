package io.gpuledger.alerts.api;

import io.gpuledger.broker.EmbeddedKafka;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.util.Map;

/**
 * An embedded broker alone: no cost engine and no records, so the service answers from what its stages hold,
 * which a test puts there itself. Every API test names this one resource, and so shares one start of the
 * service; each reads back only what it put (its own ids, targets and subjects).
 */
public class BareBroker implements QuarkusTestResourceLifecycleManager {

    private EmbeddedKafka kafka;

    @Override
    public Map<String, String> start() {
        kafka = EmbeddedKafka.start();
        return Map.of("kafka.bootstrap.servers", kafka.bootstrapServers());
    }

    @Override
    public void stop() {
        if (kafka != null) {
            kafka.close();
        }
    }
}
