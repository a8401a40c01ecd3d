package io.gpuledger.streams.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.binder.kafka.KafkaStreamsMetrics;
import io.micrometer.prometheus.PrometheusConfig;
import io.micrometer.prometheus.PrometheusMeterRegistry;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.streams.KafkaStreams;

/**
 * The cost engine's meters, in Prometheus text: Kafka Streams' own metrics (Micrometer's
 * {@code kafka_stream_*}, {@code kafka_consumer_*}, {@code kafka_producer_*}: commit latency, process
 * rate, restoration, lag) and the engine's counters as {@code gpuledger_engine_*} families. Those
 * are read from the Kafka metrics the engine's processors keep (group {@value #GROUP}, tag
 * {@value #TAG}), summed over threads and tasks, at each scrape ({@link #scrape()}).
 */
public final class EngineMeters implements AutoCloseable {

    /** The group of the engine's own Kafka metrics. */
    static final String GROUP = "stream-gpuledger-metrics";
    /** The tag that says what an engine metric counts (the input, or the kind of refusal). */
    static final String TAG = "gpuledger-id";

    private final KafkaStreams streams;
    private final Supplier<Map<MetricName, ? extends Metric>> handlerMetrics;
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final KafkaStreamsMetrics kafka;
    private final Map<String, KafkaTotal> deadLetters = new ConcurrentHashMap<>();
    private final KafkaTotal processed = new KafkaTotal(name -> name.group().equals("stream-thread-metrics")
            && name.name().equals("process-total"));
    private final KafkaTotal lateSeconds = engineTotal("late-seconds-total");
    private final KafkaTotal unpriced = engineTotal("unknown-currency-samples-total");
    private final KafkaTotal invalidPrices = engineTotal("invalid-records-total");
    /** Records waiting for the stream threads' consumers, by topic, as of the last {@link #update()}. */
    private final Map<String, Double> lag = new ConcurrentHashMap<>();

    /**
     * @param handlerMetrics metrics the engine keeps outside Kafka Streams' registry (its exception
     *                       handlers' dead-letter counts)
     */
    public EngineMeters(KafkaStreams streams, Supplier<Map<MetricName, ? extends Metric>> handlerMetrics) {
        this.streams = streams;
        this.handlerMetrics = handlerMetrics;
        this.kafka = new KafkaStreamsMetrics(streams);
        kafka.bindTo(registry);
        for (KafkaStreams.State state : KafkaStreams.State.values()) {
            Gauge.builder("gpuledger.engine.state", streams, s -> s.state() == state ? 1 : 0)
                    .description("1 for the state the engine's Kafka Streams instance is in, 0 for the others")
                    .tag("state", state.name()).register(registry);
        }
        counter("gpuledger.engine.records.processed", processed,
                "records the engine's stream threads processed, all inputs together");
        counter("gpuledger.engine.late.gpu.seconds", lateSeconds,
                "GPU seconds of samples that fell in minutes already closed, not charged");
        counter("gpuledger.engine.unpriced.samples", unpriced,
                "samples priced in a currency the exchange-rate table lacks: their time is charged nothing");
        counter("gpuledger.engine.invalid.prices", invalidPrices,
                "price records passed over as invalid or keyless");
    }

    private static KafkaTotal engineTotal(String metric) {
        return new KafkaTotal(name -> name.group().equals(GROUP) && name.name().equals(metric));
    }

    private void counter(String name, KafkaTotal total, String help) {
        FunctionCounter.builder(name, total, KafkaTotal::total).description(help).register(registry);
    }

    /** Brings the engine's counters up to date and returns every meter as Prometheus text. */
    public String scrape() {
        update();
        return registry.scrape();
    }

    /** Reads the engine's Kafka metrics once, into every total; a kind of dead letter seen first gets its series. */
    synchronized void update() {
        Map<MetricName, Metric> metrics = new HashMap<>(streams.metrics());
        metrics.putAll(handlerMetrics.get());
        metrics.keySet().stream()
                .filter(name -> name.group().equals(GROUP) && name.name().equals("dead-letters-total"))
                .map(name -> name.tags().get(TAG)).distinct()
                .forEach(kind -> deadLetters.computeIfAbsent(kind, this::deadLetterCounter));
        deadLetters.values().forEach(total -> total.update(metrics));
        Map<String, Double> lagNow = new HashMap<>();
        metrics.forEach((name, metric) -> {
            if (isStreamThreadLag(name) && metric.metricValue() instanceof Number number
                    && Double.isFinite(number.doubleValue())) {
                lagNow.merge(name.tags().get("topic"), number.doubleValue(), Double::sum);
            }
        });
        lagNow.keySet().forEach(topic -> lag.computeIfAbsent(topic, this::lagGauge));
        lag.replaceAll((topic, before) -> lagNow.getOrDefault(topic, Double.NaN));
        processed.update(metrics);
        lateSeconds.update(metrics);
        unpriced.update(metrics);
        invalidPrices.update(metrics);
    }

    /**
     * A partition's lag as a stream thread's own consumer measured it at its last fetch; the
     * restore and global consumers read changelogs, not the engine's input.
     */
    private static boolean isStreamThreadLag(MetricName name) {
        String client = name.tags().getOrDefault("client-id", "");
        return name.group().equals("consumer-fetch-manager-metrics") && name.name().equals("records-lag")
                && name.tags().containsKey("partition") && client.endsWith("-consumer")
                && !client.endsWith("-restore-consumer") && !client.endsWith("-global-consumer");
    }

    /** NaN while no stream thread of this instance holds a partition of the topic. */
    private Double lagGauge(String topic) {
        Gauge.builder("gpuledger.engine.consumer.lag.records", lag, byTopic -> byTopic.getOrDefault(topic, Double.NaN))
                .description("records of the topic's partitions this instance holds that wait for its stream threads")
                .tag("topic", topic).register(registry);
        return Double.NaN;
    }

    private KafkaTotal deadLetterCounter(String kind) {
        KafkaTotal total = new KafkaTotal(name -> name.group().equals(GROUP)
                && name.name().equals("dead-letters-total") && kind.equals(name.tags().get(TAG)));
        FunctionCounter.builder("gpuledger.engine.dead.letters", total, KafkaTotal::total)
                .description("records the engine refused or failed on, by kind (see docs/metrics.md)")
                .tag("kind", kind).register(registry);
        return total;
    }

    @Override
    public void close() {
        kafka.close();
        registry.close();
    }
}
