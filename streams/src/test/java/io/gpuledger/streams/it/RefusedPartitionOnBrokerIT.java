package io.gpuledger.streams.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gpuledger.broker.EmbeddedKafka;
import io.gpuledger.model.DeadLetters;
import io.gpuledger.model.Json;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Offer;
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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * On a real broker, a telemetry partition that gets only samples of a node whose clock runs ahead
 * (all refused as from the future) must not hold back the roll-ups of the other partition: its
 * task is idle to them, and their hours close, complete, while it goes on being refused.
 */
class RefusedPartitionOnBrokerIT {

    /** p4d.24xlarge on demand: 32.77 USD an hour for its 8 GPUs. */
    private static final double INSTANCE_PER_HOUR = 32.77;
    private static final Placement NODE = new Placement("node-on-time", "i-on-time", "p4d.24xlarge", "aws",
            "us-east-1", Lifecycle.ON_DEMAND);
    private static final Placement FAST_NODE = new Placement("node-fast", "i-fast", "p4d.24xlarge", "aws",
            "us-east-1", Lifecycle.ON_DEMAND);
    private static final String POOL = new Offer("aws", "us-east-1", "p4d.24xlarge", Lifecycle.ON_DEMAND).key();
    private static final Duration WAIT = Duration.ofMinutes(3);

    @TempDir
    Path stateDir;

    @Test
    void shouldCloseTheRollupHoursOfOnePartitionWhileTheOtherGetsOnlySamplesFromTheFuture() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            String bootstrap = kafka.bootstrapServers();
            // Given two telemetry partitions, a price, and on partition 0 two hours of history of two
            // GPUs of job-a (team-x), sampled every 30 s, ending more than an hour ago
            TopicAdmin.ensureTopics(bootstrap, 2);
            Instant firstHour = Instant.now().truncatedTo(ChronoUnit.HOURS).minus(Duration.ofHours(3));
            P4dPrices.publish(bootstrap, P4dPrices.onDemand(INSTANCE_PER_HOUR, firstHour.minus(Duration.ofDays(30))));
            try (KafkaProducer<String, byte[]> producer = producer(bootstrap)) {
                for (int second = 30; second <= 7200; second += 30) {
                    for (String gpu : List.of("GPU-on-time-a", "GPU-on-time-b")) {
                        send(producer, 0, sample(gpu, NODE, "job-a", "team-x", firstHour.plusSeconds(second), 30));
                    }
                }
                producer.flush();
            }

            // When the engine runs while partition 0 gets a live GPU's samples every second, and
            // partition 1 only those of a node whose clock runs 5 minutes ahead
            CostEngineConfig config = CostEngineConfig.defaults(bootstrap, stateDir)
                    .withApplicationId("refused-partition-" + System.nanoTime())
                    .withCommitInterval(Duration.ofSeconds(1));
            Map<String, UsageRollup> hours;
            try (KafkaProducer<String, byte[]> producer = producer(bootstrap);
                    CostEngine engine = new CostEngine(config)) {
                ScheduledExecutorService feeders = Executors.newSingleThreadScheduledExecutor();
                try {
                    feeders.scheduleAtFixedRate(() -> {
                        Instant now = Instant.now();
                        send(producer, 0, sample("GPU-live", NODE, "job-live", "team-live", now, 1));
                        send(producer, 1, sample("GPU-fast-clock", FAST_NODE, "job-fast", "team-fast",
                                now.plus(Duration.ofMinutes(5)), 1));
                    }, 0, 1, TimeUnit.SECONDS);
                    engine.start();
                    assertThat(engine.awaitRunning(WAIT)).isTrue();
                    hours = historyHours(bootstrap, firstHour);
                } finally {
                    feeders.shutdownNow();
                    feeders.awaitTermination(10, TimeUnit.SECONDS);
                }
            }

            // Then each of job-a's, team-x's and the pool's two hours of history is complete: two GPUs'
            // 120 samples each, and two GPUs' hour at 32.77 / 8 USD an hour, 8.1925 USD
            for (String subject : List.of("job|job-a", "team|team-x", "pool|" + POOL)) {
                for (Instant hour : List.of(firstHour, firstHour.plus(Duration.ofHours(1)))) {
                    UsageRollup rollup = hours.get(subject + "@" + hour);
                    assertThat(rollup).as(subject + " hour " + hour + " sent").isNotNull();
                    assertThat(rollup.totals().samples()).as(subject + " " + hour).isEqualTo(240);
                    assertThat(rollup.totals().cost()).as(subject + " " + hour)
                            .isCloseTo(2 * INSTANCE_PER_HOUR / 8, within(1e-9));
                }
            }
            // And the node ahead was refused as from the future, never charged
            ConsumerRecord<String, byte[]> refused = CommittedRecords.first(bootstrap,
                    Topics.TELEMETRY_DEAD_LETTERS.name(), Serdes.ByteArray().deserializer(),
                    record -> record.key().equals("GPU-fast-clock"), WAIT);
            assertThat(DeadLetters.header(refused.headers(), DeadLetters.REASON)).startsWith("time: from the future:");
            assertThat(hours).noneSatisfy((key, rollup) -> assertThat(key).startsWith("job|job-fast"));
        }
    }

    /**
     * The two hours of history from {@code firstHour} of every subject (and any hour of the node
     * ahead's job), by {@code subject@start}, as last sent: read until those of job-a, team-x and
     * the pool are complete, or the wait ends.
     */
    private static Map<String, UsageRollup> historyHours(String bootstrap, Instant firstHour) {
        Map<String, UsageRollup> hours = new HashMap<>();
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, "refused-partition-reader-" + System.nanoTime());
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        try (KafkaConsumer<String, UsageRollup> consumer = new KafkaConsumer<>(props, Serdes.String().deserializer(),
                Topics.ROLLUPS.valueSerde().deserializer())) {
            consumer.subscribe(List.of(Topics.ROLLUPS.name()));
            long deadline = System.nanoTime() + WAIT.toNanos();
            List<Instant> history = List.of(firstHour, firstHour.plus(Duration.ofHours(1)));
            while (System.nanoTime() < deadline && complete(hours) < 6) {
                for (ConsumerRecord<String, UsageRollup> record : consumer.poll(Duration.ofMillis(200))) {
                    UsageRollup rollup = record.value();
                    boolean hour = rollup.windowEnd().equals(rollup.windowStart().plus(Duration.ofHours(1)));
                    if (hour && (history.contains(rollup.windowStart()) || record.key().startsWith("job|job-fast"))) {
                        hours.put(record.key() + "@" + rollup.windowStart(), rollup);
                    }
                }
            }
        }
        return hours;
    }

    /** How many hours of history hold all 240 samples of its two GPUs. */
    private static long complete(Map<String, UsageRollup> hours) {
        return hours.values().stream().filter(rollup -> rollup.totals().samples() == 240).count();
    }

    private static TelemetrySample sample(String gpu, Placement node, String job, String team, Instant end,
            int seconds) {
        return TelemetrySample.builder().gpuUuid(gpu).gpuModel("A100-40GB").placement(node).jobId(job).team(team)
                .time(end).intervalSeconds(seconds).smActive(0.6).build();
    }

    /** Sends a sample to a partition of its own, dated by its time as agents date them. */
    private static void send(KafkaProducer<String, byte[]> producer, int partition, TelemetrySample sample) {
        producer.send(new ProducerRecord<>(Topics.TELEMETRY.name(), partition, sample.time().toEpochMilli(),
                sample.gpuUuid(), Json.write(sample)));
    }

    private static KafkaProducer<String, byte[]> producer(String bootstrap) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        return new KafkaProducer<>(props, new StringSerializer(), new ByteArraySerializer());
    }
}
