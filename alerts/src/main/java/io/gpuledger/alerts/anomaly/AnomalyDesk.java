package io.gpuledger.alerts.anomaly;

import io.gpuledger.alerts.AlertSettings;
import io.gpuledger.alerts.KafkaSettings;
import io.gpuledger.alerts.Stage;
import io.gpuledger.alerts.feed.KafkaClients;
import io.gpuledger.alerts.feed.TopicReplay;
import io.gpuledger.alerts.metrics.MetricCatalogue;
import io.gpuledger.model.AnomalyKind;
import io.gpuledger.model.CostAnomaly;
import io.gpuledger.model.InvalidRecordException;
import io.gpuledger.model.Topics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.prometheus.PrometheusMeterRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Comparator;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.jboss.logging.Logger;

/**
 * Where detected anomalies become records on {@code cost.anomalies.v1}: once per id, also across
 * restarts (the ids published before are read back at start), and the latest ones kept for
 * {@code GET /api/anomalies}. Webhooks read the topic, not this desk. The service's desk is a bean that reads
 * back and opens its producer when {@link #open opened}, not when built.
 */
@ApplicationScoped
public class AnomalyDesk implements Stage, AutoCloseable {

    private static final Logger LOG = Logger.getLogger(AnomalyDesk.class);
    /**
     * How long an anomaly's id is remembered: far longer than any detector takes to see the same
     * episode again, and about the anomalies topic's retention, from which ids are read back.
     */
    static final Duration REMEMBER_FOR = Duration.ofDays(8);

    private final MeterRegistry registry;
    private final int keep;
    /** Where the service's desk reads back and publishes; null for a desk given its producer. */
    private final String bootstrapServers;
    private volatile Producer<String, CostAnomaly> producer;
    /** Ids published, with when they were detected; forgotten after {@link #REMEMBER_FOR}. */
    private final Map<String, Instant> published = new LinkedHashMap<>();
    private final Deque<CostAnomaly> latest = new ArrayDeque<>();

    /** @param keep how many of the latest anomalies the API serves */
    public AnomalyDesk(Producer<String, CostAnomaly> producer, MeterRegistry registry, int keep) {
        this.registry = registry;
        this.keep = keep;
        this.bootstrapServers = null;
        opened(producer);
    }

    /** The service's desk: it opens its producer and reads back when {@link #open opened}. */
    @Inject
    public AnomalyDesk(AlertSettings settings, KafkaSettings kafka, PrometheusMeterRegistry registry) {
        this.registry = registry;
        this.keep = settings.anomaly().kept();
        this.bootstrapServers = kafka.bootstrapServers();
    }

    /** A desk publishing to the cluster at {@code bootstrapServers}, knowing what was published before. */
    public static AnomalyDesk open(String bootstrapServers, MeterRegistry registry, int keep) {
        AnomalyDesk desk = new AnomalyDesk(newProducer(bootstrapServers), registry, keep);
        desk.readBack(bootstrapServers);
        return desk;
    }

    @Override
    public void open() {
        if (producer == null) {
            // Read back first: a read-back that fails then leaves no producer open behind it.
            readBack(bootstrapServers);
            opened(newProducer(bootstrapServers));
        }
    }

    @Override
    public boolean isOpen() {
        return producer != null;
    }

    private void opened(Producer<String, CostAnomaly> publisher) {
        for (AnomalyKind kind : AnomalyKind.values()) {
            if (kind == AnomalyKind.BILL_DRIFT) {
                // gpu-ledger reconcile publishes these, not this service: its counter would stay 0 for ever
                continue;
            }
            for (CostAnomaly.Severity severity : CostAnomaly.Severity.values()) {
                counter(kind, severity);
            }
        }
        this.producer = publisher;
    }

    private static Producer<String, CostAnomaly> newProducer(String bootstrapServers) {
        return new KafkaProducer<>(KafkaClients.producer(bootstrapServers, "gpu-ledger-alerts-anomalies"),
                Topics.COST_ANOMALIES.keySerde().serializer(), Topics.COST_ANOMALIES.valueSerde().serializer());
    }

    /** The ids published before, from the topic; the latest of them served as the latest anomalies. */
    private void readBack(String bootstrapServers) {
        long read = TopicReplay.replay(bootstrapServers, Topics.COST_ANOMALIES.name(), Duration.ofSeconds(60),
                record -> {
                    try {
                        remember(Topics.COST_ANOMALIES.valueSerde().deserializer()
                                .deserialize(record.topic(), record.value()));
                    } catch (InvalidRecordException e) {
                        LOG.warnf("ignored %s-%d@%d on read-back: %s", record.topic(), record.partition(),
                                record.offset(), e.getMessage());
                    }
                });
        LOG.infof("read back %d anomalies from %s", read, Topics.COST_ANOMALIES.name());
    }

    /** The producer, once open: asked before, the desk is not there yet. */
    private Producer<String, CostAnomaly> producer() {
        Producer<String, CostAnomaly> opened = producer;
        if (opened == null) {
            throw new NotStartedException();
        }
        return opened;
    }

    /** Publishes {@code anomaly} unless its id was published before; true when it was news. */
    public synchronized boolean publish(CostAnomaly anomaly) {
        Producer<String, CostAnomaly> opened = producer();
        if (!remember(anomaly)) {
            return false;
        }
        opened.send(new ProducerRecord<>(Topics.COST_ANOMALIES.name(), anomaly.key(), anomaly));
        counter(anomaly.kind(), anomaly.severity()).increment();
        return true;
    }

    /** The latest anomalies that pass {@code filter}, newest first. */
    public synchronized List<CostAnomaly> latest(Predicate<CostAnomaly> filter) {
        producer();
        return latest.stream().filter(filter)
                .sorted(Comparator.comparing(CostAnomaly::detectedAt).reversed().thenComparing(CostAnomaly::id))
                .toList();
    }

    public void flush() {
        producer().flush();
    }

    @Override
    public void close() {
        if (producer != null) {
            producer.close(Duration.ofSeconds(5));
        }
    }

    private synchronized boolean remember(CostAnomaly anomaly) {
        if (published.putIfAbsent(anomaly.id(), anomaly.detectedAt()) != null) {
            return false;
        }
        Instant cutoff = anomaly.detectedAt().minus(REMEMBER_FOR);
        for (var it = published.values().iterator(); it.hasNext(); ) {
            if (!it.next().isBefore(cutoff)) {
                break;
            }
            it.remove();
        }
        latest.addLast(anomaly);
        while (latest.size() > keep) {
            latest.removeFirst();
        }
        return true;
    }

    private io.micrometer.core.instrument.Counter counter(AnomalyKind kind, CostAnomaly.Severity severity) {
        return MetricCatalogue.shipped().family("gpuledger_anomalies_total")
                .counter(registry, Tags.of("kind", kind.name(), "severity", severity.name().toLowerCase()));
    }
}
