package io.gpuledger.alerts;

import io.gpuledger.alerts.anomaly.AnomalyDesk;
import io.gpuledger.alerts.anomaly.AnomalyWatch;
import io.gpuledger.alerts.anomaly.Budgets;
import io.gpuledger.alerts.anomaly.DarkGpus;
import io.gpuledger.alerts.feed.KafkaClients;
import io.gpuledger.alerts.feed.ReplicaLease;
import io.gpuledger.alerts.feed.TopicReader;
import io.gpuledger.alerts.fleet.FleetBoard;
import io.gpuledger.alerts.metrics.FleetMetrics;
import io.gpuledger.alerts.metrics.MetricCatalogue;
import io.gpuledger.alerts.recommend.GpuCatalog;
import io.gpuledger.alerts.recommend.RecommendationDesk;
import io.gpuledger.alerts.recommend.RecommendationRules;
import io.gpuledger.alerts.webhook.DeliveryPolicy;
import io.gpuledger.alerts.webhook.ReceiverCounters;
import io.gpuledger.alerts.webhook.WebhookDispatcher;
import io.gpuledger.alerts.webhook.WebhookReceiver;
import io.gpuledger.alerts.webhook.WebhookReceivers;
import io.gpuledger.model.CurrencyRates;
import io.gpuledger.model.TopicAdmin;
import io.gpuledger.model.Topics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheus.PrometheusMeterRegistry;
import io.quarkus.runtime.Quarkus;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.jboss.logging.Logger;

/**
 * Starts the alert service's stages in order, once this replica is the active one (at once without a lease).
 * The board and the desks are beans of their own ({@link Stage}), built by CDI whenever first asked for and
 * opened here, in this order: the board, the recommendation desk (its book read back), the anomaly desk (its
 * ids read back). On them are then built the rules and the record handlers, a reader of capacity notices alone
 * (an EVACUATE never waits behind a burst of windows) and one of the rest, and the webhooks. At shutdown the
 * readers stop first and the stages close in the reverse order of opening.
 */
@ApplicationScoped
public class AlertService {

    private static final Logger LOG = Logger.getLogger(AlertService.class);
    /** Records a fleet poll takes: every GPU's window comes at once at a minute's close, and each poll commits. */
    static final int FLEET_POLL_RECORDS = 5_000;

    private final MeterRegistry registry;
    private final Clock clock;
    private final AlertSettings settings;
    private final String bootstrapServers;
    private final FleetBoard board;
    private final RecommendationDesk desk;
    private final AnomalyDesk anomalies;
    /** The stages opened, in the order they were. */
    private final List<Stage> opened = new CopyOnWriteArrayList<>();
    private volatile boolean started;
    private FleetMetrics metrics;
    private AnomalyWatch watch;
    private DarkGpus darkGpus;
    private RecommendationRules rules;
    private WindowRecords windows;
    private PriceRecords prices;
    private Producer<String, byte[]> deadLetters;
    private TopicReader capacityReader;
    private TopicReader fleetReader;
    private volatile WebhookDispatcher webhooks;
    private ReplicaLease lease;

    /** Takes the Prometheus registry itself: Quarkus's composite around it would hold every series twice. */
    public AlertService(PrometheusMeterRegistry registry, Clock clock, AlertSettings settings, KafkaSettings kafka,
            FleetBoard board, RecommendationDesk desk, AnomalyDesk anomalies) {
        this.registry = registry;
        this.clock = clock;
        this.settings = settings;
        this.bootstrapServers = kafka.bootstrapServers();
        this.board = board;
        this.desk = desk;
        this.anomalies = anomalies;
    }

    /** The wall clock; tests of the rules pin their own. */
    public static class Clocks {
        @Produces
        @Singleton
        Clock clock() {
            return Clock.systemUTC();
        }
    }

    void onStart(@Observes StartupEvent event) {
        // Once, before the lease (a partition of one of them) or the readers are asked for
        if (settings.topics().create()) {
            TopicAdmin.ensureTopics(bootstrapServers, settings.topics().partitions());
        }
        if (!settings.replica().lease()) {
            start();
            return;
        }
        lease = new ReplicaLease(bootstrapServers, groupId() + "-lease", clock.instant(),
                settings.replica().sessionTimeout(), this::start, AlertService::quitOnLostLease);
        lease.start();
        LOG.info("a standby replica until it holds the lease");
    }

    void onStop(@Observes ShutdownEvent event) {
        stop();
        if (lease != null) {
            lease.close();
        }
    }

    /**
     * The lease moved on while this replica still ran as the active one (it was cut off from the cluster for
     * longer than the session): another replica now publishes, and this one cannot tell what it missed. It
     * ends, to be started again as a standby.
     */
    private static void quitOnLostLease() {
        LOG.error("the lease of the active replica was lost: stopping, to start again as a standby");
        Quarkus.asyncExit(3);
    }

    public synchronized void start() {
        if (started) {
            return;
        }
        settings.consumer().instanceId().ifPresent(KafkaClients::checkedInstanceId);
        int shards = settings.metrics().gpuShards();
        if (shards < 1) {
            throw new IllegalArgumentException("gpuledger.metrics.gpu-shards must be 1 or more, not " + shards);
        }
        // Apart, the per-GPU meters go to a registry nothing scrapes whole: the text of a shard is written from
        // them at its scrape, and a simple registry keeps less for each meter than Prometheus's.
        metrics = new FleetMetrics(registry, shards > 1 ? new SimpleMeterRegistry() : registry,
                settings.metrics().maxSeries(), settings.metrics().staleAfter());
        for (Stage stage : List.of(board, desk, anomalies)) {
            stage.open();
            opened.add(stage);
        }
        watch = new AnomalyWatch(Budgets.parse(settings.budgets().orElse("")), settings);
        darkGpus = new DarkGpus(registry, DarkGpus.HORIZON, DarkGpus.FORGET_AFTER);
        rules = new RecommendationRules(desk, GpuCatalog.defaults(), settings, exchangeRates());
        deadLetters = new KafkaProducer<>(KafkaClients.producer(bootstrapServers, "gpu-ledger-alerts-dead-letters"),
                new StringSerializer(), new ByteArraySerializer());
        windows = new WindowRecords(metrics, board, watch, darkGpus, anomalies, rules, clock);
        prices = new PriceRecords(metrics, watch, anomalies, rules, clock);
        CapacityNotices notices = new CapacityNotices(board, darkGpus, rules, registry, clock);
        DeadLetterCounts deadLettered = new DeadLetterCounts(registry);
        capacityReader = new TopicReader("alerts-capacity",
                groupMember(groupId() + "-capacity"),
                Map.of(Topics.CAPACITY_EVENTS.name(), notices::onNotice,
                        Topics.CAPACITY_EVENTS_ENRICHED.name(), notices::onEnrichedNotice),
                deadLetters, this::flush, registry, clock);
        Map<String, TopicReader.Handler> handlers = new HashMap<>();
        handlers.put(Topics.USAGE.name(), windows::onUsage);
        handlers.put(Topics.ROLLUPS.name(), windows::onRollup);
        handlers.put(Topics.JOB_ECONOMICS.name(), windows::onJobEconomics);
        handlers.put(Topics.PRICES.name(), prices::onPrice);
        handlers.put(Topics.JOB_PROGRESS.name(), windows::onJobProgress);
        for (var topic : Topics.DEAD_LETTERS) {
            handlers.put(topic.name(), deadLettered::onDeadLetter);
        }
        Properties fleetConsumer = groupMember(groupId());
        fleetConsumer.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, FLEET_POLL_RECORDS);
        fleetReader = new TopicReader("alerts-fleet", fleetConsumer, handlers, deadLetters, this::flush, registry,
                clock);
        prices.readBack(bootstrapServers, groupId());
        capacityReader.start();
        fleetReader.start();
        startWebhooks();
        started = true;
        LOG.infof("reading the cost engine's topics from %s", bootstrapServers);
    }

    /** The engine's table: the file both are given ({@code GPULEDGER_RATES_FILE}), or the shipped one. */
    private CurrencyRates exchangeRates() {
        String currency = settings.reportingCurrency();
        return settings.ratesFile().map(file -> CurrencyRates.load(file, currency))
                .orElseGet(() -> CurrencyRates.shipped(currency));
    }

    public synchronized void stop() {
        if (!started) {
            return;
        }
        started = false;
        if (webhooks != null) {
            webhooks.stop();
        }
        capacityReader.stop();
        fleetReader.stop();
        for (int i = opened.size() - 1; i >= 0; i--) {
            opened.get(i).close();
        }
        deadLetters.close(Duration.ofSeconds(5));
    }

    /** Whether every stage is up: the book read back and both readers given their partitions. */
    public boolean ready() {
        return started && capacityReader.ready() && fleetReader.ready();
    }

    /** The fleet's metrics, once this instance has started (a standby replica's, not before it is active). */
    public Optional<FleetMetrics> metricsIfStarted() {
        return started ? Optional.of(metrics) : Optional.empty();
    }

    /** Whether the service has started and not yet stopped. */
    public boolean started() {
        return started;
    }

    /** The readers' health, for liveness: each reads, or waits to read again after a failure. */
    public List<TopicReader.Health> readerHealth() {
        return started ? List.of(capacityReader.health(), fleetReader.health()) : List.of();
    }

    /** Whether the webhook dispatcher runs; empty when no receiver is configured. */
    public Optional<Boolean> webhooksRunning() {
        WebhookDispatcher dispatcher = webhooks;
        return dispatcher == null ? Optional.empty() : Optional.of(dispatcher.isRunning());
    }

    /** The stages opened so far, in the order they were: none on a standby replica. */
    List<Stage> openedStages() {
        return List.copyOf(opened);
    }

    /** The fleet's metrics, for {@code /api/metrics}; asked for before the start, they are not there yet. */
    @Produces
    @ApplicationScoped
    FleetMetrics fleetMetrics() {
        if (metrics == null) {
            throw new Stage.NotStartedException();
        }
        return metrics;
    }

    /** Delivers anomalies to the configured receivers, if any, and shows how that goes. */
    private void startWebhooks() {
        List<WebhookReceiver> receivers = WebhookReceivers.from(settings.webhooks(), LOG::info);
        if (receivers.isEmpty()) {
            return;
        }
        webhooks = new WebhookDispatcher(bootstrapServers, groupId() + "-webhooks",
                settings.consumer().instanceId(), sessionTimeout(), receivers,
                DeliveryPolicy.defaults(), clock);
        MetricCatalogue catalogue = MetricCatalogue.shipped();
        for (WebhookReceiver receiver : receivers) {
            ReceiverCounters counters = webhooks.counters(receiver.name());
            catalogue.family("gpuledger_webhook_deliveries_total").functionCounter(registry,
                    Tags.of("receiver", receiver.name(), "outcome", "delivered"), counters, c -> c.delivered());
            catalogue.family("gpuledger_webhook_deliveries_total").functionCounter(registry,
                    Tags.of("receiver", receiver.name(), "outcome", "refused"), counters, c -> c.refused());
            catalogue.family("gpuledger_webhook_retries_total").functionCounter(registry,
                    Tags.of("receiver", receiver.name()), counters, c -> c.retries());
        }
        webhooks.start();
        LOG.infof("delivering anomalies to %d webhook receiver(s)", receivers.size());
    }

    private String groupId() {
        return settings.consumer().groupId();
    }

    /** A consumer in {@code group}, this instance's static member id in it if it has one. */
    private Properties groupMember(String group) {
        return KafkaClients.consumer(bootstrapServers, group, settings.consumer().instanceId(), sessionTimeout());
    }

    /** Replicas: short, so that the one taking over is not kept waiting by the one that died; else Kafka's. */
    private Optional<Duration> sessionTimeout() {
        return settings.replica().lease() ? Optional.of(settings.replica().sessionTimeout()) : Optional.empty();
    }

    /** Sends what the readers' records caused before their offsets are committed. */
    private void flush() {
        desk.flush();
        anomalies.flush();
    }

    /** Removes what was not heard of lately; a failed sweep is logged and the next one runs as usual. */
    @Scheduled(every = "30s", delayed = "30s", concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void sweep() {
        if (!started) {
            return;
        }
        try {
            Instant now = clock.instant();
            metrics.sweep(now);
            board.sweep(now);
            rules.sweep(now);
            windows.sweep(now);
        } catch (RuntimeException e) {
            LOG.warn("sweeping stale series failed; trying again later", e);
        }
    }
}
