package io.gpuledger.streams.deadletter;

import io.gpuledger.model.DeadLetters;
import io.gpuledger.model.Json;
import io.gpuledger.model.KafkaClientSettings;
import io.gpuledger.model.Topic;
import io.gpuledger.model.Topics;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.metrics.JmxReporter;
import org.apache.kafka.common.metrics.KafkaMetricsContext;
import org.apache.kafka.common.metrics.MetricConfig;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.metrics.stats.CumulativeCount;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where the engine's exception handler ({@link DeadLetterHandler}) keeps the input record that failed: on
 * its input's dead-letter topic, bytes as received, with the exception's class and message and the record's
 * origin in {@link DeadLetters} headers. Kafka Streams 4.1 gives its handlers no way to write, so this has a
 * producer of its own, outside the engine's transactions: a dead letter is written before the handler lets
 * the engine go on (at least once; a record whose task is processed again after a failure may be kept
 * twice).
 *
 * <p>Each is counted: Kafka Streams-style metric {@code dead-letters-total} of group
 * {@code stream-gpuledger-metrics}, tag {@code gpuledger-id} = {@link #PROCESSING} or {@link #PRODUCTION}
 * (JMX {@code kafka.streams:type=stream-gpuledger-metrics,gpuledger-id=...}).
 *
 * <p>The handler finds it among the engine's settings under {@link #CONFIG}; {@link io.gpuledger.streams.CostEngine}
 * puts it there and closes it.
 */
public final class DeadLetterSink implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(DeadLetterSink.class);

    /** The setting under which the engine hands its sink to the handlers. */
    public static final String CONFIG = "gpuledger.dead-letter.sink";
    /** Records that failed in a processor. */
    public static final String PROCESSING = "processing-errors";
    /** Records whose output could not be serialized or sent. */
    public static final String PRODUCTION = "production-errors";

    /** The dead-letter topic of each input the engine reads; records of its internal topics go to the usage one. */
    private static final Map<String, Topic<String, byte[]>> DEAD_LETTERS_OF = Map.of(
            Topics.TELEMETRY.name(), Topics.TELEMETRY_DEAD_LETTERS,
            Topics.JOB_PROGRESS.name(), Topics.JOB_PROGRESS_DEAD_LETTERS,
            Topics.CAPACITY_EVENTS.name(), Topics.CAPACITY_EVENT_DEAD_LETTERS,
            Topics.USAGE.name(), Topics.USAGE_DEAD_LETTERS);

    private final Producer<byte[], byte[]> producer;
    private final Duration timeout;
    private final Metrics metrics;
    private final Map<String, Sensor> sensorsByKind;

    /** @param timeout how long a dead letter may take to be written before the record is failed instead */
    public DeadLetterSink(Producer<byte[], byte[]> producer, Duration timeout) {
        this.producer = producer;
        this.timeout = timeout;
        this.metrics = new Metrics(new MetricConfig(), List.of(new JmxReporter()), Time.SYSTEM,
                new KafkaMetricsContext("kafka.streams"));
        this.sensorsByKind = Map.of(PROCESSING, sensor(PROCESSING), PRODUCTION, sensor(PRODUCTION));
    }

    /** A sink writing to the cluster at {@code bootstrapServers}, with this process's security settings. */
    public static DeadLetterSink open(String bootstrapServers, String clientId) {
        Properties props = KafkaClientSettings.producer(bootstrapServers, clientId, 5);
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 60_000);
        return new DeadLetterSink(new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer()),
                Duration.ofSeconds(90));
    }

    private Sensor sensor(String kind) {
        Sensor sensor = metrics.sensor(kind);
        sensor.add(metrics.metricName("dead-letters-total", "stream-gpuledger-metrics",
                "records the engine's exception handlers put on a dead-letter topic", Map.of("gpuledger-id", kind)),
                new CumulativeCount());
        return sensor;
    }

    /** The dead-letter topic of records read from {@code source}. */
    public static String deadLettersOf(String source) {
        Topic<String, byte[]> topic = source == null ? null : DEAD_LETTERS_OF.get(source);
        return (topic == null ? Topics.USAGE_DEAD_LETTERS : topic).name();
    }

    /** The sink among an engine's settings, as a handler is configured with them; null if none. */
    static DeadLetterSink among(Map<String, ?> configs) {
        return configs.get(CONFIG) instanceof DeadLetterSink given ? given : null;
    }

    /**
     * What a handler answers for the record {@code context} is about: true (go on) once it is kept by
     * {@code sink}, or when there is no record to keep (a punctuation failed; counted and logged all the
     * same); false (fail, as Kafka Streams would without a handler) when there is no sink or it could not
     * write, so that nothing is passed over unkept.
     */
    static boolean keptBy(DeadLetterSink sink, ErrorHandlerContext context, Exception error, String kind) {
        String where = context.topic() == null ? "a punctuation of " + context.processorNodeId()
                : context.topic() + "-" + context.partition() + "@" + context.offset() + " in "
                        + context.processorNodeId();
        if (sink == null) {
            LOG.error("{} failed, and there is no dead-letter sink to keep it", where, error);
            return false;
        }
        try {
            boolean kept = sink.keep(context, error, kind);
            LOG.error("{} failed{}; going on", where, kept ? ", kept on " + deadLettersOf(context.topic()) : "",
                    error);
            return true;
        } catch (RuntimeException e) {
            LOG.error("{} failed, and could not be kept: {}", where, e.getMessage(), error);
            return false;
        }
    }

    /**
     * Keeps the input record that {@code context} is about, as received, with why it failed; counts it as
     * {@code kind}. False when there is no input record to keep (a punctuation failed): counted all the same.
     *
     * @throws IllegalStateException when the dead letter could not be written in time
     */
    public boolean keep(ErrorHandlerContext context, Exception error, String kind) {
        sensorsByKind.get(kind).record();
        if (context.topic() == null || context.sourceRawValue() == null && context.sourceRawKey() == null) {
            return false;
        }
        RecordHeaders headers = new RecordHeaders(context.headers().toArray());
        DeadLetters.put(headers, DeadLetters.REASON, "failed in " + context.processorNodeId() + ": " + error);
        DeadLetters.put(headers, DeadLetters.FIELD, Json.ROOT);
        DeadLetters.put(headers, DeadLetters.EXCEPTION_CLASS, error.getClass().getName());
        DeadLetters.put(headers, DeadLetters.EXCEPTION_MESSAGE, error.getMessage());
        DeadLetters.put(headers, DeadLetters.SOURCE_TOPIC, context.topic());
        DeadLetters.put(headers, DeadLetters.SOURCE_PARTITION, context.partition());
        DeadLetters.put(headers, DeadLetters.SOURCE_OFFSET, context.offset());
        ProducerRecord<byte[], byte[]> letter = new ProducerRecord<>(deadLettersOf(context.topic()), null,
                System.currentTimeMillis(), context.sourceRawKey(), context.sourceRawValue(), headers);
        try {
            producer.send(letter).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted writing a dead letter to " + letter.topic(), e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("could not write a dead letter to " + letter.topic(), e);
        }
    }

    /** How many records of {@code kind} the handlers have taken. */
    public double total(String kind) {
        return (double) metrics.metric(metrics.metricName("dead-letters-total", "stream-gpuledger-metrics",
                Map.of("gpuledger-id", kind))).metricValue();
    }

    /** The counts {@link #total} reads, as Kafka metrics, for the engine's {@code /metrics}. */
    public Map<MetricName, ? extends Metric> metrics() {
        return metrics.metrics();
    }

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(5));
        metrics.close();
    }
}
