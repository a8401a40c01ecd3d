package io.gpuledger.streams.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gpuledger.broker.EmbeddedKafka;
import io.gpuledger.model.GpuUsage;
import io.gpuledger.model.Json;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Offer;
import io.gpuledger.model.Placement;
import io.gpuledger.model.PriceQuote;
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
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
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
 * A day of history already in Kafka when the engine starts, on three telemetry partitions of very
 * different density, so that the engine's tasks run through it at very different paces: every
 * job, team and pool minute and hour must still be the sum of its GPUs' windows, as in a live run.
 */
class CatchUpRollupsIT {

    private static final Duration DAY = Duration.ofDays(1);
    private static final double ON_DEMAND_PER_HOUR = 32.77;
    private static final double SPOT_PER_HOUR = 12.80;
    private static final Duration WAIT = Duration.ofMinutes(3);
    /** How long nothing new must come before the engine is taken to have worked the history off. */
    private static final Duration SETTLED = Duration.ofSeconds(15);

    /** One GPU of the history: where it is read, how often it reports, whom it works for. */
    record Gpu(String uuid, int partition, int intervalSeconds, Lifecycle lifecycle, String job, String team) {

        Placement placement() {
            return new Placement("node-" + uuid, "i-" + lifecycle.name().toLowerCase() + "-" + partition,
                    "p4d.24xlarge", "aws", "us-east-1", lifecycle);
        }

        String offerKey() {
            return new Offer("aws", "us-east-1", "p4d.24xlarge", lifecycle).key();
        }
    }

    /**
     * Partition 0 is dense (six GPUs every 20 s), partition 1 sparse (one GPU every 60 s),
     * partition 2 in between: jobs, teams and pools each span partitions.
     */
    private static final List<Gpu> FLEET = List.of(
            new Gpu("GPU-catchup-0a", 0, 20, Lifecycle.ON_DEMAND, "job-a", "team-x"),
            new Gpu("GPU-catchup-0b", 0, 20, Lifecycle.ON_DEMAND, "job-a", "team-x"),
            new Gpu("GPU-catchup-0c", 0, 20, Lifecycle.ON_DEMAND, "job-b", "team-y"),
            new Gpu("GPU-catchup-0d", 0, 20, Lifecycle.SPOT, "job-b", "team-y"),
            new Gpu("GPU-catchup-0e", 0, 20, Lifecycle.SPOT, "job-c", "team-x"),
            new Gpu("GPU-catchup-0f", 0, 20, Lifecycle.SPOT, "job-c", "team-x"),
            new Gpu("GPU-catchup-1a", 1, 60, Lifecycle.ON_DEMAND, "job-a", "team-x"),
            new Gpu("GPU-catchup-2a", 2, 30, Lifecycle.SPOT, "job-b", "team-y"),
            new Gpu("GPU-catchup-2b", 2, 30, Lifecycle.ON_DEMAND, "job-c", "team-x"));

    @TempDir
    Path stateDir;

    @Test
    void shouldRollUpEveryMinuteOfADayOfHistoryWhosePartitionsAreReadAtDifferentPaces() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            rollUpADayOfHistory(kafka.bootstrapServers());
        }
    }

    private void rollUpADayOfHistory(String bootstrap) throws Exception {
        // Given a day of three partitions' history in Kafka, from two pools of one instance type
        TopicAdmin.ensureTopics(bootstrap, 3);
        Instant dayStart = Instant.now().minus(Duration.ofDays(2)).truncatedTo(ChronoUnit.DAYS);
        publishPrices(bootstrap, dayStart.minus(Duration.ofDays(30)));
        int samples = publishHistory(bootstrap, dayStart);

        // When the engine starts after it and works it off
        CostEngineConfig config = CostEngineConfig.defaults(bootstrap, stateDir)
                .withApplicationId("catch-up-" + System.nanoTime()).withCommitInterval(Duration.ofSeconds(1));
        Map<String, GpuUsage> windows;
        Map<String, UsageRollup> rollups;
        try (CostEngine engine = new CostEngine(config)) {
            engine.start();
            assertThat(engine.awaitRunning(WAIT)).isTrue();
            windows = latestWindows(bootstrap, samples);
            rollups = latestRollups(bootstrap);
        }

        // Then every GPU minute was charged: 1,440 minutes of a GPU, whatever its sampling
        assertThat(windows.size()).isEqualTo(FLEET.size() * 1440);
        assertThat(windows.values().stream().mapToLong(GpuUsage::samples).sum()).isEqualTo(samples);

        // And each job, team and pool minute and hour is the sum of its GPUs' minutes
        Map<String, Sum> expected = sumsOfGpuWindows(windows);
        Map<String, Sum> actual = new TreeMap<>();
        rollups.forEach((key, rollup) -> actual.put(key, new Sum(rollup.totals().samples(), rollup.totals().cost())));
        // (three jobs, two teams, two pools: seven subjects of 1,440 minutes and 24 hours each)
        assertThat(expected.size()).isEqualTo(7 * (1440 + 24));
        Set<String> missing = new TreeSet<>(expected.keySet());
        missing.removeAll(actual.keySet());
        assertThat(missing).as("job, team and pool minutes and hours not sent").isEmpty();
        assertThat(actual.size()).isEqualTo(expected.size());
        expected.forEach((key, sum) -> {
            assertThat(actual.get(key).samples()).as(key).isEqualTo(sum.samples());
            assertThat(actual.get(key).cost()).as(key).isCloseTo(sum.cost(), within(1e-9));
        });

        // And, by hand: the on-demand pool's first hour is five GPUs' hour (three on partition 0, one
        // each on partitions 1 and 2) at 32.77 USD an hour for 8 GPUs; 180 samples each of the three
        // every 20 s, 60 of the one every 60 s, 120 of the one every 30 s
        String onDemandHour = "pool|" + FLEET.get(0).offerKey() + "@" + dayStart + "/PT1H";
        assertThat(actual.get(onDemandHour).samples()).isEqualTo(3 * 180 + 60 + 120);
        assertThat(actual.get(onDemandHour).cost()).isCloseTo(5 * ON_DEMAND_PER_HOUR / 8, within(1e-9));
    }

    /** A minute's or hour's samples and cost. */
    record Sum(long samples, double cost) {

        Sum plus(GpuUsage window) {
            return new Sum(samples + window.samples(), cost + window.cost());
        }
    }

    /**
     * Each job's, team's and pool's minutes and hours, added up here from the GPU minutes, keyed
     * as {@link #key} keys the roll-ups.
     */
    private static Map<String, Sum> sumsOfGpuWindows(Map<String, GpuUsage> windows) {
        Map<String, Gpu> byUuid = new HashMap<>();
        FLEET.forEach(gpu -> byUuid.put(gpu.uuid(), gpu));
        Map<String, Sum> sums = new TreeMap<>();
        for (GpuUsage window : windows.values()) {
            Gpu gpu = byUuid.get(window.gpuUuid());
            List<String> subjects = List.of("job|" + gpu.job(), "team|" + gpu.team(), "pool|" + window.offer().key());
            Instant hour = window.windowStart().truncatedTo(ChronoUnit.HOURS);
            for (String subject : subjects) {
                sums.merge(subject + "@" + window.windowStart() + "/PT1M", new Sum(0, 0).plus(window),
                        (a, b) -> new Sum(a.samples() + b.samples(), a.cost() + b.cost()));
                sums.merge(subject + "@" + hour + "/PT1H", new Sum(0, 0).plus(window),
                        (a, b) -> new Sum(a.samples() + b.samples(), a.cost() + b.cost()));
            }
        }
        return sums;
    }

    private static String key(String subject, Instant start, Instant end) {
        return subject + "@" + start + "/" + Duration.between(start, end);
    }

    /** Each GPU's minutes as last sent, once every sample is in one and nothing more comes. */
    private static Map<String, GpuUsage> latestWindows(String bootstrap, int samples) {
        Map<String, GpuUsage> latest = new HashMap<>();
        try (KafkaConsumer<String, GpuUsage> consumer = committedReader(bootstrap, Topics.USAGE.name(),
                Topics.USAGE.valueSerde().deserializer())) {
            long deadline = System.nanoTime() + WAIT.toNanos();
            long quietSince = System.nanoTime();
            while (System.nanoTime() < deadline) {
                boolean any = false;
                for (ConsumerRecord<String, GpuUsage> record : consumer.poll(Duration.ofMillis(200))) {
                    any = true;
                    latest.put(record.key() + "@" + record.value().windowStart(), record.value());
                }
                quietSince = any ? System.nanoTime() : quietSince;
                long charged = latest.values().stream().mapToLong(GpuUsage::samples).sum();
                if (charged == samples && System.nanoTime() - quietSince > SETTLED.toNanos()) {
                    return latest;
                }
            }
        }
        return latest;
    }

    /** The job, team and pool minutes and hours as last sent, once nothing more comes. */
    private static Map<String, UsageRollup> latestRollups(String bootstrap) {
        Map<String, UsageRollup> latest = new HashMap<>();
        try (KafkaConsumer<String, UsageRollup> consumer = committedReader(bootstrap, Topics.ROLLUPS.name(),
                Topics.ROLLUPS.valueSerde().deserializer())) {
            long deadline = System.nanoTime() + WAIT.toNanos();
            long quietSince = System.nanoTime();
            while (System.nanoTime() < deadline && System.nanoTime() - quietSince < SETTLED.toNanos()) {
                for (ConsumerRecord<String, UsageRollup> record : consumer.poll(Duration.ofMillis(200))) {
                    quietSince = System.nanoTime();
                    UsageRollup rollup = record.value();
                    Duration length = Duration.between(rollup.windowStart(), rollup.windowEnd());
                    if (!record.key().startsWith("gpu|") && !length.equals(Duration.ofMinutes(5))) {
                        latest.put(key(record.key(), rollup.windowStart(), rollup.windowEnd()), rollup);
                    }
                }
            }
        }
        return latest;
    }

    private static <V> KafkaConsumer<String, V> committedReader(String bootstrap, String topic,
            org.apache.kafka.common.serialization.Deserializer<V> values) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, "catch-up-reader-" + System.nanoTime());
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        KafkaConsumer<String, V> consumer = new KafkaConsumer<>(props, Serdes.String().deserializer(), values);
        consumer.subscribe(List.of(topic));
        return consumer;
    }

    /** Writes the GPUs' day of samples, each to its GPU's partition, dated by their time; returns how many. */
    private static int publishHistory(String bootstrap, Instant dayStart) throws Exception {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.LINGER_MS_CONFIG, 20);
        int sent = 0;
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(props, new StringSerializer(),
                new ByteArraySerializer())) {
            // In time order, as agents publish it, each GPU on its own partition
            for (long second = 1; second <= DAY.toSeconds(); second++) {
                for (Gpu gpu : FLEET) {
                    if (second % gpu.intervalSeconds() != 0) {
                        continue;
                    }
                    Instant time = dayStart.plusSeconds(second);
                    TelemetrySample sample = TelemetrySample.builder().gpuUuid(gpu.uuid()).gpuModel("A100-40GB")
                            .placement(gpu.placement()).jobId(gpu.job()).team(gpu.team()).time(time)
                            .intervalSeconds(gpu.intervalSeconds()).smActive(0.6).build();
                    producer.send(new ProducerRecord<>(Topics.TELEMETRY.name(), gpu.partition(), time.toEpochMilli(),
                            gpu.uuid(), Json.write(sample)));
                    sent++;
                }
            }
            producer.flush();
        }
        return sent;
    }

    private static void publishPrices(String bootstrap, Instant validFrom) throws Exception {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (KafkaProducer<String, PriceQuote> producer = new KafkaProducer<>(props,
                Topics.PRICES.keySerde().serializer(), Topics.PRICES.valueSerde().serializer())) {
            for (PriceQuote quote : List.of(
                    new PriceQuote("aws", "us-east-1", "p4d.24xlarge", Lifecycle.ON_DEMAND, "A100-40GB", 8,
                            ON_DEMAND_PER_HOUR, "USD", validFrom, "test"),
                    new PriceQuote("aws", "us-east-1", "p4d.24xlarge", Lifecycle.SPOT, "A100-40GB", 8,
                            SPOT_PER_HOUR, "USD", validFrom, "test"))) {
                producer.send(new ProducerRecord<>(Topics.PRICES.name(), quote.key(), quote)).get();
            }
        }
    }
}
