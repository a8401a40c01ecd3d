package io.gpuledger.alerts;

import io.gpuledger.alerts.anomaly.AnomalyDesk;
import io.gpuledger.alerts.anomaly.AnomalyWatch;
import io.gpuledger.alerts.feed.TopicReplay;
import io.gpuledger.alerts.metrics.FleetMetrics;
import io.gpuledger.alerts.recommend.RecommendationRules;
import io.gpuledger.model.CostAnomaly;
import io.gpuledger.model.InvalidRecordException;
import io.gpuledger.model.Json;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.ReconciliationRatio;
import io.gpuledger.model.Topics;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.jboss.logging.Logger;

/** Price versions from {@code pricing.quotes.v1} into the gauges, the spike watch and the rules. */
@ApplicationScoped
final class PriceRecords {

    private static final Logger LOG = Logger.getLogger(PriceRecords.class);

    private final FleetMetrics metrics;
    private final AnomalyWatch watch;
    private final AnomalyDesk anomalies;
    private final RecommendationRules rules;
    private final Clock clock;

    PriceRecords(FleetMetrics metrics, AnomalyWatch watch, AnomalyDesk anomalies, RecommendationRules rules,
            Clock clock) {
        this.metrics = metrics;
        this.watch = watch;
        this.anomalies = anomalies;
        this.rules = rules;
        this.clock = clock;
    }

    Instant onPrice(ConsumerRecord<String, byte[]> record) {
        learnPrice(priceVersion(record)).ifPresent(anomalies::publish);
        return null;
    }

    /**
     * A valid quote under its own version key, as the cost engine takes it. The engine passes over
     * any other without a dead letter, so this service refuses it: kept and counted, learnt from never.
     */
    private static PriceQuote priceVersion(ConsumerRecord<String, byte[]> record) {
        PriceQuote quote = Json.read(record.value(), PriceQuote.class);
        if (!quote.key().equals(record.key())) {
            throw new InvalidRecordException("$key", "record key '" + record.key() + "' must be '" + quote.key()
                    + "', the version the quote is (its offer and validFrom), or it is never charged");
        }
        return quote;
    }

    private Optional<CostAnomaly> learnPrice(PriceQuote quote) {
        Instant now = clock.instant();
        metrics.record(quote, now);
        Optional<CostAnomaly> spike = watch.onPrice(quote, now);
        rules.onPrice(quote);
        return spike;
    }

    /**
     * Reads again the versions the group had read before the service last stopped: a price is only
     * published when it changes, so without them the rules would know none until then. Their spikes
     * were published when first read.
     */
    void readBack(String bootstrapServers, String groupId) {
        long read = TopicReplay.replayCommitted(bootstrapServers, Topics.PRICES.name(), groupId,
                Duration.ofSeconds(60), record -> {
                    try {
                        learnPrice(priceVersion(record));
                    } catch (InvalidRecordException e) {
                        // Dead-lettered when it was first read.
                    }
                });
        long reconciled = TopicReplay.replayCommitted(bootstrapServers, Topics.RECONCILIATION.name(), groupId,
                Duration.ofSeconds(60), record -> {
                    try {
                        metrics.record(reconciliation(record));
                    } catch (InvalidRecordException e) {
                        // Dead-lettered when it was first read.
                    }
                });
        LOG.infof("read back %d price versions and %d reconciliations read before", read, reconciled);
    }

    /** What a reconciliation with the bill found for an offer and account, into its gauges. */
    Instant onReconciliation(ConsumerRecord<String, byte[]> record) {
        metrics.record(reconciliation(record));
        return null;
    }

    private static ReconciliationRatio reconciliation(ConsumerRecord<String, byte[]> record) {
        ReconciliationRatio ratio = Json.read(record.value(), ReconciliationRatio.class);
        if (!ratio.key().equals(record.key())) {
            throw new InvalidRecordException("$key", "record key '" + record.key() + "' must be '" + ratio.key()
                    + "', the offer and account it is of");
        }
        return ratio;
    }
}
