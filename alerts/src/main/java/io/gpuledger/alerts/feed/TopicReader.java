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
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
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
 */
public final class TopicReader {

    /** Handles one record; returns its event time (for the export lag), or null when it has none. */
    @FunctionalInterface
    public interface Handler {
        Instant handle(ConsumerRecord<String, byte[]> record);
    }

    private static final Logger LOG = Logger.getLogger(TopicReader.class);

    private final String name;
    private final Properties consumerConfig;
    private final Map<String, Handler> handlers;
    private final Producer<String, byte[]> deadLetters;
    private final Runnable afterPoll;
    private final Clock clock;
    private final Map<String, Counter> read = new HashMap<>();
    private final Map<String, Counter> rejected = new HashMap<>();
    private final Map<String, Cell> lag = new HashMap<>();
    private volatile boolean running;
    private volatile boolean assigned;
    private Thread worker;
    private KafkaConsumer<String, byte[]> consumer;

    /**
     * @param afterPoll runs after each poll's records are handled, before the commit: flush what they caused
     */
    public TopicReader(String name, Properties consumerConfig, Map<String, Handler> handlers,
            Producer<String, byte[]> deadLetters, Runnable afterPoll, MeterRegistry registry, Clock clock) {
        this.name = name;
        this.consumerConfig = consumerConfig;
        this.handlers = Map.copyOf(handlers);
        this.deadLetters = deadLetters;
        this.afterPoll = afterPoll;
        this.clock = clock;
        MetricCatalogue catalogue = MetricCatalogue.shipped();
        for (String topic : handlers.keySet()) {
            Tags tags = Tags.of("topic", topic);
            read.put(topic, catalogue.family("gpuledger_records_read_total").counter(registry, tags));
            rejected.put(topic, catalogue.family("gpuledger_records_rejected_total").counter(registry, tags));
            Cell cell = new Cell();
            lag.put(topic, cell);
            catalogue.family("gpuledger_export_lag_seconds").gauge(registry, tags, cell, Cell::get);
        }
    }

    public synchronized void start() {
        if (running) {
            return;
        }
        consumer = new KafkaConsumer<>(consumerConfig, new StringDeserializer(), new ByteArrayDeserializer());
        running = true;
        worker = new Thread(this::run, name);
        worker.setDaemon(true);
        worker.start();
    }

    public synchronized void stop() {
        if (!running) {
            return;
        }
        running = false;
        consumer.wakeup();
        try {
            worker.join(TimeUnit.SECONDS.toMillis(10));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Whether the reader has been given its partitions and is reading. */
    public boolean ready() {
        return running && assigned;
    }

    private void run() {
        try {
            consumer.subscribe(List.copyOf(handlers.keySet()));
            while (running) {
                var records = consumer.poll(Duration.ofMillis(200));
                assigned = !consumer.assignment().isEmpty();
                for (ConsumerRecord<String, byte[]> record : records) {
                    handle(record);
                }
                if (!records.isEmpty()) {
                    afterPoll.run();
                    deadLetters.flush();
                    consumer.commitSync();
                }
            }
        } catch (WakeupException e) {
            // stop() asked us to leave the poll loop.
        } catch (RuntimeException e) {
            LOG.errorf(e, "%s stopped on an unexpected error", name);
        } finally {
            assigned = false;
            consumer.close(KafkaClients.leavingTheGroup(Duration.ofSeconds(5)));
        }
    }

    private void handle(ConsumerRecord<String, byte[]> record) {
        read.get(record.topic()).increment();
        try {
            Instant eventTime = handlers.get(record.topic()).handle(record);
            if (eventTime != null) {
                lag.get(record.topic()).set(Math.max(0, clock.millis() - eventTime.toEpochMilli()) / 1000.0);
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
        rejected.get(record.topic()).increment();
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
