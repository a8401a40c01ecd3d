package io.gpuledger.alerts;

import io.gpuledger.alerts.anomaly.AnomalyDesk;
import io.gpuledger.alerts.feed.KafkaClients;
import io.gpuledger.alerts.feed.TopicReader;
import io.gpuledger.alerts.recommend.RecommendationDesk;
import io.gpuledger.model.Topics;
import io.micrometer.prometheus.PrometheusMeterRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The two readers of the engine's topics and the record handlers they feed: one reader of capacity notices
 * alone, so that an EVACUATE never waits behind a burst of windows, and one of the rest. Each poll's records
 * are handled, what they caused is sent ({@link #flush}), and then their offsets are committed. The price
 * versions read before are read back first. A record a handler refuses goes to a dead-letter topic.
 */
@ApplicationScoped
public class ReaderStage implements Stage {

    /** Records a fleet poll takes: every GPU's window comes at once at a minute's close, and each poll commits. */
    static final int FLEET_POLL_RECORDS = 5_000;

    private final PrometheusMeterRegistry registry;
    private final Clock clock;
    private final AlertSettings settings;
    private final String bootstrapServers;
    private final WindowRecords windows;
    private final PriceRecords prices;
    private final CapacityNotices notices;
    private final RecommendationDesk desk;
    private final AnomalyDesk anomalies;
    private volatile boolean open;
    private Producer<String, byte[]> deadLetters;
    private TopicReader capacityReader;
    private TopicReader fleetReader;

    /** Each handler is a bean of its own, built when its reader first hands it a record. */
    ReaderStage(PrometheusMeterRegistry registry, Clock clock, AlertSettings settings, KafkaSettings kafka,
            WindowRecords windows, PriceRecords prices, CapacityNotices notices, RecommendationDesk desk,
            AnomalyDesk anomalies) {
        this.registry = registry;
        this.clock = clock;
        this.settings = settings;
        this.bootstrapServers = kafka.bootstrapServers();
        this.windows = windows;
        this.prices = prices;
        this.notices = notices;
        this.desk = desk;
        this.anomalies = anomalies;
    }

    @Override
    public void open() {
        settings.consumer().instanceId().ifPresent(KafkaClients::checkedInstanceId);
        deadLetters = new KafkaProducer<>(KafkaClients.producer(bootstrapServers, "gpu-ledger-alerts-dead-letters"),
                new StringSerializer(), new ByteArraySerializer());
        capacityReader = new TopicReader("alerts-capacity", groupMember(groupId() + "-capacity"),
                Map.of(Topics.CAPACITY_EVENTS.name(), notices::onNotice,
                        Topics.CAPACITY_EVENTS_ENRICHED.name(), notices::onEnrichedNotice),
                deadLetters, this::flush, registry, clock);
        fleetReader = new TopicReader("alerts-fleet", fleetConsumer(), fleetHandlers(), deadLetters, this::flush,
                registry, clock);
        prices.readBack(bootstrapServers, groupId());
        capacityReader.start();
        fleetReader.start();
        open = true;
    }

    private Map<String, TopicReader.Handler> fleetHandlers() {
        Map<String, TopicReader.Handler> byTopic = new HashMap<>();
        byTopic.put(Topics.USAGE.name(), windows::onUsage);
        byTopic.put(Topics.ROLLUPS.name(), windows::onRollup);
        byTopic.put(Topics.JOB_ECONOMICS.name(), windows::onJobEconomics);
        byTopic.put(Topics.PRICES.name(), prices::onPrice);
        byTopic.put(Topics.RECONCILIATION.name(), prices::onReconciliation);
        byTopic.put(Topics.JOB_PROGRESS.name(), windows::onJobProgress);
        // Registered now, so that each topic's count is exported from the start at zero.
        DeadLetterCounts deadLettered = new DeadLetterCounts(registry);
        for (var topic : Topics.DEAD_LETTERS) {
            byTopic.put(topic.name(), deadLettered::onDeadLetter);
        }
        return byTopic;
    }

    private Properties fleetConsumer() {
        Properties consumer = groupMember(groupId());
        consumer.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, FLEET_POLL_RECORDS);
        return consumer;
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    /** Stops both readers, then the dead-letter producer. */
    @Override
    public void close() {
        open = false;
        // Each part only if it was made: an open that failed halfway is closed too.
        if (capacityReader != null) {
            capacityReader.stop();
        }
        if (fleetReader != null) {
            fleetReader.stop();
        }
        if (deadLetters != null) {
            deadLetters.close(Duration.ofSeconds(5));
        }
    }

    @Override
    public void sweep(Instant now) {
        windows.sweep(now);
    }

    /** Whether both readers have their partitions. */
    public boolean ready() {
        return open && capacityReader.ready() && fleetReader.ready();
    }

    /** The readers' health, for liveness: each reads, or waits to read again after a failure. */
    public List<TopicReader.Health> health() {
        return open ? List.of(capacityReader.health(), fleetReader.health()) : List.of();
    }

    private String groupId() {
        return settings.consumer().groupId();
    }

    /** A consumer in {@code group}, this instance's static member id in it if it has one. */
    private Properties groupMember(String group) {
        return KafkaClients.consumer(bootstrapServers, group, settings.consumer().instanceId(),
                settings.replica().groupSessionTimeout());
    }

    /** Sends what the readers' records caused before their offsets are committed. */
    private void flush() {
        desk.flush();
        anomalies.flush();
    }
}
