package io.gpuledger.streams.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gpuledger.model.CapacityEvent;
import io.gpuledger.model.CapacityEventKind;
import io.gpuledger.model.DeadLetters;
import io.gpuledger.model.EnrichedCapacityEvent;
import io.gpuledger.model.GpuUsage;
import io.gpuledger.model.Json;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Placement;
import io.gpuledger.model.TelemetrySample;
import io.gpuledger.model.TopicAdmin;
import io.gpuledger.model.Topics;
import io.gpuledger.model.UsageRollup;
import io.gpuledger.streams.CostEngine;
import io.gpuledger.streams.CostEngineConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cost engine on a real broker: prices and telemetry produced, usage windows and dead
 * letters read back committed; and the engine committing as soon as it has sent what readers
 * wait for, not only at its commit interval. Each subclass supplies a broker.
 */
abstract class CostEngineOnBrokerScenario {

    private static final Instant T0 = Instant.parse("2026-03-01T12:00:00Z");
    private static final String GPU = "GPU-0c5ad2e2-96e4-4d8b-9b0e-3c1b6a1f0a11";
    /** Far longer than any wait of the live test: anything read within them was committed on request. */
    private static final Duration COMMIT_INTERVAL = Duration.ofMinutes(2);
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final String LIVE_GPU = "GPU-5d1e0f3a-2b7c-4e9d-8a61-0f4c2b9e7d30";
    private static final Placement LIVE_PLACEMENT = new Placement("node-1", "i-live", "p4d.24xlarge", "aws",
            "us-east-1", Lifecycle.SPOT);

    @TempDir
    Path stateDir;

    abstract String bootstrapServers();

    @Test
    void shouldPublishCommittedUsageWindowsChargedAtThePriceInForce() throws Exception {
        String bootstrap = bootstrapServers();
        TopicAdmin.ensureTopics(bootstrap, 2);
        P4dPrices.publish(bootstrap, P4dPrices.onDemand(32.77, T0.minus(Duration.ofDays(30))),
                P4dPrices.onDemand(40.00, T0.plusSeconds(30)));

        CostEngineConfig defaults = CostEngineConfig.defaults(bootstrap, stateDir);
        try (CostEngine engine = new CostEngine(defaults.withApplicationId("scenario-" + System.nanoTime())
                .withCommitInterval(Duration.ofMillis(200)))) {
            engine.start();
            assertThat(engine.awaitRunning(Duration.ofSeconds(60))).isTrue();

            try (KafkaProducer<String, byte[]> producer = rawProducer(bootstrap)) {
                for (int i = 1; i <= 6; i++) {
                    TelemetrySample sample = TelemetrySample.builder().gpuUuid(GPU).gpuModel("A100-40GB")
                            .placement(new Placement("node-1", "i-1", "p4d.24xlarge", "aws", "us-east-1",
                                    Lifecycle.ON_DEMAND))
                            .jobId("job-1").time(T0.plusSeconds(10L * i)).intervalSeconds(10).smActive(0.7).build();
                    producer.send(new ProducerRecord<>(Topics.TELEMETRY.name(), GPU, Json.write(sample)));
                }
                producer.send(new ProducerRecord<>(Topics.TELEMETRY.name(), GPU,
                        "not json".getBytes(StandardCharsets.UTF_8)));
            }

            GpuUsage total = waitFor(bootstrap, Topics.USAGE.name(), Topics.USAGE.valueSerde().deserializer(),
                    record -> record.key().equals(GPU) && record.value().samples() == 6).value();
            assertThat(total.cost()).isCloseTo(30.0 / 3600 * 32.77 / 8 + 30.0 / 3600 * 40.00 / 8, within(1e-12));
            assertThat(total.windowStart()).isEqualTo(T0);

            ConsumerRecord<String, byte[]> refused = waitFor(bootstrap, Topics.TELEMETRY_DEAD_LETTERS.name(),
                    Serdes.ByteArray().deserializer(), record -> record.key().equals(GPU));
            assertThat(new String(refused.value(), StandardCharsets.UTF_8)).isEqualTo("not json");
            assertThat(DeadLetters.header(refused.headers(), DeadLetters.REASON)).contains("invalid TelemetrySample");
        }
    }

    @Test
    void shouldCommitLiveViewsAndNoticesWithoutWaitingForTheCommitInterval() throws Exception {
        // Given the engine with a commit interval of two minutes (its transactions get three of them)
        String bootstrap = bootstrapServers();
        TopicAdmin.ensureTopics(bootstrap, 2);
        try (CostEngine engine = withLongCommits(bootstrap, "live-commits-")) {
            engine.start();
            assertThat(engine.awaitRunning(WAIT)).isTrue();
            long started = System.nanoTime();

            // When a GPU reports live, a sample a second, and its instance gets a spot notice
            try (KafkaProducer<String, byte[]> producer = rawProducer(bootstrap)) {
                Instant first = Instant.now().truncatedTo(ChronoUnit.SECONDS);
                for (int i = 0; i < 5; i++) {
                    TelemetrySample sample = TelemetrySample.builder().gpuUuid(LIVE_GPU).gpuModel("A100-40GB")
                            .placement(LIVE_PLACEMENT).jobId("live-job").time(first.plusSeconds(i))
                            .intervalSeconds(1).smActive(0.5).build();
                    producer.send(new ProducerRecord<>(Topics.TELEMETRY.name(), LIVE_GPU, Json.write(sample)));
                }
                Instant noticedAt = Instant.now();
                CapacityEvent notice = new CapacityEvent(CapacityEvent.SCHEMA_VERSION,
                        CapacityEvent.idOf("aws", "i-live", CapacityEventKind.SPOT_INTERRUPTION, noticedAt.toString()),
                        "aws", "us-east-1", "i-live", "p4d.24xlarge", "node-1", Lifecycle.SPOT,
                        CapacityEventKind.SPOT_INTERRUPTION, "terminate", noticedAt, noticedAt.plusSeconds(120),
                        "aws-imds", null);
                producer.send(new ProducerRecord<>(Topics.CAPACITY_EVENTS.name(), "i-live", Json.write(notice)));
            }

            // Then each is read committed before the first commit interval has passed
            GpuUsage window = CommittedRecords.first(bootstrap, Topics.USAGE.name(),
                    Topics.USAGE.valueSerde().deserializer(),
                    record -> record.key().equals(LIVE_GPU) && record.value().samples() > 0, WAIT).value();
            assertThat(window.closed()).isFalse();
            UsageRollup job = CommittedRecords.first(bootstrap, Topics.ROLLUPS.name(),
                    Topics.ROLLUPS.valueSerde().deserializer(), record -> record.key().equals("job|live-job"), WAIT)
                    .value();
            assertThat(job.totals().samples()).isPositive();
            EnrichedCapacityEvent enriched = CommittedRecords.first(bootstrap, Topics.CAPACITY_EVENTS_ENRICHED.name(),
                    Topics.CAPACITY_EVENTS_ENRICHED.valueSerde().deserializer(),
                    record -> record.key().equals("i-live"), WAIT).value();
            assertThat(enriched.event().instanceId()).isEqualTo("i-live");
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(COMMIT_INTERVAL);
        }
    }

    @Test
    void shouldCommitABacklogOnceItsSamplesStopWithoutWaitingForTheCommitInterval() throws Exception {
        // Given the engine with a commit interval of two minutes
        String bootstrap = bootstrapServers();
        TopicAdmin.ensureTopics(bootstrap, 2);
        try (CostEngine engine = withLongCommits(bootstrap, "backlog-commits-")) {
            engine.start();
            assertThat(engine.awaitRunning(WAIT)).isTrue();
            long started = System.nanoTime();

            // When three GPUs' samples of six minutes a day ago come as a backlog, none of it live
            Instant dayAgo = Instant.now().minus(Duration.ofDays(1)).truncatedTo(ChronoUnit.HOURS);
            try (KafkaProducer<String, byte[]> producer = rawProducer(bootstrap)) {
                for (int second = 10; second <= 360; second += 10) {
                    for (int gpu = 0; gpu < 3; gpu++) {
                        String uuid = "GPU-backlog-" + gpu;
                        TelemetrySample sample = TelemetrySample.builder().gpuUuid(uuid).gpuModel("A100-40GB")
                                .placement(LIVE_PLACEMENT).jobId("backlog-job").time(dayAgo.plusSeconds(second))
                                .intervalSeconds(10).smActive(0.5).build();
                        producer.send(new ProducerRecord<>(Topics.TELEMETRY.name(), uuid, Json.write(sample)));
                    }
                }
            }

            // Then its closed minutes and their roll-ups are read committed before the commit interval has passed
            GpuUsage closed = CommittedRecords.first(bootstrap, Topics.USAGE.name(),
                    Topics.USAGE.valueSerde().deserializer(),
                    record -> record.key().startsWith("GPU-backlog-") && record.value().closed(), WAIT).value();
            assertThat(closed.samples()).isEqualTo(6);
            UsageRollup job = CommittedRecords.first(bootstrap, Topics.ROLLUPS.name(),
                    Topics.ROLLUPS.valueSerde().deserializer(), record -> record.key().equals("job|backlog-job"),
                    WAIT).value();
            assertThat(job.totals().samples()).isPositive();
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(COMMIT_INTERVAL);
        }
    }

    /** A producer of records as agents write them: keys as strings, values as bytes. */
    private static KafkaProducer<String, byte[]> rawProducer(String bootstrap) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        return new KafkaProducer<>(props, new StringSerializer(), new ByteArraySerializer());
    }

    /** An engine with a commit interval of two minutes, not started. */
    private CostEngine withLongCommits(String bootstrap, String application) {
        CostEngineConfig config = CostEngineConfig.defaults(bootstrap, stateDir)
                .withApplicationId(application + System.nanoTime()).withCommitInterval(COMMIT_INTERVAL);
        return new CostEngine(config, new Properties(), (now, before) -> { });
    }

    private static <V> ConsumerRecord<String, V> waitFor(String bootstrap, String topic, Deserializer<V> values,
            java.util.function.Predicate<ConsumerRecord<String, V>> wanted) {
        return CommittedRecords.first(bootstrap, topic, values, wanted, Duration.ofSeconds(60));
    }
}
