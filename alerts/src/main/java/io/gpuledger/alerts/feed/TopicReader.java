package io.gpuledger.alerts.feed;

import io.gpuledger.alerts.metrics.Cell;
import io.gpuledger.alerts.metrics.MetricCatalogue;
import io.gpuledger.model.DeadLetters;
import io.gpuledger.model.InvalidRecordException;
import io.gpuledger.model.Json;
import io.gpuledger.model.Topics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.jboss.logging.Logger;

/**
 * One consumer thread reading a set of topics, each with its handler. A record a handler cannot
 * read ({@link InvalidRecordException}) is counted, logged and kept on {@code gpu.alerts.dlq.v1}
 * with the reason and its origin in headers; reading goes on. Offsets are committed after each
 * poll's records are handled and what they caused is sent: a restart may see a record again,
 * never miss one (the handlers' outputs are idempotent by id).
 *
 * <p>Nothing ends it but {@link #stop()}: when reading fails (a commit that times out while the
 * broker is away, a {@code CommitFailedException} after the group moved on, a flush that fails),
 * its consumer is closed and a new one reads again from the last committed offsets, after a
 * backoff that doubles up to {@link Backoff#max()}. While it waits, or when its loop has not come
 * round for {@link #STUCK_AFTER}, it is not {@linkplain Health#alive() alive}: the service's
 * liveness says so. Its consumer's lag, as the client itself measures it (the {@code records-lag}
 * of each partition), is read at every turn of the loop, not only when a record arrives.
 */
public final class TopicReader {

    /** Handles one record; returns its event time (for the export lag), or null when it has none. */
    @FunctionalInterface
    public interface Handler {
        Instant handle(ConsumerRecord<String, byte[]> record);
    }

    /**
     * How long a reader waits before reading again after a failure: {@code first}, doubled each time up to {@code max}.
     */
    public record Backoff(Duration first, Duration max) {
        public static final Backoff DEFAULT = new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(30));
    }

    /** What a reader is doing. */
    public enum State {
        /** not started yet */
        NEW,
        /** its loop is polling, whether or not it holds partitions yet */
        RUNNING,
        /** reading failed; waiting out its backoff before reading again */
        RESTARTING,
        /** stopped on request */
        STOPPED,
        /** its thread ended on an error it could not recover from */
        DEAD
    }

    /**
     * A reader's health for the service's liveness.
     *
     * @param alive     running, and its loop came round within {@link #STUCK_AFTER}
     * @param restarts  times it read again after a failure
     * @param lastError the failure it last read again after, if any
     */
    public record Health(String reader, State state, boolean alive, boolean assigned, long restarts,
            Optional<String> lastError) {
    }

    /**
     * A loop that has not come round for this long is stuck: Kafka's own bound on the time
     * between two polls ({@code max.poll.interval.ms}), past which the group has moved on.
     */
    public static final Duration STUCK_AFTER = Duration.ofMinutes(5);
    /** Kafka's name of a partition's lag metric, in records, as the consumer last fetched. */
    private static final String RECORDS_LAG = "records-lag";
    private static final String FETCH_METRICS_GROUP = "consumer-fetch-manager-metrics";

    private static final Logger LOG = Logger.getLogger(TopicReader.class);

    private final String name;
    private final Properties consumerConfig;
    private final Map<String, Handler> handlers;
    private final Producer<String, byte[]> deadLetters;
    private final Runnable afterPoll;
    private final Clock clock;
    private final Backoff backoff;
    private final Map<String, Counter> recordsReadByTopic = new HashMap<>();
    private final Map<String, Counter> recordsRejectedByTopic = new HashMap<>();
    /** The newest event time read on each topic, in epoch milliseconds (NaN before the first). */
    private final Map<String, Cell> newestEventTime = new HashMap<>();
    /** Each topic's lag in records, summed over the partitions this reader holds (NaN when not known). */
    private final Map<String, Cell> lagRecords = new HashMap<>();
    /** Topics by the name Kafka's metrics give them ({@code .} made {@code _}). */
    private final Map<String, String> topicsByMetricTag = new HashMap<>();
    private final AtomicLong restarts = new AtomicLong();
    private final Object sleeper = new Object();
    private volatile boolean running;
    private volatile boolean assigned;
    private volatile State state = State.NEW;
    private volatile String lastError;
    private volatile long lastTurnNanos = System.nanoTime();
    private Thread worker;
    private volatile KafkaConsumer<String, byte[]> consumer;

    /**
     * @param afterPoll runs after each poll's records are handled, before the commit: flush what they caused
     */
    public TopicReader(String name, Properties consumerConfig, Map<String, Handler> handlers,
            Producer<String, byte[]> deadLetters, Runnable afterPoll, MeterRegistry registry, Clock clock) {
        this(name, consumerConfig, handlers, deadLetters, afterPoll, registry, clock, Backoff.DEFAULT);
    }

    /** As above, with its own backoff between a failure and reading again. */
    public TopicReader(String name, Properties consumerConfig, Map<String, Handler> handlers,
            Producer<String, byte[]> deadLetters, Runnable afterPoll, MeterRegistry registry, Clock clock,
            Backoff backoff) {
        this.name = name;
        this.consumerConfig = consumerConfig;
        this.handlers = Map.copyOf(handlers);
        this.deadLetters = deadLetters;
        this.afterPoll = afterPoll;
        this.clock = clock;
        this.backoff = backoff;
        MetricCatalogue catalogue = MetricCatalogue.shipped();
        for (String topic : handlers.keySet()) {
            Tags tags = Tags.of("topic", topic);
            recordsReadByTopic.put(topic, catalogue.family("gpuledger_records_read_total").counter(registry, tags));
            recordsRejectedByTopic.put(topic,
                    catalogue.family("gpuledger_records_rejected_total").counter(registry, tags));
            Cell newest = new Cell(Double.NaN);
            newestEventTime.put(topic, newest);
            // The age of the newest record read, as of the scrape: it grows while nothing newer is read.
            catalogue.family("gpuledger_export_lag_seconds").gauge(registry, tags, newest,
                    cell -> Math.max(0, clock.millis() - cell.get()) / 1000.0);
            Cell lag = new Cell(Double.NaN);
            lagRecords.put(topic, lag);
            catalogue.family("gpuledger_consumer_lag_records").gauge(registry, tags, lag, Cell::get);
            topicsByMetricTag.put(topic.replace('.', '_'), topic);
        }
        Tags reader = Tags.of("reader", name);
        catalogue.family("gpuledger_reader_up").gauge(registry, reader, this, r -> r.health().alive() ? 1 : 0);
        catalogue.family("gpuledger_reader_restarts_total").functionCounter(registry, reader, restarts,
                AtomicLong::get);
    }

    public synchronized void start() {
        if (running) {
            return;
        }
        running = true;
        state = State.RUNNING;
        lastTurnNanos = System.nanoTime();
        worker = new Thread(this::supervise, name);
        worker.setDaemon(true);
        worker.start();
    }

    public synchronized void stop() {
        if (!running) {
            return;
        }
        running = false;
        KafkaConsumer<String, byte[]> current = consumer;
        if (current != null) {
            current.wakeup();
        }
        synchronized (sleeper) {
            sleeper.notifyAll();
        }
        try {
            worker.join(TimeUnit.SECONDS.toMillis(10));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Whether the reader has been given its partitions and is reading. */
    public boolean ready() {
        return running && assigned && state == State.RUNNING;
    }

    public Health health() {
        State now = state;
        if (now == State.RUNNING && worker != null && !worker.isAlive()) {
            now = State.DEAD;
        }
        boolean turning = System.nanoTime() - lastTurnNanos < STUCK_AFTER.toNanos();
        return new Health(name, now, now == State.RUNNING && turning, assigned, restarts.get(),
                Optional.ofNullable(lastError));
    }

    /** Reads until stopped; a failure closes the consumer, and a new one reads again after the backoff. */
    private void supervise() {
        Duration delay = backoff.first();
        try {
            while (running) {
                try {
                    readUntilStopped();
                } catch (WakeupException e) {
                    // stop() asked us to leave the poll loop.
                } catch (RuntimeException e) {
                    if (!running) {
                        break;
                    }
                    lastError = e.toString();
                    state = State.RESTARTING;
                    LOG.errorf(e, "%s failed; reading again from its committed offsets in %s", name, delay);
                    pause(delay);
                    delay = delay.multipliedBy(2).compareTo(backoff.max()) > 0 ? backoff.max() : delay.multipliedBy(2);
                    if (running) {
                        restarts.incrementAndGet();
                        state = State.RUNNING;
                        lastTurnNanos = System.nanoTime();
                    }
                    continue;
                }
                break;
            }
            state = State.STOPPED;
        } catch (Error e) {
            state = State.DEAD;
            lastError = e.toString();
            LOG.errorf(e, "%s ended", name);
            throw e;
        }
    }

    private void readUntilStopped() {
        KafkaConsumer<String, byte[]> reading = new KafkaConsumer<>(consumerConfig, new StringDeserializer(),
                new ByteArrayDeserializer());
        consumer = reading;
        try {
            reading.subscribe(List.copyOf(handlers.keySet()));
            while (running) {
                var records = reading.poll(Duration.ofMillis(200));
                lastTurnNanos = System.nanoTime();
                assigned = !reading.assignment().isEmpty();
                for (ConsumerRecord<String, byte[]> record : records) {
                    handle(record);
                }
                if (!records.isEmpty()) {
                    afterPoll.run();
                    deadLetters.flush();
                    reading.commitSync();
                }
                readLag(reading);
            }
        } finally {
            assigned = false;
            lagRecords.values().forEach(cell -> cell.set(Double.NaN));
            consumer = null;
            try {
                reading.close(KafkaClients.leavingTheGroup(Duration.ofSeconds(5)));
            } catch (RuntimeException e) {
                LOG.warnf("%s: closing its consumer: %s", name, e.getMessage());
            }
        }
    }

    /** Each topic's lag, from the consumer's own per-partition metric; a topic it holds no partition of has none. */
    private void readLag(KafkaConsumer<String, byte[]> reading) {
        Map<String, Double> byTopic = new HashMap<>();
        for (Map.Entry<MetricName, ? extends Metric> metric : reading.metrics().entrySet()) {
            MetricName metricName = metric.getKey();
            if (!metricName.name().equals(RECORDS_LAG) || !metricName.group().equals(FETCH_METRICS_GROUP)) {
                continue;
            }
            String topic = topicsByMetricTag.get(metricName.tags().get("topic"));
            if (topic != null && metric.getValue().metricValue() instanceof Double lag && !lag.isNaN()) {
                byTopic.merge(topic, lag, Double::sum);
            }
        }
        lagRecords.forEach((topic, cell) -> cell.set(byTopic.getOrDefault(topic, Double.NaN)));
    }

    private void pause(Duration delay) {
        long until = System.nanoTime() + delay.toNanos();
        synchronized (sleeper) {
            long left;
            while (running && (left = until - System.nanoTime()) > 0) {
                try {
                    TimeUnit.NANOSECONDS.timedWait(sleeper, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    private void handle(ConsumerRecord<String, byte[]> record) {
        recordsReadByTopic.get(record.topic()).increment();
        try {
            Instant eventTime = handlers.get(record.topic()).handle(record);
            if (eventTime != null) {
                Cell newest = newestEventTime.get(record.topic());
                double millis = eventTime.toEpochMilli();
                if (Double.isNaN(newest.get()) || millis > newest.get()) {
                    newest.set(millis);
                }
            }
        } catch (InvalidRecordException e) {
            reject(record, e.getMessage(), e.field());
        } catch (RuntimeException e) {
            // A record that passed validation yet broke a handler: kept for inspection like a malformed one,
            // so that one odd record does not stop the service.
            LOG.errorf(e, "%s: handling %s-%d@%d failed", name, record.topic(), record.partition(), record.offset());
            reject(record, "processing failed: " + e, Json.ROOT);
        }
    }

    private void reject(ConsumerRecord<String, byte[]> record, String reason, String field) {
        recordsRejectedByTopic.get(record.topic()).increment();
        LOG.warnf("%s: kept %s-%d@%d on %s: %s", name, record.topic(), record.partition(), record.offset(),
                Topics.ALERTS_DEAD_LETTERS.name(), reason);
        ProducerRecord<String, byte[]> dead = new ProducerRecord<>(Topics.ALERTS_DEAD_LETTERS.name(), null,
                record.key(), record.value());
        DeadLetters.put(dead.headers(), DeadLetters.REASON, reason);
        DeadLetters.put(dead.headers(), DeadLetters.FIELD, field);
        DeadLetters.put(dead.headers(), DeadLetters.SOURCE_TOPIC, record.topic());
        DeadLetters.put(dead.headers(), DeadLetters.SOURCE_PARTITION, record.partition());
        DeadLetters.put(dead.headers(), DeadLetters.SOURCE_OFFSET, record.offset());
        deadLetters.send(dead);
    }
}
