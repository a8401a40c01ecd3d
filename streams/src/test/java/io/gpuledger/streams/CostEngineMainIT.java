package io.gpuledger.streams;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gpuledger.model.GpuUsage;
import io.gpuledger.model.Json;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Offer;
import io.gpuledger.model.Placement;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.TelemetrySample;
import io.gpuledger.model.TopicAdmin;
import io.gpuledger.model.Topics;
import io.gpuledger.streams.it.P4dPrices;
import io.gpuledger.testing.BrokerExtension;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The engine as its own process on a real broker, started and stopped the way a supervisor does. */
class CostEngineMainIT {

    private static final Instant T0 = Instant.parse("2026-03-01T12:00:00Z");
    private static final String GPU = "GPU-7d0e4a52-3f1b-4c8e-9a65-2b1f0c3d4e5f";
    /** What the JVM reports for a process ended by SIGTERM, shutdown hooks run: 128 + 15. */
    private static final int TERMINATED = 143;

    @TempDir
    Path dir;

    @RegisterExtension
    final BrokerExtension broker = BrokerExtension.withoutTopics();

    @Test
    void shouldPublishUsageAsItsOwnProcessAndStopCleanlyOnSigterm() throws Exception {
        // Given a broker that holds a price, and the engine started as a process of its own
        String bootstrap = broker.bootstrap();
        Path log = dir.resolve("engine.log");
        try (CostEngineProcess engine = startWithAPrice(bootstrap, "main-test", log)) {

            // When a GPU reports two 10-second samples
            publishSamples(bootstrap, 2);

            // Then their window is published and committed, charged at the price in force
            GpuUsage window = awaitWindowOf(bootstrap, 2);
            assertThat(window.cost()).isCloseTo(20.0 / 3600 * 32.77 / 8, within(1e-12));

            // And SIGTERM stops it: Kafka Streams closed before the JVM exited
            assertThat(engine.stop(Duration.ofSeconds(40))).isEqualTo(TERMINATED);
            assertThat(Files.readString(log)).contains(CostEngineMain.STOPPED);
        }
    }

    @Test
    void shouldGoOnAfterPoisonRecordsOnEveryInputAndStillStopCleanlyOnSigterm() throws Exception {
        // Given the engine running as a process of its own, a price known
        String bootstrap = broker.bootstrap();
        Path log = dir.resolve("engine.log");
        try (CostEngineProcess engine = startWithAPrice(bootstrap, "poison-test", log)) {

            // When a JSON null, an empty value and a JSON array come on each of its four inputs
            List<String> inputs = List.of(Topics.TELEMETRY.name(), Topics.JOB_PROGRESS.name(),
                    Topics.CAPACITY_EVENTS.name(), Topics.PRICES.name());
            publishPoison(bootstrap, inputs);
            // and then a GPU's two 10-second samples
            publishSamples(bootstrap, 2);

            // Then the samples after them are charged at the price in force
            GpuUsage window = awaitWindowOf(bootstrap, 2);
            assertThat(window.cost()).isCloseTo(20.0 / 3600 * 32.77 / 8, within(1e-12));
            // and the three poisons of each input but prices are kept on its dead-letter topic
            for (String deadLetters : List.of(Topics.TELEMETRY_DEAD_LETTERS.name(),
                    Topics.JOB_PROGRESS_DEAD_LETTERS.name(), Topics.CAPACITY_EVENT_DEAD_LETTERS.name())) {
                assertThat(awaitRecords(bootstrap, deadLetters, 3)).as(deadLetters).hasSize(3);
            }

            // And the engine still runs, and SIGTERM stops it: Kafka Streams closed before the JVM
            // exited with 143 (128 + 15), within a bound only a hung engine would miss
            assertThat(engine.isAlive()).as("engine running after the poison; its log:\n" + engine.tail()).isTrue();
            assertThat(engine.stop(Duration.ofSeconds(60))).isEqualTo(TERMINATED);
            assertThat(Files.readString(log)).contains(CostEngineMain.STOPPED);
        }
    }

    @Test
    void shouldSayOnceWhichInputTopicsAreMissingAndStopWhenTheyDoNotCome() throws Exception {
        // Given a broker without any of the engine's topics
        Path log = dir.resolve("engine.log");

        // When the engine starts on it, told to wait 4 s for its inputs
        try (CostEngineProcess engine = CostEngineProcess.start(System.getProperty("java.class.path"),
                List.of("-Xmx256m"), List.of("--bootstrap-servers", broker.bootstrap(), "--application-id",
                        "missing-topics-test", "--state-dir", dir.resolve("state").toString(), "--topics-wait", "4"),
                log)) {

            // Then it stops by itself with status 1, never having run
            assertThat(engine.awaitExit(Duration.ofSeconds(60))).as(engine.tail()).isEqualTo(1);
            String said = Files.readString(log);
            assertThat(said).doesNotContain(CostEngineMain.RUNNING);
            // having named the four inputs and where their settings are, once, and no stack trace
            List<String> waiting = said.lines().filter(line -> line.contains("waiting up to 4 s for input topics"))
                    .toList();
            assertThat(waiting).hasSize(1);
            assertThat(waiting.get(0)).contains(Topics.TELEMETRY.name(), Topics.JOB_PROGRESS.name(),
                    Topics.CAPACITY_EVENTS.name(), Topics.PRICES.name(), "deploy/k8s/base/topics.yaml");
            assertThat(said).contains("input topics still missing after 4 s").doesNotContain("\tat ");
        }
    }

    @Test
    void shouldSayWhoseClockDatesItsInputs() throws Exception {
        // Given the engine started on the contract's topics, which the broker dates as it takes records
        Path log = dir.resolve("engine.log");
        try (CostEngineProcess engine = startWithAPrice(broker.bootstrap(), "clock-test", log)) {

            // Then it said so for both inputs whose times drive its clock
            String said = Files.readString(log);
            assertThat(said).contains(Topics.TELEMETRY.name() + ": dated by the broker (LogAppendTime)",
                    Topics.JOB_PROGRESS.name() + ": dated by the broker (LogAppendTime)");
            assertThat(engine.isAlive()).isTrue();
        }
    }

    /** The engine as a process of its own, running, on a broker whose topics exist and hold a price. */
    private CostEngineProcess startWithAPrice(String bootstrap, String applicationId, Path log) throws Exception {
        TopicAdmin.ensureTopics(bootstrap, 1);
        P4dPrices.publish(bootstrap, P4dPrices.onDemand(32.77, T0.minus(Duration.ofDays(30))));
        CostEngineProcess engine = CostEngineProcess.start(System.getProperty("java.class.path"), List.of("-Xmx256m"),
                List.of("--bootstrap-servers", bootstrap, "--application-id", applicationId, "--state-dir",
                        dir.resolve("state").toString()), log);
        try {
            engine.awaitRunning(Duration.ofSeconds(90));
        } catch (RuntimeException | java.io.IOException | InterruptedException e) {
            engine.close();
            throw e;
        }
        return engine;
    }

    /** On each topic: the JSON literal null, an empty value and an empty JSON array, keyed as its records are. */
    private static void publishPoison(String bootstrap, List<String> topics) throws Exception {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        Map<String, String> keys = Map.of(Topics.TELEMETRY.name(), GPU, Topics.JOB_PROGRESS.name(), "job-1",
                Topics.CAPACITY_EVENTS.name(), "i-1", Topics.PRICES.name(),
                PriceQuote.versionKey(new Offer("aws", "us-east-1", "p4d.24xlarge", Lifecycle.ON_DEMAND), T0));
        try (KafkaProducer<String, byte[]> producer =
                new KafkaProducer<>(props, new StringSerializer(), new ByteArraySerializer())) {
            for (String topic : topics) {
                for (String poison : List.of("null", "", "[]")) {
                    producer.send(new ProducerRecord<>(topic, null, T0.toEpochMilli(), keys.get(topic),
                            poison.getBytes(StandardCharsets.UTF_8))).get();
                }
            }
        }
    }

    /** The first {@code count} committed records of {@code topic}, or as many as came within 60 s. */
    private static List<ConsumerRecord<String, byte[]>> awaitRecords(String bootstrap, String topic, int count) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, "poison-test-reader-" + topic);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        List<ConsumerRecord<String, byte[]>> records = new ArrayList<>();
        try (KafkaConsumer<String, byte[]> consumer =
                new KafkaConsumer<>(props, new StringDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(topic));
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (records.size() < count && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
        }
        return records;
    }

    private static void publishSamples(String bootstrap, int count) throws Exception {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (KafkaProducer<String, byte[]> producer =
                new KafkaProducer<>(props, new StringSerializer(), new ByteArraySerializer())) {
            for (int i = 1; i <= count; i++) {
                TelemetrySample sample = TelemetrySample.builder().gpuUuid(GPU).gpuModel("A100-40GB")
                        .placement(new Placement("node-1", "i-1", "p4d.24xlarge", "aws", "us-east-1",
                                Lifecycle.ON_DEMAND))
                        .jobId("job-1").time(T0.plusSeconds(10L * i)).intervalSeconds(10).smActive(0.5).build();
                producer.send(new ProducerRecord<>(Topics.TELEMETRY.name(), null, sample.time().toEpochMilli(), GPU,
                        Json.write(sample))).get();
            }
        }
    }

    private static GpuUsage awaitWindowOf(String bootstrap, long samples) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, "main-test-reader");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        try (KafkaConsumer<String, GpuUsage> consumer = new KafkaConsumer<>(props,
                Topics.USAGE.keySerde().deserializer(), Topics.USAGE.valueSerde().deserializer())) {
            consumer.subscribe(List.of(Topics.USAGE.name()));
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (System.nanoTime() < deadline) {
                for (ConsumerRecord<String, GpuUsage> record : consumer.poll(Duration.ofMillis(200))) {
                    if (record.value().samples() == samples) {
                        return record.value();
                    }
                }
            }
        }
        throw new AssertionError("no committed window of " + samples + " samples within 60 s");
    }
}
