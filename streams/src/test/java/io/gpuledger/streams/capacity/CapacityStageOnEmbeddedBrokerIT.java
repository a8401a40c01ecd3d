package io.gpuledger.streams.capacity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuledger.broker.EmbeddedKafka;
import io.gpuledger.model.CapacityEvent;
import io.gpuledger.model.CapacityEventKind;
import io.gpuledger.model.EnrichedCapacityEvent;
import io.gpuledger.model.GpuUsage;
import io.gpuledger.model.Json;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Mean;
import io.gpuledger.model.PlacedJob;
import io.gpuledger.model.Placement;
import io.gpuledger.model.PlacementStatus;
import io.gpuledger.model.Reading;
import io.gpuledger.model.TopicAdmin;
import io.gpuledger.model.Topics;
import io.gpuledger.model.UsageTotals;
import io.gpuledger.model.UsageTotals.Sum;
import io.gpuledger.streams.CostEngineConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The capacity stage on a real broker, under the engine's settings (exactly-once): usage and
 * notices spread over several partitions, enriched events read back committed.
 */
class CapacityStageOnEmbeddedBrokerIT {

    private static final Instant T0 = Instant.parse("2026-03-01T12:00:00Z");

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
    void shouldEnrichNoticesOfInstancesOnEveryPartitionWithTheirJobs() throws Exception {
        // Given the stage running alone, on topics of three partitions
        String bootstrap = kafka.bootstrapServers();
        TopicAdmin.ensureTopics(bootstrap, 3);
        StreamsBuilder builder = new StreamsBuilder();
        CapacityTopology.addTo(builder, CapacityTopology.DEFAULT_PLACEMENT_MAX_AGE);
        CostEngineConfig defaults = CostEngineConfig.defaults(bootstrap, stateDir);
        CostEngineConfig config = defaults.withApplicationId("capacity-" + System.nanoTime())
                .withCommitInterval(Duration.ofMillis(200));
        String application = config.applicationId();
        try (KafkaStreams streams = new KafkaStreams(builder.build(), config.toProperties())) {
            CountDownLatch running = new CountDownLatch(1);
            streams.setStateListener((now, before) -> {
                if (now == KafkaStreams.State.RUNNING) {
                    running.countDown();
                }
            });
            streams.start();
            assertThat(running.await(60, TimeUnit.SECONDS)).isTrue();

            // When six instances each report two jobs' GPUs, and then get a notice; the producer
            // stamps records as it sends them, long after their windows' time
            Properties props = new Properties();
            props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            try (KafkaProducer<String, byte[]> producer =
                    new KafkaProducer<>(props, new StringSerializer(), new ByteArraySerializer())) {
                for (int instance = 0; instance < 6; instance++) {
                    for (int gpu = 0; gpu < 4; gpu++) {
                        GpuUsage window = window("i-" + instance, gpu, gpu < 3 ? "train-" + instance : "serve");
                        producer.send(new ProducerRecord<>(Topics.USAGE.name(), window.gpuUuid(), Json.write(window)));
                    }
                }
                producer.flush();
                // Usage reaches the placement table through a repartition topic, on its own way:
                // notices sent before it arrives would rightly find instances unknown.
                awaitPlacementChangesCommitted(bootstrap, application, 24);
                for (int instance = 0; instance < 6; instance++) {
                    CapacityEvent notice = notice("i-" + instance);
                    producer.send(new ProducerRecord<>(Topics.CAPACITY_EVENTS.name(), notice.instanceId(),
                            Json.write(notice)));
                }
            }

            // Then each notice comes out once, committed, naming its instance's jobs
            Map<String, EnrichedCapacityEvent> byInstance = readEnriched(bootstrap, 6);
            assertThat(byInstance).hasSize(6);
            byInstance.forEach((instance, event) -> {
                String number = instance.substring(2);
                assertThat(event.placementStatus()).isEqualTo(PlacementStatus.CURRENT);
                assertThat(event.jobs()).containsExactly(new PlacedJob("train-" + number, 3, 4.5),
                        new PlacedJob("serve", 1, 1.5));
                assertThat(event.costPerHour()).isEqualTo(6.0);
            });
        }
    }

    /**
     * Waits until the stage has committed {@code expected} placement changes read off its
     * repartition topic: from then on the placement of every GPU sent is in its table.
     */
    private static void awaitPlacementChangesCommitted(String bootstrap, String application, long expected) {
        String topic = application + "-" + CapacityTopology.PLACEMENT_CHANGES + "-repartition";
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            await(expected + " placement changes committed").atMost(Duration.ofSeconds(60))
                    .until(() -> admin.listConsumerGroupOffsets(application).partitionsToOffsetAndMetadata().get()
                            .entrySet().stream()
                            .filter(entry -> entry.getKey().topic().equals(topic) && entry.getValue() != null)
                            .mapToLong(entry -> entry.getValue().offset())
                            .sum() >= expected);
        }
    }

    private static Map<String, EnrichedCapacityEvent> readEnriched(String bootstrap, int expected) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, "capacity-reader-" + System.nanoTime());
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        Map<String, EnrichedCapacityEvent> seen = new HashMap<>();
        try (KafkaConsumer<String, EnrichedCapacityEvent> consumer = new KafkaConsumer<>(props,
                Topics.CAPACITY_EVENTS_ENRICHED.keySerde().deserializer(),
                Topics.CAPACITY_EVENTS_ENRICHED.valueSerde().deserializer())) {
            consumer.subscribe(List.of(Topics.CAPACITY_EVENTS_ENRICHED.name()));
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (System.nanoTime() < deadline && seen.size() < expected) {
                for (ConsumerRecord<String, EnrichedCapacityEvent> record : consumer.poll(Duration.ofMillis(200))) {
                    EnrichedCapacityEvent earlier = seen.put(record.key(), record.value());
                    assertThat(earlier).as("a second event for " + record.key()).isNull();
                }
            }
        }
        return seen;
    }

    private static GpuUsage window(String instance, int gpu, String job) {
        return GpuUsage.builder().gpu("GPU-" + instance + "-" + gpu, gpu, "A100-40GB")
                .placement(new Placement("node-" + instance, instance, "p4d.24xlarge", "aws", "us-east-1",
                        Lifecycle.SPOT))
                .job(job, null).window(T0, T0.plusSeconds(60)).currency("USD")
                .totals(UsageTotals.builder().samples(12).sum(Sum.GPU_SECONDS, 60).sum(Sum.COST, 1.5 * 60 / 3600)
                        .mean(Reading.SM_ACTIVE, new Mean(0.8 * 60, 60)).build())
                .build();
    }

    private static CapacityEvent notice(String instance) {
        Instant noticedAt = T0.plusSeconds(90);
        return new CapacityEvent(CapacityEvent.SCHEMA_VERSION,
                CapacityEvent.idOf("aws", instance, CapacityEventKind.SPOT_INTERRUPTION, "2026-03-01T12:03:30Z"),
                "aws", "us-east-1", instance, "p4d.24xlarge", "node-" + instance, Lifecycle.SPOT,
                CapacityEventKind.SPOT_INTERRUPTION, "terminate", noticedAt, noticedAt.plusSeconds(120), "aws-imds",
                null);
    }
}
