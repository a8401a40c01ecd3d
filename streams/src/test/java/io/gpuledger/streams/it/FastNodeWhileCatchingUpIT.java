package io.gpuledger.streams.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuledger.broker.EmbeddedKafka;
import io.gpuledger.model.DeadLetters;
import io.gpuledger.model.GpuUsage;
import io.gpuledger.model.Json;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Placement;
import io.gpuledger.model.TelemetrySample;
import io.gpuledger.model.TopicAdmin;
import io.gpuledger.model.Topics;
import io.gpuledger.streams.CostEngine;
import io.gpuledger.streams.CostEngineConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node whose clock runs fast cannot drive the engine's clock while it works off a backlog. The
 * engine is down while three GPUs of one partition report every second: two on nodes whose clocks
 * are right, one on a node whose clock runs {@link #FAST} ahead. When it starts, those samples are
 * all in its past, so its own wall clock refuses none of them; before the broker dated the
 * telemetry, the fast node's samples moved the partition's clock past the minute its neighbours
 * were still in, and their samples of that minute were refused as late.
 *
 * <p>Scaled down from the case it stands for (ten minutes down, a node five minutes fast, 2 min of
 * grace, 30 s allowed ahead): {@link #DOWN} 20 s, {@link #FAST} 12 s, 2 s of grace, 1 s ahead, and
 * the outage placed so that a minute ends {@link #BOUNDARY_AFTER} into it, the minute the fast
 * node's samples would close. What matters keeps its order: ahead allowance &lt; grace &lt; fast &lt; down.
 *
 * <p>Seen to fail when the engine compares samples with its own clock only
 * ({@code CostSettings.latestTime} returning {@code now}): 5 samples of each neighbour refused as
 * late and the fast node's accepted.
 */
class FastNodeWhileCatchingUpIT {

    private static final Duration DOWN = Duration.ofSeconds(20);
    private static final Duration FAST = Duration.ofSeconds(12);
    private static final Duration BOUNDARY_AFTER = Duration.ofSeconds(5);
    private static final Duration GRACE = Duration.ofSeconds(2);
    private static final Duration AHEAD = Duration.ofSeconds(1);
    private static final List<String> NEIGHBOURS = List.of("GPU-neighbour-a", "GPU-neighbour-b");
    private static final String FAST_GPU = "GPU-fast-clock";
    private static final Duration WAIT = Duration.ofSeconds(90);

    @TempDir
    Path stateDir;

    @Test
    void shouldChargeTheNeighboursOfAFastNodeInFullWhenTheEngineCatchesUp() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            String bootstrap = kafka.bootstrapServers();
            // Given the contract's topics with one partition, so that all three GPUs share a task
            TopicAdmin.ensureTopics(bootstrap, 1);
            P4dPrices.publish(bootstrap, P4dPrices.onDemand(32.77, Instant.now().minus(Duration.ofDays(30))));

            // When, with the engine down, the three GPUs report every second for 20 s
            Map<String, Integer> sent = publishWhileDown(bootstrap);

            // and the engine then starts and works the backlog off
            CostEngineConfig config = CostEngineConfig.defaults(bootstrap, stateDir)
                    .withApplicationId("fast-node-" + System.nanoTime()).withGrace(GRACE).withMaxAhead(AHEAD)
                    .withCommitInterval(Duration.ofSeconds(1));
            Map<String, Long> charged;
            Map<String, List<String>> refused;
            try (CostEngine engine = new CostEngine(config)) {
                engine.start();
                assertThat(engine.awaitRunning(WAIT)).isTrue();
                charged = samplesCharged(bootstrap, NEIGHBOURS.size() * sent.get(NEIGHBOURS.get(0)));
                refused = refusals(bootstrap, sent.get(FAST_GPU));
            }

            // Then every sample of the two neighbours is charged, none refused as late
            for (String neighbour : NEIGHBOURS) {
                assertThat(charged.getOrDefault(neighbour, 0L)).as(neighbour + " samples charged")
                        .isEqualTo(sent.get(neighbour).longValue());
                assertThat(refused.getOrDefault(neighbour, List.of())).as(neighbour + " samples refused").isEmpty();
            }
            // and the fast node's samples are refused as from the future, by the broker's clock
            assertThat(charged.getOrDefault(FAST_GPU, 0L)).isZero();
            assertThat(refused.get(FAST_GPU)).hasSize(sent.get(FAST_GPU))
                    .allSatisfy(reason -> assertThat(reason).contains("from the future", "when the broker took it"));
        }
    }

    /**
     * Each GPU's samples, one a second for {@link #DOWN}, started so that a minute ends
     * {@link #BOUNDARY_AFTER} in; the fast node's dated {@link #FAST} ahead. Returns how many each sent.
     */
    private static Map<String, Integer> publishWhileDown(String bootstrap) throws Exception {
        long now = System.currentTimeMillis();
        long boundary = now - Math.floorMod(now, 60_000L) + 60_000L;
        long start = boundary - BOUNDARY_AFTER.toMillis();
        if (start < now) {
            start += 60_000L;
        }
        Thread.sleep(start - now);
        Map<String, Integer> sent = new HashMap<>();
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(props, new StringSerializer(),
                new ByteArraySerializer())) {
            for (long second = 0; second < DOWN.toSeconds(); second++) {
                Thread.sleep(Math.max(0, start + second * 1000 - System.currentTimeMillis()));
                // Each stamps its sample as it takes it, by its own clock
                Instant taken = Instant.ofEpochMilli(System.currentTimeMillis());
                for (String gpu : NEIGHBOURS) {
                    send(producer, gpu, taken);
                    sent.merge(gpu, 1, Integer::sum);
                }
                send(producer, FAST_GPU, taken.plus(FAST));
                sent.merge(FAST_GPU, 1, Integer::sum);
                producer.flush();
            }
        }
        return sent;
    }

    private static void send(KafkaProducer<String, byte[]> producer, String gpu, Instant time) {
        TelemetrySample sample = TelemetrySample.builder().gpuUuid(gpu).gpuModel("A100-40GB")
                .placement(new Placement("node-" + gpu, "i-" + gpu, "p4d.24xlarge", "aws", "us-east-1",
                        Lifecycle.ON_DEMAND))
                .jobId("job-1").time(time).intervalSeconds(1).smActive(0.5).build();
        // The producer's timestamp is its node's clock too; the topic has the broker replace it.
        producer.send(new ProducerRecord<>(Topics.TELEMETRY.name(), null, time.toEpochMilli(), gpu,
                Json.write(sample)));
    }

    /** Samples charged per GPU: each window's latest count, summed, once {@code expected} are in or the wait ends. */
    private static Map<String, Long> samplesCharged(String bootstrap, long expected) {
        Map<String, GpuUsage> latest = new HashMap<>();
        try (KafkaConsumer<String, byte[]> consumer = committedReader(bootstrap, Topics.USAGE.name())) {
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (System.nanoTime() < deadline) {
                for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    GpuUsage window = Json.read(record.value(), GpuUsage.class);
                    latest.merge(record.key() + "@" + window.windowStart(), window,
                            (before, now) -> now.samples() >= before.samples() ? now : before);
                }
                long neighbours = latest.values().stream().filter(w -> NEIGHBOURS.contains(w.gpuUuid()))
                        .mapToLong(GpuUsage::samples).sum();
                if (neighbours >= expected) {
                    break;
                }
            }
        }
        Map<String, Long> charged = new HashMap<>();
        latest.values().forEach(window -> charged.merge(window.gpuUuid(), window.samples(), Long::sum));
        return charged;
    }

    /** Why each GPU's samples were refused, once the fast node's {@code expected} are in or the wait ends. */
    private static Map<String, List<String>> refusals(String bootstrap, int expected) {
        Map<String, List<String>> reasons = new HashMap<>();
        try (KafkaConsumer<String, byte[]> consumer = committedReader(bootstrap,
                Topics.TELEMETRY_DEAD_LETTERS.name())) {
            long deadline = System.nanoTime() + WAIT.toNanos();
            long settle = Long.MAX_VALUE;
            while (System.nanoTime() < Math.min(deadline, settle)) {
                for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    Header reason = record.headers().lastHeader(DeadLetters.REASON);
                    reasons.computeIfAbsent(record.key(), gpu -> new java.util.ArrayList<>())
                            .add(reason == null ? "" : new String(reason.value(), StandardCharsets.UTF_8));
                }
                if (settle == Long.MAX_VALUE && reasons.getOrDefault(FAST_GPU, List.of()).size() >= expected) {
                    // a little longer, for any neighbour's refusal committed after them
                    settle = System.nanoTime() + Duration.ofSeconds(3).toNanos();
                }
            }
        }
        return reasons;
    }

    private static KafkaConsumer<String, byte[]> committedReader(String bootstrap, String topic) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, "fast-node-reader-" + System.nanoTime());
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(props, Serdes.String().deserializer(),
                new ByteArrayDeserializer());
        consumer.subscribe(List.of(topic));
        return consumer;
    }
}
