package io.gpuledger.streams.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuledger.broker.EmbeddedKafka;
import io.gpuledger.model.CapacityEvent;
import io.gpuledger.model.CapacityEventKind;
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
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The engine commits as soon as it has sent what readers wait for, not only at its commit
 * interval: with an interval of two minutes, a live GPU's window, its job's roll-up and an
 * enriched notice are all read ({@code read_committed}) long before the first interval ends.
 */
class LiveCommitsTest {

    /** Far longer than any wait below: anything read within them was committed on request. */
    private static final Duration COMMIT_INTERVAL = Duration.ofMinutes(2);
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final String GPU = "GPU-5d1e0f3a-2b7c-4e9d-8a61-0f4c2b9e7d30";
    private static final Placement PLACEMENT = new Placement("node-1", "i-live", "p4d.24xlarge", "aws", "us-east-1",
            Lifecycle.SPOT);

    private static EmbeddedKafka kafka;

    @TempDir
    Path stateDir;

    @BeforeAll
    static void startBroker() {
        kafka = EmbeddedKafka.start();
    }

    @AfterAll
    static void stopBroker() {
        kafka.close();
    }

    @Test
    void shouldCommitLiveViewsAndNoticesWithoutWaitingForTheCommitInterval() throws Exception {
        // Given the engine with a commit interval of two minutes (and a transaction timeout above it)
        String bootstrap = kafka.bootstrapServers();
        TopicAdmin.ensureTopics(bootstrap, 2);
        CostEngineConfig config = CostEngineConfig.defaults(bootstrap, stateDir)
                .withApplicationId("live-commits-" + System.nanoTime()).withCommitInterval(COMMIT_INTERVAL);
        Properties overrides = new Properties();
        overrides.put(StreamsConfig.producerPrefix(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG),
                (int) COMMIT_INTERVAL.multipliedBy(2).toMillis());
        try (CostEngine engine = new CostEngine(config, overrides, (now, before) -> { })) {
            engine.start();
            assertThat(engine.awaitRunning(WAIT)).isTrue();
            long started = System.nanoTime();

            // When a GPU reports live, a sample a second, and its instance gets a spot notice
            Properties props = new Properties();
            props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            try (KafkaProducer<String, byte[]> producer =
                    new KafkaProducer<>(props, new StringSerializer(), new ByteArraySerializer())) {
                Instant first = Instant.now().truncatedTo(ChronoUnit.SECONDS);
                for (int i = 0; i < 5; i++) {
                    TelemetrySample sample = TelemetrySample.builder().gpuUuid(GPU).gpuModel("A100-40GB")
                            .placement(PLACEMENT).jobId("live-job").time(first.plusSeconds(i)).intervalSeconds(1)
                            .smActive(0.5).build();
                    producer.send(new ProducerRecord<>(Topics.TELEMETRY.name(), GPU, Json.write(sample)));
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
                    Topics.USAGE.valueSerde().deserializer(), record -> record.value().samples() > 0, WAIT).value();
            assertThat(window.closed()).isFalse();
            UsageRollup job = CommittedRecords.first(bootstrap, Topics.ROLLUPS.name(),
                    Topics.ROLLUPS.valueSerde().deserializer(), record -> record.key().equals("job|live-job"), WAIT)
                    .value();
            assertThat(job.totals().samples()).isPositive();
            EnrichedCapacityEvent enriched = CommittedRecords.first(bootstrap, Topics.CAPACITY_EVENTS_ENRICHED.name(),
                    Topics.CAPACITY_EVENTS_ENRICHED.valueSerde().deserializer(), record -> true, WAIT).value();
            assertThat(enriched.event().instanceId()).isEqualTo("i-live");
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(COMMIT_INTERVAL);
        }
    }
}
