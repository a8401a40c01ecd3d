package io.gpuledger.alerts;

import io.gpuledger.alerts.anomaly.AnomalyDesk;
import io.gpuledger.alerts.anomaly.AnomalyWatch;
import io.gpuledger.alerts.anomaly.Budgets;
import io.gpuledger.alerts.anomaly.CostPerThroughputDetector;
import io.gpuledger.alerts.anomaly.DarkGpus;
import io.gpuledger.alerts.anomaly.PriceSpikeDetector;
import io.gpuledger.alerts.anomaly.SpendRateDetector;
import io.gpuledger.alerts.feed.KafkaClients;
import io.gpuledger.alerts.feed.KeyedInterval;
import io.gpuledger.alerts.feed.TopicReader;
import io.gpuledger.alerts.feed.TopicReplay;
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
import io.gpuledger.alerts.webhook.WebhookSettings;
import io.gpuledger.model.CapacityEvent;
import io.gpuledger.model.CostAnomaly;
import io.gpuledger.model.CurrencyRates;
import io.gpuledger.model.EnrichedCapacityEvent;
import io.gpuledger.model.GpuUsage;
import io.gpuledger.model.InvalidRecordException;
import io.gpuledger.model.JobEconomics;
import io.gpuledger.model.JobProgress;
import io.gpuledger.model.Json;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.RecordJson;
import io.gpuledger.model.TopicAdmin;
import io.gpuledger.model.Topics;
import io.gpuledger.model.UsageRollup;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.prometheus.PrometheusMeterRegistry;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
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
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.eclipse.microprofile.config.ConfigProvider;
import org.jboss.logging.Logger;

/**
 * The alert service's stages, started in order: the recommendation desk reads back what it
 * published before, then two readers start: one for capacity notices alone, so that an
 * {@code EVACUATE} never waits behind a burst of windows, and one for everything else the cost
 * engine publishes (usage windows, roll-ups, job economics, prices, work reports, dead letters).
 */
@ApplicationScoped
public class AlertService {

    private static final Logger LOG = Logger.getLogger(AlertService.class);
    /** As the capacity stage: a GPU silent for longer before a notice is not counted on its instance. */
    private static final Duration PLACEMENT_MAX_AGE = Duration.ofMinutes(10);
    /**
     * Records the fleet reader takes in one poll, at most. Each poll ends with a flush of what its
     * records caused and a commit, tens of milliseconds on a loaded broker: at a minute's close the
     * engine sends a closed window for every GPU at once, and 500 a poll (Kafka's default) made
     * the windows sent just after them wait seconds for their turn.
     */
    static final int FLEET_POLL_RECORDS = 5_000;
    /** Readers of what the cost engine and the agents write, short for the writers' own form. */
    private static final RecordJson<GpuUsage> USAGE = RecordJson.of(GpuUsage.class);
    private static final RecordJson<UsageRollup> ROLLUPS = RecordJson.of(UsageRollup.class);
    private static final RecordJson<JobEconomics> ECONOMICS = RecordJson.of(JobEconomics.class);
    private static final RecordJson<JobProgress> PROGRESS = RecordJson.of(JobProgress.class);
    /** How often a job's work reports are read for its traits (see {@link #onJobProgress}). */
    static final Duration TRAITS_READ_EVERY = Duration.ofSeconds(30);
    private static final String GPU_VIEW_KEY_PREFIX = UsageRollup.keyOf(UsageRollup.Dimension.GPU, "");

    private final MeterRegistry registry;
    private final Clock clock;
    private final AlertSettings settings;
    private final String bootstrapServers;
    private volatile boolean started;
    private FleetMetrics metrics;
    private FleetBoard board;
    private final KeyedInterval traitsRead = new KeyedInterval(TRAITS_READ_EVERY);
    private RecommendationDesk desk;
    private AnomalyDesk anomalies;
    private AnomalyWatch watch;
    private DarkGpus darkGpus;
    private RecommendationRules rules;
    private Producer<String, byte[]> deadLetters;
    private TopicReader capacityReader;
    private TopicReader fleetReader;
    private ScheduledExecutorService sweeper;
    private volatile WebhookDispatcher webhooks;
    private final Map<String, io.micrometer.core.instrument.Counter> deadLettered = new HashMap<>();

    /**
     * @param registry the Prometheus registry itself, not the composite Quarkus wraps around it:
     *                 through the composite each of the fleet's 100,000-odd series was a meter twice
     *                 over (with its id, tags and bookkeeping), a sixth of the service's heap
     */
    public AlertService(PrometheusMeterRegistry registry, Clock clock, AlertSettings settings, KafkaSettings kafka) {
        this.registry = registry;
        this.clock = clock;
        this.settings = settings;
        this.bootstrapServers = kafka.bootstrapServers();
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
        start();
    }

    void onStop(@Observes ShutdownEvent event) {
        stop();
    }

    public synchronized void start() {
        if (started) {
            return;
        }
        settings.consumer().instanceId().ifPresent(KafkaClients::checkedInstanceId);
        if (settings.topics().create()) {
            TopicAdmin.ensureTopics(bootstrapServers, settings.topics().partitions());
        }
        metrics = new FleetMetrics(registry, settings.metrics().maxSeries(), settings.metrics().staleAfter());
        board = new FleetBoard(settings.metrics().staleAfter());
        desk = RecommendationDesk.open(bootstrapServers, settings.recommendation().dismissFor(), registry, clock,
                settings.reportingCurrency());
        anomalies = AnomalyDesk.open(bootstrapServers, registry, settings.anomaly().kept());
        watch = anomalyWatch();
        darkGpus = new DarkGpus(registry, DarkGpus.HORIZON, DarkGpus.FORGET_AFTER);
        rules = new RecommendationRules(desk, GpuCatalog.defaults(), ruleSettings(), exchangeRates());
        deadLetters = new KafkaProducer<>(KafkaClients.producer(bootstrapServers, "gpu-ledger-alerts-dead-letters"),
                new StringSerializer(), new ByteArraySerializer());
        for (var topic : Topics.DEAD_LETTERS) {
            deadLettered.put(topic.name(), MetricCatalogue.shipped().family("gpuledger_dead_letter_records_total")
                    .counter(registry, Tags.of("topic", topic.name())));
        }
        capacityReader = new TopicReader("alerts-capacity",
                KafkaClients.consumer(bootstrapServers, groupId() + "-capacity",
                        settings.consumer().instanceId()),
                Map.of(Topics.CAPACITY_EVENTS.name(), this::onNotice,
                        Topics.CAPACITY_EVENTS_ENRICHED.name(), this::onEnrichedNotice), deadLetters, this::flush,
                registry, clock);
        Map<String, TopicReader.Handler> handlers = new HashMap<>();
        handlers.put(Topics.USAGE.name(), this::onUsage);
        handlers.put(Topics.ROLLUPS.name(), this::onRollup);
        handlers.put(Topics.JOB_ECONOMICS.name(), this::onJobEconomics);
        handlers.put(Topics.PRICES.name(), this::onPrice);
        handlers.put(Topics.JOB_PROGRESS.name(), this::onJobProgress);
        for (var topic : Topics.DEAD_LETTERS) {
            handlers.put(topic.name(), this::onDeadLetter);
        }
        Properties fleetConsumer = KafkaClients.consumer(bootstrapServers, groupId(),
                settings.consumer().instanceId());
        fleetConsumer.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, FLEET_POLL_RECORDS);
        fleetReader = new TopicReader("alerts-fleet", fleetConsumer, handlers, deadLetters, this::flush, registry,
                clock);
        readPricesBack();
        capacityReader.start();
        fleetReader.start();
        startWebhooks();
        sweeper = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "alerts-sweeper");
            thread.setDaemon(true);
            return thread;
        });
        sweeper.scheduleWithFixedDelay(this::sweep, 30, 30, TimeUnit.SECONDS);
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
        sweeper.shutdownNow();
        if (webhooks != null) {
            webhooks.stop();
        }
        capacityReader.stop();
        fleetReader.stop();
        desk.close();
        anomalies.close();
        deadLetters.close(Duration.ofSeconds(5));
    }

    /** Whether every stage is up: the book read back and both readers given their partitions. */
    public boolean ready() {
        return started && capacityReader.ready() && fleetReader.ready();
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

    public RecommendationDesk desk() {
        return desk;
    }

    public AnomalyDesk anomalies() {
        return anomalies;
    }

    public FleetBoard board() {
        return board;
    }

    public FleetMetrics metrics() {
        return metrics;
    }

    private Instant onUsage(ConsumerRecord<String, byte[]> record) {
        GpuUsage usage = USAGE.read(record.value());
        Instant now = clock.instant();
        metrics.record(usage, now);
        board.record(usage, now);
        watch.onWindow(usage, now).forEach(anomalies::publish);
        darkGpus.onWindow(usage, now).forEach(anomalies::publish);
        rules.onWindow(usage, now);
        return latestSampleOf(usage);
    }

    /**
     * When the newest sample in a GPU's window ended: its start plus the time its samples cover
     * (each covers the time up to its own), its end once closed. A MIG slice's GPU time is its
     * share of the GPU, so the wall time its power readings cover is taken where it is longer.
     */
    private static Instant latestSampleOf(GpuUsage usage) {
        if (usage.closed()) {
            return usage.windowEnd();
        }
        double seconds = Math.max(usage.totals().gpuSeconds(), usage.totals().powerWatts().seconds());
        Instant covered = usage.windowStart().plusMillis(Math.round(seconds * 1000));
        return covered.isAfter(usage.windowEnd()) ? usage.windowEnd() : covered;
    }

    /**
     * A job's, team's or pool's roll-up. A GPU's own views (one a minute for every GPU: most of
     * the topic's records) are shown nowhere here: they are passed over by their key
     * ({@code gpu|UUID}), unread.
     */
    private Instant onRollup(ConsumerRecord<String, byte[]> record) {
        if (record.key() != null && record.key().startsWith(GPU_VIEW_KEY_PREFIX)) {
            return null;
        }
        UsageRollup rollup = ROLLUPS.read(record.value());
        Instant now = clock.instant();
        metrics.record(rollup, now);
        rules.onRollup(rollup, now);
        return rollup.windowEnd();
    }

    private Instant onJobEconomics(ConsumerRecord<String, byte[]> record) {
        JobEconomics economics = ECONOMICS.read(record.value());
        Instant now = clock.instant();
        metrics.record(economics, now);
        watch.onEconomics(economics, now).forEach(anomalies::publish);
        rules.onEconomics(economics, now);
        return economics.windowEnd();
    }

    private Instant onPrice(ConsumerRecord<String, byte[]> record) {
        learnPrice(priceVersion(record)).ifPresent(anomalies::publish);
        return null;
    }

    /**
     * A record of {@code pricing.quotes.v1} as the cost engine takes it: a valid quote under its own
     * version key. The engine passes over any other (its price table is a store of the topic, read by
     * every instance, so it keeps no dead letters); this service, reading the topic once in its group,
     * refuses it, so that it is kept and counted, and learns nothing from it.
     */
    private static PriceQuote priceVersion(ConsumerRecord<String, byte[]> record) {
        PriceQuote quote = Json.read(record.value(), PriceQuote.class);
        if (!quote.key().equals(record.key())) {
            throw new InvalidRecordException("$key", "record key '" + record.key() + "' must be '" + quote.key()
                    + "', the version the quote is (its offer and validFrom), or it is never charged");
        }
        return quote;
    }

    /** A price version into the gauges, the spike watch and the rules; a spike it makes, if any. */
    private Optional<CostAnomaly> learnPrice(PriceQuote quote) {
        Instant now = clock.instant();
        metrics.record(quote, now);
        Optional<CostAnomaly> spike = watch.onPrice(quote, now);
        rules.onPrice(quote);
        return spike;
    }

    /**
     * Reads again the price versions the fleet reader handled before the service last stopped:
     * the feed publishes a version when a price changes (and confirms it every few minutes), so
     * without them the rules would know no price, and the spike watch no version before the next,
     * until then. Their spikes were published when they were first read.
     */
    private void readPricesBack() {
        long read = TopicReplay.replayCommitted(bootstrapServers, Topics.PRICES.name(), groupId(),
                Duration.ofSeconds(60), record -> {
                    try {
                        learnPrice(priceVersion(record));
                    } catch (InvalidRecordException e) {
                        // Dead-lettered when it was first read.
                    }
                });
        LOG.infof("read back %d price versions read before", read);
    }

    /**
     * A work report, read for its job's traits alone (the engine turns the rest into job
     * economics): reports come as often as samples, traits hardly ever change, so one report a job
     * is read every {@link #TRAITS_READ_EVERY} and the rest are passed over by their key, unread.
     */
    private Instant onJobProgress(ConsumerRecord<String, byte[]> record) {
        Instant now = clock.instant();
        if (record.key() != null && !traitsRead.take(record.key(), now)) {
            return null;
        }
        JobProgress progress = PROGRESS.read(record.value());
        rules.onProgress(progress, now);
        return progress.time();
    }

    private Instant onDeadLetter(ConsumerRecord<String, byte[]> record) {
        deadLettered.get(record.topic()).increment();
        return Instant.ofEpochMilli(record.timestamp());
    }

    /**
     * A notice as the agent published it: joined at once with the placement the board knows, so
     * that its EVACUATE does not wait for the cost engine's next commit.
     */
    private Instant onNotice(ConsumerRecord<String, byte[]> record) {
        CapacityEvent notice = Json.read(record.value(), CapacityEvent.class);
        MetricCatalogue.shipped().family("gpuledger_capacity_events_total").counter(registry,
                Tags.of("provider", notice.provider(), "kind", notice.kind().name())).increment();
        rules.onCapacityEvent(board.enrich(notice, PLACEMENT_MAX_AGE), clock.instant());
        darkGpus.onNotice(notice);
        return notice.noticedAt();
    }

    /** The cost engine's join of the same notice: it supersedes the quick one only where it tells more. */
    private Instant onEnrichedNotice(ConsumerRecord<String, byte[]> record) {
        EnrichedCapacityEvent event = Json.read(record.value(), EnrichedCapacityEvent.class);
        rules.onCapacityEvent(event, clock.instant());
        return event.event().noticedAt();
    }

    /** Delivers anomalies to the configured receivers, if any, and shows how that goes. */
    private void startWebhooks() {
        List<WebhookReceiver> receivers = WebhookReceivers.parse(WebhookSettings.PREFIX,
                WebhookSettings.properties(ConfigProvider.getConfig()), LOG::info);
        if (receivers.isEmpty()) {
            return;
        }
        webhooks = new WebhookDispatcher(bootstrapServers, groupId() + "-webhooks",
                settings.consumer().instanceId(), receivers,
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

    /** The rules' settings: what this service's configuration sets, the rest as documented. */
    private RecommendationRules.Settings ruleSettings() {
        AlertSettings.Recommendation set = settings.recommendation();
        RecommendationRules.Settings defaults = RecommendationRules.Settings.defaults(set.ttl());
        var idle = set.reclaimIdle();
        var switchType = set.switchInstanceType();
        var spot = set.moveToSpot();
        var communication = set.reduceCommunication();
        return new RecommendationRules.Settings(set.ttl(), defaults.reserveTtl(), set.reserveLookbackHours(),
                set.minMonthlySaving(), defaults.communicationBoundRatio(), set.spotInterruptionsPerHour(),
                settings.metrics().staleAfter(), settings.metrics().maxSeries(),
                new RecommendationRules.Evidence(idle.period(), settings.idle().smActiveThreshold(),
                        idle.withdrawSmActive()),
                settings.idle().minObservedSeconds(),
                new RecommendationRules.Evidence(switchType.period(), switchType.minSavingRatio(),
                        switchType.withdrawSavingRatio()),
                new RecommendationRules.Evidence(spot.period(), spot.minNetSavingRatio(),
                        spot.withdrawNetSavingRatio()),
                new RecommendationRules.Evidence(communication.period(), communication.minRatio(),
                        communication.withdrawRatio()), set.jobLookback());
    }

    private AnomalyWatch anomalyWatch() {
        AlertSettings.Anomaly set = settings.anomaly();
        SpendRateDetector.Settings spend = SpendRateDetector.Settings.DEFAULTS;
        CostPerThroughputDetector.Settings perUnit = CostPerThroughputDetector.Settings.DEFAULTS;
        PriceSpikeDetector.Settings prices = PriceSpikeDetector.Settings.DEFAULTS;
        return new AnomalyWatch(Budgets.parse(settings.budgets().orElse("")),
                new SpendRateDetector.Settings(spend.baseline(), set.spendRate().k(),
                        set.spendRate().minImpactPerHour(), spend.recoveryMinutes(), spend.maxSubjects(),
                        spend.maxPartsPerSubject()),
                new CostPerThroughputDetector.Settings(perUnit.baseline(), set.costPerThroughput().thresholdPercent(),
                        perUnit.consecutiveMinutes(), perUnit.recoveryMinutes(), perUnit.maxSeries()),
                new PriceSpikeDetector.Settings(set.priceSpike().threshold(), prices.alerted()),
                settings.metrics().maxSeries());
    }

    private String groupId() {
        return settings.consumer().groupId();
    }

    /** Sends what the readers' records caused before their offsets are committed. */
    private void flush() {
        desk.flush();
        anomalies.flush();
    }

    private void sweep() {
        try {
            Instant now = clock.instant();
            metrics.sweep(now);
            board.sweep(now);
            rules.sweep(now);
            traitsRead.prune(now);
        } catch (RuntimeException e) {
            LOG.warn("sweeping stale series failed; trying again later", e);
        }
    }
}
