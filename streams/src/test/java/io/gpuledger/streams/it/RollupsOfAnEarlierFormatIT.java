package io.gpuledger.streams.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gpuledger.broker.EmbeddedKafka;
import io.gpuledger.model.Reading;
import io.gpuledger.model.TopicAdmin;
import io.gpuledger.model.Topics;
import io.gpuledger.model.UsageRollup;
import io.gpuledger.model.UsageRollup.Dimension;
import io.gpuledger.model.UsageTotals;
import io.gpuledger.streams.CostEngine;
import io.gpuledger.streams.CostEngineConfig;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An engine of this release restores roll-ups that the release before wrote (format 1, each key's minutes inside its
 * value) from the changelog: it sends the minute that was not sent yet with the rolling view that ends with the
 * minute after it, which only the restored minute already sent can make whole, and writes the minutes to their own
 * store and the state again in format 2. The format 1 record is laid out here by hand, field by field, as that
 * release wrote it, not by the codec under test.
 */
class RollupsOfAnEarlierFormatIT {

    private static final Duration WAIT = Duration.ofSeconds(90);
    private static final String ROLLUP_KEY = UsageRollup.keyOf(Dimension.POOL, "aws|us-east-1|p4d.24xlarge|spot");

    @TempDir
    Path dir;

    @Test
    void shouldSendAndKeepTheMinutesOfARollupTheReleaseBeforeWrote() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            String bootstrap = kafka.bootstrapServers();
            TopicAdmin.ensureTopics(bootstrap, 1);
            String application = "rollups-format-1-" + System.nanoTime();
            // Given, on the roll-ups' changelog, a pool as format 1 wrote it: a minute an hour ago, sent, of 3
            // samples costing 0.50, the minute after, not sent yet, of 6 costing 1.25, and their hour
            Instant first = Instant.now().minus(Duration.ofHours(1)).truncatedTo(ChronoUnit.HOURS);
            Instant second = first.plus(Duration.ofMinutes(1));
            byte[] formatOne = formatOne(Map.of(first, new Sum(3, 0.50, false), second, new Sum(6, 1.25, true)),
                    Map.of(first, new Sum(9, 1.75, true)));
            writeChangelog(bootstrap, application + "-rollups-changelog", formatOne);

            // When an engine of this release starts on an empty state directory and restores it
            CostEngineConfig config = CostEngineConfig.defaults(bootstrap, dir.resolve("engine"))
                    .withApplicationId(application).withCommitInterval(Duration.ofSeconds(1));
            UsageRollup minute;
            UsageRollup rolling;
            try (CostEngine engine = new CostEngine(config)) {
                engine.start();
                assertThat(engine.awaitRunning(WAIT)).isTrue();
                minute = rollup(bootstrap, second, Duration.ofMinutes(1));
                rolling = rollup(bootstrap, second.minus(Duration.ofMinutes(4)), Duration.ofMinutes(5));
            }

            // Then the minute not sent goes out as it was, with the rolling five minutes ending with it, which holds
            // the minute sent before too: 9 samples, 1.75
            assertThat(minute.totals().samples()).isEqualTo(6);
            assertThat(minute.totals().cost()).isCloseTo(1.25, within(1e-12));
            assertThat(rolling.totals().samples()).isEqualTo(9);
            assertThat(rolling.totals().cost()).isCloseTo(1.75, within(1e-12));
            // and the minutes are kept under their own keys, the state written again in format 2 (0xC0 + 2)
            assertThat(latestValue(bootstrap, application + "-rollup-minutes-changelog",
                    ROLLUP_KEY + "@" + first.toEpochMilli())).isNotNull();
            assertThat(latestValue(bootstrap, application + "-rollup-minutes-changelog",
                    ROLLUP_KEY + "@" + second.toEpochMilli())).isNotNull();
            assertThat(latestValue(bootstrap, application + "-rollups-changelog", ROLLUP_KEY)[0])
                    .isEqualTo((byte) 0xC2);
        }
    }

    private record Sum(long samples, double cost, boolean unsent) {
    }

    /** A roll-up state in format 1: version byte, dimension, id, currency, then its minutes and its hours. */
    private static byte[] formatOne(Map<Instant, Sum> minutes, Map<Instant, Sum> hours) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeByte(0xC1);
        out.writeByte(Dimension.POOL.ordinal());
        out.writeUTF("aws|us-east-1|p4d.24xlarge|spot");
        out.writeUTF("USD");
        writeSums(out, minutes);
        writeSums(out, hours);
        return bytes.toByteArray();
    }

    /**
     * Each sum after its start: GPUs and GPU equivalents; the totals (samples, the count of sums and each, the count
     * of kept means and each one's weighted sum and seconds); the work reported (reports, units, steps, step and
     * communication seconds, NCCL bytes); whether it is unsent.
     */
    private static void writeSums(DataOutputStream out, Map<Instant, Sum> sums) throws IOException {
        out.writeInt(sums.size());
        for (Map.Entry<Instant, Sum> entry : new TreeMap<>(sums).entrySet()) {
            Sum sum = entry.getValue();
            out.writeLong(entry.getKey().toEpochMilli());
            out.writeLong(1);
            out.writeDouble(1.0);
            out.writeLong(sum.samples());
            UsageTotals.Sum[] kinds = UsageTotals.Sum.values();
            out.writeByte(kinds.length);
            for (UsageTotals.Sum kind : kinds) {
                out.writeDouble(kind == UsageTotals.Sum.COST ? sum.cost() : 0);
            }
            out.writeByte(Reading.KEPT.size());
            for (int i = 0; i < Reading.KEPT.size(); i++) {
                out.writeDouble(0);
                out.writeDouble(0);
            }
            out.writeLong(0);
            out.writeInt(0);
            out.writeLong(0);
            out.writeDouble(0);
            out.writeDouble(0);
            out.writeDouble(0);
            out.writeBoolean(sum.unsent());
        }
    }

    private static void writeChangelog(String bootstrap, String topic, byte[] value) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1)
                    .configs(Map.of("cleanup.policy", "compact")))).all().get();
        }
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(props, new StringSerializer(),
                new ByteArraySerializer())) {
            producer.send(new ProducerRecord<>(topic, ROLLUP_KEY, value)).get();
        }
    }

    private static UsageRollup rollup(String bootstrap, Instant start, Duration length) {
        return CommittedRecords.first(bootstrap, Topics.ROLLUPS.name(), Topics.ROLLUPS.valueSerde().deserializer(),
                record -> record.key().equals(ROLLUP_KEY) && record.value().windowStart().equals(start)
                        && record.value().windowEnd().equals(start.plus(length)), WAIT).value();
    }

    /** The last committed value of {@code key} on {@code topic}, read to the topic's end. */
    private static byte[] latestValue(String bootstrap, String topic, String key) {
        byte[] latest = null;
        for (ConsumerRecord<String, byte[]> record : CommittedRecords.all(bootstrap, topic,
                new ByteArrayDeserializer())) {
            if (record.key().equals(key)) {
                latest = record.value();
            }
        }
        return latest;
    }
}
