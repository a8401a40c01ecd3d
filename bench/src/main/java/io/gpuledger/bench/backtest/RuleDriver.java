package io.gpuledger.bench.backtest;

import io.gpuledger.alerts.AlertSettings;
import io.gpuledger.alerts.ShippedSettings;
import io.gpuledger.alerts.recommend.GpuCatalog;
import io.gpuledger.alerts.recommend.RecommendationBook;
import io.gpuledger.alerts.recommend.RecommendationDesk;
import io.gpuledger.alerts.recommend.RecommendationRules;
import io.gpuledger.model.CloudEvent;
import io.gpuledger.model.EnrichedCapacityEvent;
import io.gpuledger.model.GpuUsage;
import io.gpuledger.model.JobEconomics;
import io.gpuledger.model.JobProgress;
import io.gpuledger.model.MovableClock;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.Recommendation;
import io.gpuledger.model.Topics;
import io.gpuledger.model.UsageRollup;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The alert service's recommendation rules in this JVM, wired as the service wires them (every rule
 * through {@link RecommendationRules} with its documented defaults), on a simulated clock, publishing to a producer
 * that keeps what it was sent instead of a broker. The only place the backtest touches the rules' API. It
 * can restart the service as a deployment does: the rules start empty, and the desk reads back every
 * record published before.
 */
final class RuleDriver {

    /** The alert service's settings as shipped (application.properties). */
    private static final AlertSettings SHIPPED = ShippedSettings.with(Map.of());
    private static final Duration DISMISS_FOR = SHIPPED.recommendation().dismissFor();

    private final MovableClock clock;
    private final MockProducer<String, CloudEvent<Recommendation>> published;
    /** Every record published, as the topic would keep it, for a restart to read back. */
    private final List<Recommendation> topic = new ArrayList<>();
    private RecommendationDesk desk;
    private RecommendationRules rules;

    private final GpuCatalog catalog;

    RuleDriver(Instant start, GpuCatalog catalog) {
        this.catalog = catalog;
        clock = new MovableClock(start);
        published = new MockProducer<>(true, null, new StringSerializer(),
                Topics.RECOMMENDATIONS.valueSerde().serializer());
        start(new RecommendationBook(DISMISS_FOR));
    }

    private void start(RecommendationBook book) {
        desk = new RecommendationDesk(book, published, new SimpleMeterRegistry(), clock, "USD");
        rules = new RecommendationRules(desk, catalog, SHIPPED);
    }

    /** The service restarts at {@code now}: what the rules gathered is lost, what was published is read back. */
    void restart(Instant now) {
        clock.set(now);
        news();
        RecommendationBook book = new RecommendationBook(DISMISS_FOR);
        topic.forEach(book::restore);
        start(book);
    }

    void price(PriceQuote quote) {
        rules.onPrice(quote);
    }

    void window(GpuUsage window, Instant now) {
        clock.set(now);
        rules.onWindow(window, now);
    }

    void rollup(UsageRollup rollup, Instant now) {
        clock.set(now);
        rules.onRollup(rollup, now);
    }

    void progress(JobProgress progress, Instant now) {
        clock.set(now);
        rules.onProgress(progress, now);
    }

    void economics(JobEconomics economics, Instant now) {
        clock.set(now);
        rules.onEconomics(economics, now);
    }

    void capacity(EnrichedCapacityEvent notice, Instant now) {
        clock.set(now);
        rules.onCapacityEvent(notice, now);
    }

    void sweep(Instant now) {
        clock.set(now);
        rules.sweep(now);
    }

    /** What the desk published since the last call, oldest first. */
    List<Recommendation> news() {
        List<Recommendation> news = published.history().stream().map(ProducerRecord::value).map(CloudEvent::data)
                .toList();
        published.clear();
        topic.addAll(news);
        return news;
    }

    /** The automation took the recommendation on, as a hook does through the REST API. */
    void acknowledge(String id, Instant now) {
        clock.set(now);
        desk.acknowledge(id);
        news();
    }
}
