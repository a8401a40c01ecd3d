package io.gpuledger.testing;

import io.gpuledger.broker.EmbeddedKafka;
import io.gpuledger.model.TopicAdmin;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * An embedded broker for the tests of a class, started before them and always stopped after, even
 * when a test or the set-up fails. Held in a static field it is one broker the class's tests share;
 * in an instance field, a broker of its own for each test:
 *
 * <pre>{@code
 * @RegisterExtension
 * static final BrokerExtension broker = BrokerExtension.withTopics(2);
 * }</pre>
 */
public final class BrokerExtension implements BeforeAllCallback, BeforeEachCallback, AfterEachCallback,
        AfterAllCallback {

    /** No topics are created: the test creates what it needs. */
    private static final int NO_TOPICS = 0;

    private final int partitions;
    private boolean sharedByTheClass;
    private EmbeddedKafka kafka;

    private BrokerExtension(int partitions) {
        this.partitions = partitions;
    }

    /** A broker with every topic of the contract, each of {@code partitions} partitions. */
    public static BrokerExtension withTopics(int partitions) {
        if (partitions < 1) {
            throw new IllegalArgumentException("a topic needs at least one partition, not " + partitions);
        }
        return new BrokerExtension(partitions);
    }

    /** A broker without topics. */
    public static BrokerExtension withoutTopics() {
        return new BrokerExtension(NO_TOPICS);
    }

    /** {@code 127.0.0.1:port} of the running broker. */
    public String bootstrap() {
        return kafka().bootstrapServers();
    }

    /** The running broker, for a test that stops and restarts it. */
    public EmbeddedKafka kafka() {
        if (kafka == null) {
            throw new IllegalStateException("no broker is running: register the extension with @RegisterExtension");
        }
        return kafka;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        // Only an extension in a static field is called before all tests.
        sharedByTheClass = true;
        start();
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        if (!sharedByTheClass) {
            start();
        }
    }

    @Override
    public void afterEach(ExtensionContext context) {
        if (!sharedByTheClass) {
            stop();
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        stop();
    }

    private void start() {
        kafka = EmbeddedKafka.start();
        if (partitions != NO_TOPICS) {
            TopicAdmin.ensureTopics(kafka.bootstrapServers(), partitions);
        }
    }

    private void stop() {
        if (kafka != null) {
            try {
                kafka.close();
            } finally {
                kafka = null;
            }
        }
    }
}
