package io.gpuledger.alerts.recommend;

import io.gpuledger.alerts.AlertSettings;
import io.gpuledger.alerts.KafkaSettings;
import io.gpuledger.alerts.Stage;
import io.gpuledger.alerts.feed.KafkaClients;
import io.gpuledger.alerts.feed.TopicReplay;
import io.gpuledger.alerts.metrics.MetricCatalogue;
import io.gpuledger.model.CloudEvent;
import io.gpuledger.model.InvalidRecordException;
import io.gpuledger.model.Recommendation;
import io.gpuledger.model.RecommendationKind;
import io.gpuledger.model.RecommendationStatus;
import io.gpuledger.model.Topics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.prometheus.PrometheusMeterRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.jboss.logging.Logger;

/**
 * Where recommendations are raised, withdrawn, acknowledged and dismissed: the
 * {@link RecommendationBook} decides what is news, and the news goes to
 * {@code gpu.recommendations.v1} as a CloudEvent keyed by the target's id. At start the book is
 * read back from the topic, so a restart neither repeats a live recommendation nor forgets a
 * dismissal. The service's desk is a bean that does all this when {@link #open opened}, not when built.
 */
@ApplicationScoped
public class RecommendationDesk implements Stage, AutoCloseable {

    private static final Logger LOG = Logger.getLogger(RecommendationDesk.class);

    private final MeterRegistry registry;
    private final Clock clock;
    private final String reportingCurrency;
    /** Where the service's desk reads back and publishes; null for a desk given its book and producer. */
    private final String bootstrapServers;
    private final Duration dismissFor;
    private volatile RecommendationBook book;
    private volatile Producer<String, CloudEvent<Recommendation>> producer;
    private final Set<String> savingGauges = ConcurrentHashMap.newKeySet();
    private final List<Consumer<Recommendation>> acknowledged = new CopyOnWriteArrayList<>();

    /**
     * @param reportingCurrency the currency whose saving gauges exist from the start (0 until a
     *                          recommendation has a saving), so that dashboards read 0, not nothing
     */
    public RecommendationDesk(RecommendationBook book, Producer<String, CloudEvent<Recommendation>> producer,
            MeterRegistry registry, Clock clock, String reportingCurrency) {
        this.registry = registry;
        this.clock = clock;
        this.reportingCurrency = reportingCurrency;
        this.bootstrapServers = null;
        this.dismissFor = null;
        opened(book, producer);
    }

    /** The service's desk: it reads back and opens its producer when {@link #open opened}. */
    @Inject
    public RecommendationDesk(AlertSettings settings, KafkaSettings kafka, PrometheusMeterRegistry registry,
            Clock clock) {
        this.registry = registry;
        this.clock = clock;
        this.reportingCurrency = settings.reportingCurrency();
        this.bootstrapServers = kafka.bootstrapServers();
        this.dismissFor = settings.recommendation().dismissFor();
    }

    /** A desk publishing to the cluster at {@code bootstrapServers}, with its book read back from the topic first. */
    public static RecommendationDesk open(String bootstrapServers, Duration dismissFor, MeterRegistry registry,
            Clock clock, String reportingCurrency) {
        return new RecommendationDesk(readBack(bootstrapServers, dismissFor), newProducer(bootstrapServers), registry,
                clock, reportingCurrency);
    }

    @Override
    public void open() {
        if (book == null) {
            opened(readBack(bootstrapServers, dismissFor), newProducer(bootstrapServers));
        }
    }

    @Override
    public boolean isOpen() {
        return producer != null;
    }

    private void opened(RecommendationBook readBack, Producer<String, CloudEvent<Recommendation>> publisher) {
        this.book = readBack;
        MetricCatalogue catalogue = MetricCatalogue.shipped();
        for (RecommendationKind kind : RecommendationKind.values()) {
            Tags tags = Tags.of("kind", kind.name());
            catalogue.family("gpuledger_recommendations_open").gauge(registry, tags, this,
                    desk -> desk.book.actionable(kind, desk.clock.instant()).size());
            for (RecommendationStatus status : RecommendationStatus.values()) {
                counter(kind, status);
            }
            showSaving(kind, reportingCurrency);
        }
        book.list(r -> true, clock.instant()).forEach(this::showSaving);
        this.producer = publisher;
    }

    private static RecommendationBook readBack(String bootstrapServers, Duration dismissFor) {
        RecommendationBook book = new RecommendationBook(dismissFor);
        long read = TopicReplay.replay(bootstrapServers, Topics.RECOMMENDATIONS.name(), Duration.ofSeconds(60),
                record -> {
                    try {
                        book.restore(Topics.RECOMMENDATIONS.valueSerde().deserializer()
                                .deserialize(record.topic(), record.value()).data());
                    } catch (InvalidRecordException e) {
                        LOG.warnf("ignored %s-%d@%d on read-back: %s", record.topic(), record.partition(),
                                record.offset(), e.getMessage());
                    }
                });
        LOG.infof("read back %d recommendation records from %s", read, Topics.RECOMMENDATIONS.name());
        return book;
    }

    private static Producer<String, CloudEvent<Recommendation>> newProducer(String bootstrapServers) {
        return new KafkaProducer<>(KafkaClients.producer(bootstrapServers, "gpu-ledger-alerts-recommendations"),
                Topics.RECOMMENDATIONS.keySerde().serializer(), Topics.RECOMMENDATIONS.valueSerde().serializer());
    }

    /** The book, once open: asked before, the desk is not there yet. */
    private RecommendationBook book() {
        if (producer == null) {
            throw new NotStartedException();
        }
        return book;
    }

    /** A rule's finding: published if it is news. */
    public Optional<Recommendation> raise(Recommendation candidate) {
        return publish(book().offer(candidate, clock.instant()));
    }

    /** The situation of {@code id} is over. */
    public Optional<Recommendation> withdraw(String id) {
        return publish(book().withdraw(id, clock.instant()));
    }

    /** Someone acts on {@code id}; acknowledging it again changes nothing and publishes nothing. */
    public Optional<Recommendation> acknowledge(String id) {
        return already(id, RecommendationStatus.ACKNOWLEDGED).or(() -> {
            Optional<Recommendation> news = publish(book().acknowledge(id, clock.instant()));
            news.ifPresent(recommendation -> acknowledged.forEach(listener -> listener.accept(recommendation)));
            return news;
        });
    }

    /**
     * Tells {@code listener} of every acknowledgement from now on, as it is published: the rules learn
     * that what they advised is being done.
     */
    public void onAcknowledged(Consumer<Recommendation> listener) {
        acknowledged.add(listener);
    }

    /** Someone says not to act on {@code id}; dismissing it again changes nothing and publishes nothing. */
    public Optional<Recommendation> dismiss(String id) {
        return already(id, RecommendationStatus.DISMISSED).or(() -> publish(book().dismiss(id, clock.instant())));
    }

    private Optional<Recommendation> already(String id, RecommendationStatus status) {
        return book().get(id, clock.instant()).filter(r -> r.status() == status);
    }

    public Optional<Recommendation> get(String id) {
        return book().get(id, clock.instant());
    }

    public List<Recommendation> list(Predicate<Recommendation> filter) {
        return book().list(filter, clock.instant());
    }

    /** Actionable recommendations of {@code kind} now. */
    public List<Recommendation> actionable(RecommendationKind kind) {
        return book().actionable(kind, clock.instant());
    }

    /** Sends what is buffered; the readers call it before committing what they read. */
    public void flush() {
        book();
        producer.flush();
    }

    @Override
    public void close() {
        if (producer != null) {
            producer.close(Duration.ofSeconds(5));
        }
    }

    private Optional<Recommendation> publish(Optional<Recommendation> news) {
        news.ifPresent(recommendation -> {
            producer.send(new ProducerRecord<>(Topics.RECOMMENDATIONS.name(), null, null,
                    recommendation.target().id(), RecommendationEvents.envelope(recommendation),
                    RecommendationEvents.headers()));
            counter(recommendation.kind(), recommendation.status()).increment();
            showSaving(recommendation);
        });
        return news;
    }

    /** The saving gauge of the recommendation's kind and currency, registered when first needed. */
    private void showSaving(Recommendation recommendation) {
        showSaving(recommendation.kind(), recommendation.currency());
    }

    private void showSaving(RecommendationKind kind, String currency) {
        if (currency == null || !savingGauges.add(kind + " " + currency)) {
            return;
        }
        MetricCatalogue.shipped().family("gpuledger_recommendations_saving_per_month").gauge(registry,
                Tags.of("kind", kind.name(), "currency", currency), this,
                desk -> desk.actionable(kind).stream().filter(r -> currency.equals(r.currency()))
                        .mapToDouble(Recommendation::estimatedMonthlySaving).sum());
    }

    private io.micrometer.core.instrument.Counter counter(RecommendationKind kind, RecommendationStatus status) {
        return MetricCatalogue.shipped().family("gpuledger_recommendations_total")
                .counter(registry, Tags.of("kind", kind.name(), "status", status.wire()));
    }
}
