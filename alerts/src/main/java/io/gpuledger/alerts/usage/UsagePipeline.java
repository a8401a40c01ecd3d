package io.gpuledger.alerts.usage;

import io.gpuledger.alerts.metrics.GpuMetrics;
import io.gpuledger.alerts.recommend.IdleGpuRule;
import io.gpuledger.alerts.recommend.RecommendationBook;
import io.gpuledger.alerts.recommend.RecommendationEvents;
import io.gpuledger.model.CloudEvent;
import io.gpuledger.model.GpuUsage;
import io.gpuledger.model.InvalidRecordException;
import io.gpuledger.model.Json;
import io.gpuledger.model.Recommendation;
import io.gpuledger.model.RecommendationKind;
import io.gpuledger.model.Topics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * Reads usage windows from {@code gpu.usage.v1} (committed records only), shows them as gauges
 * and runs the recommendation rules on them; new recommendations go to
 * {@code gpu.recommendations.v1}, keyed by target, and to the REST API.
 */
@ApplicationScoped
public class UsagePipeline {

    private static final Logger LOG = Logger.getLogger(UsagePipeline.class);

    private final String bootstrapServers;
    private final String groupId;
    private final GpuMetrics metrics;
    private final IdleGpuRule idleRule;
    private final RecommendationBook book;
    private final Clock clock;
    private final Counter windowsRead;
    private final Counter windowsRejected;
    private final Counter idleRecommendations;
    private volatile boolean running;
    private Thread worker;
    private KafkaConsumer<String, byte[]> consumer;
    private KafkaProducer<String, CloudEvent<Recommendation>> producer;

    public UsagePipeline(
            @ConfigProperty(name = "kafka.bootstrap.servers") String bootstrapServers,
            @ConfigProperty(name = "gpuledger.consumer.group-id") String groupId,
            @ConfigProperty(name = "gpuledger.idle.sm-active-threshold") double idleThreshold,
            @ConfigProperty(name = "gpuledger.idle.min-observed-seconds") double idleMinObservedSeconds,
            @ConfigProperty(name = "gpuledger.recommendation.ttl") Duration ttl,
            GpuMetrics metrics, RecommendationBook book, Clock clock, MeterRegistry registry) {
        this.bootstrapServers = bootstrapServers;
        this.groupId = groupId;
        this.metrics = metrics;
        this.idleRule = new IdleGpuRule(idleThreshold, idleMinObservedSeconds, ttl);
        this.book = book;
        this.clock = clock;
        this.windowsRead = Counter.builder("gpuledger.usage.windows.read")
                .description("Usage window updates read from gpu.usage.v1").register(registry);
        this.windowsRejected = Counter.builder("gpuledger.usage.windows.rejected")
                .description("Records on gpu.usage.v1 that are not valid usage windows; skipped and logged")
                .register(registry);
        this.idleRecommendations = Counter.builder("gpuledger.recommendations.published")
                .description("Recommendations published to gpu.recommendations.v1, by kind")
                .tag("kind", RecommendationKind.RECLAIM_IDLE.name())
                .register(registry);
    }

    void onStart(@Observes StartupEvent event) {
        start();
    }

    void onStop(@Observes ShutdownEvent event) {
        stop();
    }

    public synchronized void start() {
        if (running) {
            return;
        }
        consumer = new KafkaConsumer<>(consumerConfig(), new StringDeserializer(), new ByteArrayDeserializer());
        producer = new KafkaProducer<>(producerConfig(), Topics.RECOMMENDATIONS.keySerde().serializer(),
                Topics.RECOMMENDATIONS.valueSerde().serializer());
        running = true;
        worker = new Thread(this::run, "usage-pipeline");
        worker.setDaemon(true);
        worker.start();
        LOG.infof("reading %s from %s", Topics.USAGE.name(), bootstrapServers);
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
        producer.close(Duration.ofSeconds(5));
    }

    private void run() {
        try {
            consumer.subscribe(List.of(Topics.USAGE.name()));
            while (running) {
                for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(500))) {
                    handle(record);
                }
                producer.flush();
                consumer.commitSync();
            }
        } catch (WakeupException e) {
            // stop() asked us to leave the poll loop.
        } catch (RuntimeException e) {
            LOG.error("usage pipeline stopped on an unexpected error", e);
        } finally {
            consumer.close(Duration.ofSeconds(5));
        }
    }

    void handle(ConsumerRecord<String, byte[]> record) {
        GpuUsage usage;
        try {
            usage = Json.read(record.value(), GpuUsage.class);
        } catch (InvalidRecordException e) {
            windowsRejected.increment();
            LOG.warnf("skipped %s-%d@%d: %s", record.topic(), record.partition(), record.offset(), e.getMessage());
            return;
        }
        windowsRead.increment();
        metrics.record(usage);
        var now = clock.instant();
        idleRule.evaluate(usage, now).ifPresentOrElse(recommendation -> {
            if (book.offer(recommendation, now)) {
                producer.send(new ProducerRecord<>(Topics.RECOMMENDATIONS.name(), recommendation.target().id(),
                        RecommendationEvents.envelope(recommendation)));
                idleRecommendations.increment();
            }
        }, () -> {
            if (idleRule.judges(usage)) {
                book.withdraw(Recommendation.idFor(RecommendationKind.RECLAIM_IDLE, "gpu", usage.gpuUuid()));
            }
        });
    }

    private Properties consumerConfig() {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        return props;
    }

    private Properties producerConfig() {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        props.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        return props;
    }
}
