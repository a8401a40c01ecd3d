package io.gpuledger.alerts.webhook;

import io.gpuledger.alerts.feed.KafkaClients;
import io.gpuledger.model.Topics;
import io.gpuledger.model.WebhookDelivery;
import java.time.Clock;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.jboss.logging.Logger;

/**
 * Delivers cost anomalies to webhook receivers.
 *
 * <p>Reads {@code cost.anomalies.v1} (key {@code <dimension>|<subject>}, value {@code CostAnomaly})
 * in its own consumer group, committed records only. Posts each anomaly to every receiver whose
 * filters it passes, and writes a {@code WebhookDelivery} to {@code alerts.webhook-deliveries.v1}
 * (key {@code <receiver>|<anomalyId>}, compacted) once the receiver has taken or refused it.
 *
 * <p>No anomaly is lost: an offset is committed only past anomalies every matching receiver has
 * taken or refused, and only once their delivery records are on the broker; one that has not
 * been taken is tried again, without limit, while the dispatcher runs. None is sent twice: the
 * delivery records, read back at start and whenever partitions are assigned, say what to skip
 * among records read again. The one exception is a process that dies between a receiver's answer
 * and the delivery record; the receiver then gets the anomaly again with the same
 * {@value WebhookSignature#ID_HEADER} (see docs/webhooks.md).
 */
public class WebhookDispatcher implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(WebhookDispatcher.class);
    private static final long STOP_TIMEOUT_MILLIS = TimeUnit.SECONDS.toMillis(10);

    private final String bootstrapServers;
    private final String groupId;
    private final Optional<String> instanceId;
    private final Optional<Duration> sessionTimeout;
    private final List<WebhookReceiver> receivers;
    private final DeliveryPolicy policy;
    private final Clock clock;
    private final Map<String, ReceiverCounters> counters;
    private final AtomicLong unreadable = new AtomicLong();
    private volatile Runnable beforeCommit = () -> { };
    private DispatchLoop loop;
    private Thread worker;

    /**
     * @param groupId    the consumer group on {@code cost.anomalies.v1}; keep it when restarting
     * @param instanceId this instance's id as a static member of that group, if it has one
     * @param receivers  where anomalies go; names must be unique
     */
    public WebhookDispatcher(String bootstrapServers, String groupId, Optional<String> instanceId,
            List<WebhookReceiver> receivers, DeliveryPolicy policy, Clock clock) {
        this(bootstrapServers, groupId, instanceId, Optional.empty(), receivers, policy, clock);
    }

    /** @param sessionTimeout how long the group waits for a member that stopped answering; empty: Kafka's */
    public WebhookDispatcher(String bootstrapServers, String groupId, Optional<String> instanceId,
            Optional<Duration> sessionTimeout, List<WebhookReceiver> receivers, DeliveryPolicy policy, Clock clock) {
        this.sessionTimeout = Objects.requireNonNull(sessionTimeout, "sessionTimeout");
        this.bootstrapServers = Objects.requireNonNull(bootstrapServers, "bootstrapServers");
        this.groupId = Objects.requireNonNull(groupId, "groupId");
        this.instanceId = Objects.requireNonNull(instanceId, "instanceId");
        this.receivers = List.copyOf(receivers);
        this.policy = Objects.requireNonNull(policy, "policy");
        this.clock = Objects.requireNonNull(clock, "clock");
        Map<String, ReceiverCounters> byName = new LinkedHashMap<>();
        for (WebhookReceiver receiver : this.receivers) {
            if (byName.put(receiver.name(), new ReceiverCounters()) != null) {
                throw new IllegalArgumentException("two webhook receivers are named " + receiver.name());
            }
        }
        this.counters = Collections.unmodifiableMap(byName);
    }

    /** Starts reading and delivering on a thread of its own; does nothing when already running. */
    public synchronized void start() {
        if (isRunning()) {
            return;
        }
        Clients clients = Clients.open(bootstrapServers, groupId, instanceId, sessionTimeout, policy, clock);
        loop = new DispatchLoop(receivers, counters, clients, policy, clock, () -> beforeCommit.run(),
                unreadable::incrementAndGet);
        worker = new Thread(loop::run, "webhook-dispatcher");
        worker.setDaemon(true);
        worker.start();
        LOG.infof("delivering %s from %s to %s", Topics.COST_ANOMALIES.name(), bootstrapServers, receivers);
    }

    /**
     * Stops delivering and waits for the thread to end: a backoff wait and a request in flight
     * are cut short, what has been delivered is committed. Returns within a few seconds whatever
     * the receivers do.
     */
    public synchronized void stop() {
        if (worker == null) {
            return;
        }
        loop.stop();
        try {
            worker.join(STOP_TIMEOUT_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (worker.isAlive()) {
            LOG.warnf("webhook dispatcher thread still running %d ms after stop", STOP_TIMEOUT_MILLIS);
        }
        worker = null;
        loop = null;
    }

    @Override
    public void close() {
        stop();
    }

    /** Whether the delivery thread is alive: false before start, after stop, and after a fatal error. */
    public synchronized boolean isRunning() {
        return worker != null && worker.isAlive();
    }

    /** The counters of each receiver, by name, in configuration order. */
    public Map<String, ReceiverCounters> counters() {
        return counters;
    }

    public ReceiverCounters counters(String receiver) {
        ReceiverCounters found = counters.get(receiver);
        if (found == null) {
            throw new IllegalArgumentException("no webhook receiver is named " + receiver);
        }
        return found;
    }

    /** Records on {@code cost.anomalies.v1} that are not valid anomalies: skipped and logged. */
    public long unreadable() {
        return unreadable.get();
    }

    /**
     * Runs after the delivery records are flushed and before each offset commit; for tests, which
     * throw from it to play a process that dies at that point.
     */
    void beforeCommit(Runnable hook) {
        this.beforeCommit = hook;
    }

    /** The Kafka and HTTP clients of one run, closed together when it ends. */
    record Clients(KafkaConsumer<String, byte[]> consumer, KafkaProducer<String, WebhookDelivery> producer,
            DeliveryLedger ledger, WebhookSender sender) {

        static Clients open(String bootstrapServers, String groupId, Optional<String> instanceId,
                Optional<Duration> sessionTimeout, DeliveryPolicy policy, Clock clock) {
            KafkaProducer<String, WebhookDelivery> producer = new KafkaProducer<>(producerConfig(bootstrapServers,
                    groupId), Topics.WEBHOOK_DELIVERIES.keySerde().serializer(),
                    Topics.WEBHOOK_DELIVERIES.valueSerde().serializer());
            try {
                KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(
                        consumerConfig(bootstrapServers, groupId, instanceId, sessionTimeout), new StringDeserializer(),
                        new ByteArrayDeserializer());
                try {
                    return new Clients(consumer, producer, new DeliveryLedger(bootstrapServers, groupId + "-ledger"),
                            new WebhookSender(policy, clock));
                } catch (RuntimeException e) {
                    consumer.close(CloseOptions.timeout(Duration.ZERO));
                    throw e;
                }
            } catch (RuntimeException e) {
                producer.close(Duration.ZERO);
                throw e;
            }
        }

        void close() {
            sender.close();
            quietly("anomaly consumer", () -> consumer.close(KafkaClients.leavingTheGroup(Duration.ofSeconds(5))));
            quietly("ledger consumer", ledger::close);
            quietly("delivery producer", () -> producer.close(Duration.ofSeconds(5)));
        }

        private static void quietly(String what, Runnable close) {
            try {
                close.run();
            } catch (RuntimeException e) {
                LOG.warnf("closing the %s: %s", what, e.getMessage());
            }
        }

        private static Properties consumerConfig(String bootstrapServers, String groupId,
                Optional<String> instanceId, Optional<Duration> sessionTimeout) {
            Properties props = KafkaClients.consumer(bootstrapServers, groupId, instanceId, sessionTimeout);
            props.put(ConsumerConfig.CLIENT_ID_CONFIG, groupId + "-anomalies");
            return props;
        }

        private static Properties producerConfig(String bootstrapServers, String groupId) {
            return KafkaClients.producer(bootstrapServers, groupId + "-deliveries");
        }
    }
}
