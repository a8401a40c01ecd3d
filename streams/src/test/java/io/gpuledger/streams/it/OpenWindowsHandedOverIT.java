package io.gpuledger.streams.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gpuledger.broker.EmbeddedKafka;
import io.gpuledger.model.GpuUsage;
import io.gpuledger.model.Json;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Placement;
import io.gpuledger.model.TelemetrySample;
import io.gpuledger.model.TopicAdmin;
import io.gpuledger.model.Topics;
import io.gpuledger.streams.CostEngine;
import io.gpuledger.streams.CostEngineConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The last samples a task ever gets are taken by one engine, and the task moves to another
 * before the first sent their open window: the second, started on an empty state directory and
 * restored from the changelog, must send that window although no sample of its GPUs comes again.
 * The case of a fleet that stops reporting (a whole pool drained, the end of a replayed backlog)
 * while the engines rebalance.
 *
 * <p>The first engine commits every 30 s, so its input turns quiet (and it sends the windows a
 * backlog held back) only after it was closed; the samples are an hour old, so no window is live.
 * Seen to fail (2026-12-05) when a restored task lists no GPU with unsent windows until its next
 * sample: the open minute never came.
 */
class OpenWindowsHandedOverIT {

    private static final List<String> GPUS = List.of("GPU-handover-a", "GPU-handover-b");
    private static final int INTERVAL_SECONDS = 10;
    private static final Duration SPAN = Duration.ofMinutes(5);
    private static final Duration GRACE = Duration.ofMinutes(1);
    private static final double PER_INSTANCE_HOUR = 32.77;
    private static final Duration WAIT = Duration.ofSeconds(90);

    @TempDir
    Path dir;

    @Test
    void shouldSendTheOpenWindowsOfATaskHandedOverAfterItsLastSample() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            String bootstrap = kafka.bootstrapServers();
            TopicAdmin.ensureTopics(bootstrap, 1);
            // Given five minutes of two GPUs, an hour ago, every 10 s: the last sample, dated by
            // its middle 5 s before the span's end, closes the minutes that end a minute of grace
            // before that (the first three) and leaves the fourth and fifth open
            Instant start = Instant.now().minus(Duration.ofHours(1)).truncatedTo(ChronoUnit.MINUTES);
            P4dPrices.publish(bootstrap, P4dPrices.onDemand(PER_INSTANCE_HOUR, start.minus(Duration.ofDays(1))));
            publishSamples(bootstrap, start);
            Instant lastClosed = start.plus(Duration.ofMinutes(2));
            List<Instant> open = List.of(start.plus(Duration.ofMinutes(3)), start.plus(Duration.ofMinutes(4)));
            String application = "handover-" + System.nanoTime();

            // When one engine takes every sample, and is stopped once it closed the third minute
            CostEngineConfig first = CostEngineConfig.defaults(bootstrap, dir.resolve("first"))
                    .withApplicationId(application).withGrace(GRACE).withCommitInterval(Duration.ofSeconds(30));
            try (CostEngine engine = new CostEngine(first)) {
                engine.start();
                assertThat(engine.awaitRunning(WAIT)).isTrue();
                for (String gpu : GPUS) {
                    CommittedRecords.first(bootstrap, Topics.USAGE.name(), Topics.USAGE.valueSerde().deserializer(),
                            record -> record.key().equals(gpu) && record.value().closed()
                                    && record.value().windowStart().equals(lastClosed), WAIT);
                }
            }
            assertThat(windowsFrom(bootstrap, open.get(0))).as("open minutes sent by the first engine").isEmpty();

            // and another, on an empty state directory, takes the task over
            CostEngineConfig second = CostEngineConfig.defaults(bootstrap, dir.resolve("second"))
                    .withApplicationId(application).withGrace(GRACE).withCommitInterval(Duration.ofSeconds(1));
            List<GpuUsage> sent = new ArrayList<>();
            try (CostEngine engine = new CostEngine(second)) {
                engine.start();
                assertThat(engine.awaitRunning(WAIT)).isTrue();
                for (String gpu : GPUS) {
                    for (Instant minute : open) {
                        sent.add(CommittedRecords.first(bootstrap, Topics.USAGE.name(),
                                Topics.USAGE.valueSerde().deserializer(), record -> record.key().equals(gpu)
                                        && record.value().windowStart().equals(minute), WAIT).value());
                    }
                }
            }

            // Then each GPU's open minutes come, as its samples left them: six samples each, 60 s
            // of a GPU at 32.77 USD an hour for eight
            assertThat(sent).hasSize(GPUS.size() * open.size());
            for (GpuUsage window : sent) {
                assertThat(window.samples()).as(window.gpuUuid()).isEqualTo(6);
                assertThat(window.cost()).as(window.gpuUuid())
                        .isCloseTo(60 * PER_INSTANCE_HOUR / P4dPrices.GPUS_PER_INSTANCE / 3600, within(1e-9));
            }
        }
    }

    /** Each GPU's sample every {@link #INTERVAL_SECONDS} of the span after {@code start}, in time order. */
    private static void publishSamples(String bootstrap, Instant start) throws Exception {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(props, new StringSerializer(),
                new ByteArraySerializer())) {
            for (long second = INTERVAL_SECONDS; second <= SPAN.toSeconds(); second += INTERVAL_SECONDS) {
                Instant time = start.plusSeconds(second);
                for (String gpu : GPUS) {
                    TelemetrySample sample = TelemetrySample.builder().gpuUuid(gpu).gpuModel("A100-40GB")
                            .placement(new Placement("node-" + gpu, "i-" + gpu, "p4d.24xlarge", "aws", "us-east-1",
                                    Lifecycle.ON_DEMAND))
                            .jobId("job-handover").time(time).intervalSeconds(INTERVAL_SECONDS).smActive(0.5).build();
                    producer.send(new ProducerRecord<>(Topics.TELEMETRY.name(), null, time.toEpochMilli(), gpu,
                            Json.write(sample)));
                }
            }
            producer.flush();
        }
    }

    /** The committed windows of {@code gpu.usage.v1} that start at or after {@code start}, read to the topic's end. */
    private static List<GpuUsage> windowsFrom(String bootstrap, Instant start) {
        return CommittedRecords.all(bootstrap, Topics.USAGE.name(), Topics.USAGE.valueSerde().deserializer()).stream()
                .map(ConsumerRecord::value).filter(window -> !window.windowStart().isBefore(start)).toList();
    }
}
