package io.gpuledger.alerts;

import io.gpuledger.alerts.webhook.RecordingReceiver;
import io.gpuledger.broker.EmbeddedKafka;
import io.gpuledger.ingest.kafka.Producers;
import io.gpuledger.ingest.price.PriceCatalog;
import io.gpuledger.ingest.price.PriceFeed;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.TopicAdmin;
import io.gpuledger.model.Topics;
import io.gpuledger.streams.CostEngine;
import io.gpuledger.streams.CostEngineConfig;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.kafka.clients.producer.KafkaProducer;

/**
 * The stages upstream of the alert service, for real: an embedded broker with the contract's
 * topics, the shipped price catalog published, and the cost engine running against it.
 */
public class EmbeddedPipelineResource implements QuarkusTestResourceLifecycleManager {

    /** The secret the finance receiver checks every delivery's signature with. */
    static final String WEBHOOK_SECRET = "whsec_ZTJlLXdlYmhvb2stc2VjcmV0";
    /** How long after a minute's end the engine takes late samples for it. */
    static final Duration GRACE = Duration.ofSeconds(5);
    private RecordingReceiver financeReceiver;
    private Once telemetry;
    private EmbeddedKafka kafka;
    private CostEngine engine;
    private Path stateDir;

    @Override
    public Map<String, String> start() {
        kafka = EmbeddedKafka.start();
        TopicAdmin.ensureTopics(kafka.bootstrapServers(), 2);
        try (KafkaProducer<String, PriceQuote> producer =
                Producers.forTopic(Topics.PRICES, kafka.bootstrapServers(), "test-prices")) {
            new PriceFeed(producer).publish(PriceCatalog.loadDefault().quotes());
        }
        try {
            stateDir = Files.createTempDirectory("gpu-ledger-streams-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        CostEngineConfig defaults = CostEngineConfig.defaults(kafka.bootstrapServers(), stateDir);
        // A short grace, so that a minute closes seconds after it ends: the rules judge closed minutes only.
        engine = new CostEngine(defaults.withCommitInterval(Duration.ofMillis(200)).withGrace(GRACE));
        engine.start();
        telemetry = new Once();
        try {
            financeReceiver = new RecordingReceiver(WEBHOOK_SECRET);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return Map.of("kafka.bootstrap.servers", kafka.bootstrapServers(),
                "gpuledger.webhooks.finance.url", financeReceiver.url().toString(),
                "gpuledger.webhooks.finance.secret", WEBHOOK_SECRET,
                // The receiver listens on the loopback interface, over plain HTTP.
                "gpuledger.webhooks.finance.allow-http", "true");
    }

    /**
     * A setup that the tests sharing this pipeline need done once, such as telemetry sent to its
     * broker: it lives as long as the broker does, not as long as the JVM.
     */
    static final class Once {
        private boolean done;

        synchronized void run(Runnable setup) {
            if (!done) {
                setup.run();
                done = true;
            }
        }
    }

    /** Gives each test the webhook receiver on 127.0.0.1 that the service delivers to, and the setup once. */
    @Override
    public void inject(TestInjector injector) {
        injector.injectIntoFields(financeReceiver, new TestInjector.MatchesType(RecordingReceiver.class));
        injector.injectIntoFields(telemetry, new TestInjector.MatchesType(Once.class));
    }

    @Override
    public void stop() {
        if (financeReceiver != null) {
            financeReceiver.close();
        }
        if (engine != null) {
            engine.close();
        }
        if (kafka != null) {
            kafka.close();
        }
        if (stateDir != null) {
            try (Stream<Path> paths = Files.walk(stateDir)) {
                paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
            } catch (IOException e) {
                // temp leftovers only
            }
        }
    }
}
