package io.gpuledger.streams.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gpuledger.model.CapacityEvent;
import io.gpuledger.model.CapacityEventKind;
import io.gpuledger.model.DeadLetters;
import io.gpuledger.model.EnrichedCapacityEvent;
import io.gpuledger.model.GpuUsage;
import io.gpuledger.model.JobProgress;
import io.gpuledger.model.Json;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Offer;
import io.gpuledger.model.Placement;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.TelemetrySample;
import io.gpuledger.model.Topic;
import io.gpuledger.model.Topics;
import io.gpuledger.streams.CostEngine;
import io.gpuledger.streams.CostEngineConfig;
import io.gpuledger.testing.BrokerExtension;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A flood of hostile records on every input topic of the cost engine, interleaved with good ones,
 * on a real broker: each hostile record must be kept on its topic's dead-letter topic with the
 * reason and its source, the good records must be charged exactly as if the flood never came, and
 * the engine must keep running. The flood is published once; each test checks one promise.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HostileInputIT {

    private static final Instant T0 = Instant.parse("2026-03-01T12:00:00Z");
    private static final String GPU = "GPU-7b1e33c0-2f4a-4c55-9d0e-8a6f1c2b3d01";
    private static final Placement NODE = new Placement("node-1", "i-1", "p4d.24xlarge", "aws", "us-east-1",
            Lifecycle.ON_DEMAND);
    private static final Offer OFFER = new Offer("aws", "us-east-1", "p4d.24xlarge", Lifecycle.ON_DEMAND);
    private static final double PRICE_PER_HOUR = 32.77;
    private static final int GOOD_SAMPLES = 6;
    private static final String ONE_MEGABYTE = "h".repeat(1_000_000);

    /** One hostile record: where it goes, its bytes, and what its dead letter's reason must say. */
    record Hostile(String name, Topic<String, ?> topic, String key, byte[] value, String reason) {

        Hostile(String name, Topic<String, ?> topic, String key, String value, String reason) {
            this(name, topic, key, value.getBytes(StandardCharsets.UTF_8), reason);
        }
    }

    @RegisterExtension
    static final BrokerExtension broker = BrokerExtension.withTopics(2);

    private Path stateDir;
    private CostEngine engine;
    private String bootstrap;
    /** Where each hostile record was written: "topic/partition/offset" to its row. */
    private final Map<String, Hostile> sent = new HashMap<>();
    private final Map<String, List<ConsumerRecord<String, byte[]>>> deadLetters = new HashMap<>();
    private List<ConsumerRecord<String, GpuUsage>> usage;

    @BeforeAll
    void floodTheEngine() throws Exception {
        bootstrap = broker.bootstrap();
        stateDir = Files.createTempDirectory("hostile-input-state");

        // Given one good price, surrounded by hostile price versions of the same offer
        try (KafkaProducer<String, byte[]> producer = producer()) {
            PriceQuote good = new PriceQuote("aws", "us-east-1", "p4d.24xlarge", Lifecycle.ON_DEMAND, "A100-40GB", 8,
                    PRICE_PER_HOUR, "USD", T0.minus(Duration.ofDays(30)), "test");
            producer.send(new ProducerRecord<>(Topics.PRICES.name(), good.key(), Json.write(good))).get();
            for (Hostile price : hostilePrices(good)) {
                producer.send(new ProducerRecord<>(Topics.PRICES.name(), price.key(), price.value())).get();
            }
        }

        engine = new CostEngine(CostEngineConfig.defaults(bootstrap, stateDir)
                .withApplicationId("hostile-" + System.nanoTime()).withCommitInterval(Duration.ofMillis(200)));
        engine.start();
        assertThat(engine.awaitRunning(Duration.ofSeconds(60))).isTrue();

        // When good telemetry, work reports and notices are published with hostile records between them
        List<byte[]> good = new ArrayList<>();
        for (int i = 1; i <= GOOD_SAMPLES; i++) {
            good.add(Json.write(sample(GPU, T0.plusSeconds(10L * i))));
        }
        try (KafkaProducer<String, byte[]> producer = producer()) {
            int next = 0;
            for (Hostile hostile : hostileRecords(good.get(0))) {
                if (next < good.size()) {
                    producer.send(new ProducerRecord<>(Topics.TELEMETRY.name(), GPU, good.get(next++))).get();
                }
                RecordMetadata at = producer.send(new ProducerRecord<>(hostile.topic().name(), hostile.key(),
                        hostile.value())).get();
                sent.put(at.topic() + "/" + at.partition() + "/" + at.offset(), hostile);
            }
            while (next < good.size()) {
                producer.send(new ProducerRecord<>(Topics.TELEMETRY.name(), GPU, good.get(next++))).get();
            }
            producer.send(new ProducerRecord<>(Topics.JOB_PROGRESS.name(), "job-1", Json.write(progress()))).get();
            producer.send(new ProducerRecord<>(Topics.CAPACITY_EVENTS.name(), "i-1", Json.write(notice()))).get();
            // and each good record's copy after it: a sample, a work report and a notice sent again
            for (Hostile copy : List.of(
                    new Hostile("telemetry: a sample sent again", Topics.TELEMETRY, GPU, good.get(2),
                            "time: duplicate: all the time it covers"),
                    new Hostile("progress: a report sent again", Topics.JOB_PROGRESS, "job-1", Json.write(progress()),
                            "time: duplicate: most of the time it covers"),
                    new Hostile("notice: a notice sent again", Topics.CAPACITY_EVENTS, "i-1", Json.write(notice()),
                            "eventId: duplicate: notice"))) {
                RecordMetadata at = producer.send(new ProducerRecord<>(copy.topic().name(), copy.key(),
                        copy.value())).get();
                sent.put(at.topic() + "/" + at.partition() + "/" + at.offset(), copy);
            }
        }

        for (Topic<String, byte[]> dlq : List.of(Topics.TELEMETRY_DEAD_LETTERS, Topics.JOB_PROGRESS_DEAD_LETTERS,
                Topics.CAPACITY_EVENT_DEAD_LETTERS)) {
            String source = sourceOf(dlq);
            long expected = sent.values().stream().filter(h -> h.topic().name().equals(source)).count();
            deadLetters.put(source, readUntil(dlq.name(), Serdes.ByteArray().deserializer(),
                    seen -> seen.size() >= expected, Duration.ZERO));
        }
        // The engine sends a changed window every 2 s: 3 s without a change means it is final.
        usage = readUntil(Topics.USAGE.name(), Topics.USAGE.valueSerde().deserializer(),
                seen -> latest(seen, GPU).map(u -> u.samples() >= GOOD_SAMPLES).orElse(false), Duration.ofSeconds(3));
    }

    @AfterAll
    void stopEverything() throws Exception {
        try {
            if (engine != null) {
                engine.close();
            }
        } finally {
            try (Stream<Path> files = Files.walk(stateDir)) {
                files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
            }
        }
    }

    @Test
    void shouldKeepEveryHostileRecordOnItsDeadLetterTopicWithTheReasonAndTheSource() {
        // Then each hostile record is on the dead-letter topic of its input, unchanged, once
        Map<String, Hostile> unseen = new HashMap<>(sent);
        List<String> wrong = new ArrayList<>();
        for (List<ConsumerRecord<String, byte[]>> records : deadLetters.values()) {
            for (ConsumerRecord<String, byte[]> record : records) {
                String source = DeadLetters.header(record.headers(), DeadLetters.SOURCE_TOPIC) + "/"
                        + DeadLetters.header(record.headers(), DeadLetters.SOURCE_PARTITION) + "/"
                        + DeadLetters.header(record.headers(), DeadLetters.SOURCE_OFFSET);
                Hostile hostile = unseen.remove(source);
                String reason = DeadLetters.header(record.headers(), DeadLetters.REASON);
                if (hostile == null) {
                    wrong.add("unexpected dead letter from " + source + ": " + reason);
                } else if (reason == null || !reason.contains(hostile.reason())) {
                    wrong.add(hostile.name() + ": reason '" + abbreviated(reason) + "' lacks '" + hostile.reason()
                            + "'");
                } else if (!java.util.Arrays.equals(record.value(), hostile.value())
                        || !java.util.Objects.equals(record.key(), hostile.key())) {
                    wrong.add(hostile.name() + ": not kept as received");
                }
            }
        }
        unseen.values().forEach(hostile -> wrong.add(hostile.name() + ": not on " + hostile.topic().name()
                + "'s dead-letter topic"));
        assertThat(wrong).isEmpty();
    }

    @Test
    void shouldChargeTheGoodSamplesAsIfNoHostileRecordCame() {
        // Then the good GPU's minute holds its six samples at the one good price, to 1e-9
        GpuUsage window = latest(usage, GPU).orElseThrow();
        assertThat(window.windowStart()).isEqualTo(T0);
        assertThat(window.samples()).isEqualTo(GOOD_SAMPLES);
        assertThat(window.totals().gpuSeconds()).isCloseTo(GOOD_SAMPLES * 10.0, within(1e-9));
        assertThat(window.cost()).isCloseTo(GOOD_SAMPLES * 10.0 / 3600 * PRICE_PER_HOUR / 8, within(1e-9));
        assertThat(usage).filteredOn(record -> record.key().equals(GPU))
                .allSatisfy(record -> assertThat(record.value().windowStart()).isEqualTo(T0));
    }

    @Test
    void shouldEnrichTheGoodNoticeDespiteTheHostileOnes() {
        // Then the one good capacity notice is enriched, and no hostile one is
        List<ConsumerRecord<String, EnrichedCapacityEvent>> enriched = readUntil(
                Topics.CAPACITY_EVENTS_ENRICHED.name(), Topics.CAPACITY_EVENTS_ENRICHED.valueSerde().deserializer(),
                seen -> !seen.isEmpty(), Duration.ofSeconds(1));
        assertThat(enriched).singleElement().satisfies(record -> assertThat(record.key()).isEqualTo("i-1"));
    }

    @Test
    void shouldStillBeRunningAfterTheFlood() {
        // Then no hostile record stopped the engine or any of its threads
        assertThat(engine.state()).isEqualTo(KafkaStreams.State.RUNNING);
    }

    /** Hostile records of every input, in the order they are sent; {@code good} is a good sample's JSON. */
    private static List<Hostile> hostileRecords(byte[] good) {
        String sample = new String(good, StandardCharsets.UTF_8);
        String work = Json.writeString(progress());
        String notice = Json.writeString(notice());
        Topic<String, TelemetrySample> telemetry = Topics.TELEMETRY;
        Topic<String, JobProgress> progress = Topics.JOB_PROGRESS;
        Topic<String, CapacityEvent> notices = Topics.CAPACITY_EVENTS;
        List<Hostile> hostile = List.of(
                new Hostile("telemetry: not JSON", telemetry, GPU, "not json at all", "TelemetrySample"),
                new Hostile("telemetry: truncated JSON", telemetry, GPU, sample.substring(0, sample.length() / 2),
                        "TelemetrySample"),
                new Hostile("telemetry: empty", telemetry, GPU, new byte[0], "empty record"),
                new Hostile("telemetry: a JSON array", telemetry, GPU, "[" + sample + "]", "TelemetrySample"),
                new Hostile("telemetry: smActive a string", telemetry, GPU, edit(sample, "smActive", "\"busy\""),
                        "smActive"),
                new Hostile("telemetry: time a boolean", telemetry, GPU, edit(sample, "time", "true"), "time"),
                new Hostile("telemetry: time a number", telemetry, GPU, edit(sample, "time", "1772366410"),
                        "time: invalid TelemetrySample: an instant must be an ISO-8601 string"),
                new Hostile("telemetry: smActive NaN", telemetry, GPU, edit(sample, "smActive", "NaN"), "smActive"),
                new Hostile("telemetry: intervalSeconds Infinity", telemetry, GPU,
                        edit(sample, "intervalSeconds", "Infinity"), "intervalSeconds"),
                new Hostile("telemetry: powerWatts -Infinity", telemetry, GPU, edit(sample, "powerWatts", "-Infinity"),
                        "powerWatts"),
                new Hostile("telemetry: negative interval", telemetry, GPU, edit(sample, "intervalSeconds", "-10"),
                        "intervalSeconds: must be positive"),
                new Hostile("telemetry: smActive 7", telemetry, GPU, edit(sample, "smActive", "7"),
                        "smActive: must be a ratio between 0 and 1, was 7.0"),
                new Hostile("telemetry: 1e12 W", telemetry, GPU, edit(sample, "powerWatts", "1e12"),
                        "powerWatts: must be at most"),
                new Hostile("telemetry: interval 1e9 s", telemetry, GPU, edit(sample, "intervalSeconds", "1e9"),
                        "intervalSeconds: must be at most"),
                new Hostile("telemetry: negative GPU index", telemetry, GPU, edit(sample, "gpuIndex", "-1"),
                        "gpuIndex"),
                new Hostile("telemetry: 1 MB host", telemetry, GPU, edit(sample, "host", "\"" + ONE_MEGABYTE + "\""),
                        "host: is longer than 256 characters"),
                new Hostile("telemetry: unknown lifecycle", telemetry, GPU, edit(sample, "lifecycle", "\"moonlight\""),
                        "lifecycle"),
                new Hostile("telemetry: far future", telemetry, GPU, edit(sample, "time", "\"2999-01-01T00:00:00Z\""),
                        "from the future"),
                new Hostile("telemetry: far past", telemetry, GPU, edit(sample, "time", "\"1999-01-01T00:00:00Z\""),
                        "late"),
                new Hostile("telemetry: keyed by another GPU", telemetry, "GPU-someone-else", sample, "record key"),
                new Hostile("telemetry: no GPU", telemetry, GPU, edit(sample, "gpuUuid", "null"), "gpuUuid"),
                new Hostile("progress: not JSON", progress, "job-1", "{{{", "JobProgress"),
                new Hostile("progress: workUnits a string", progress, "job-1", edit(work, "workUnits", "\"lots\""),
                        "workUnits"),
                new Hostile("progress: workUnits NaN", progress, "job-1", edit(work, "workUnits", "NaN"), "workUnits"),
                new Hostile("progress: negative work", progress, "job-1", edit(work, "workUnits", "-5"),
                        "workUnits: must not be negative"),
                new Hostile("progress: interval 1e9 s", progress, "job-1", edit(work, "intervalSeconds", "1e9"),
                        "intervalSeconds: must be at most"),
                new Hostile("progress: 1 MB host", progress, "job-1", edit(work, "host", "\"" + ONE_MEGABYTE + "\""),
                        "host: is longer than 256 characters"),
                new Hostile("progress: far future", progress, "job-1", edit(work, "time", "\"2999-01-01T00:00:00Z\""),
                        "time: from the future"),
                new Hostile("progress: keyed by another job", progress, "job-2", work, "record key"),
                new Hostile("notice: not JSON", notices, "i-1", "<xml/>", "CapacityEvent"),
                new Hostile("notice: unknown kind", notices, "i-1", edit(notice, "kind", "\"ASTEROID\""), "kind"),
                new Hostile("notice: kind a number", notices, "i-1", edit(notice, "kind", "7"), "kind"),
                new Hostile("notice: noticedAt a number", notices, "i-1", edit(notice, "noticedAt", "1772366440"),
                        "noticedAt: invalid CapacityEvent: an instant must be"),
                new Hostile("notice: schema 0", notices, "i-1", edit(notice, "schemaVersion", "0"), "schemaVersion"),
                new Hostile("notice: 1 MB event id", notices, "i-1", edit(notice, "eventId",
                        "\"" + ONE_MEGABYTE + "\""), "eventId: is longer than 256 characters"),
                new Hostile("notice: far future", notices, "i-1", edit(notice, "noticedAt",
                        "\"2999-01-01T00:00:00Z\""), "noticedAt: from the future"),
                new Hostile("notice: keyed by another instance", notices, "i-2", notice, "record key"));
        List<Hostile> all = new ArrayList<>(hostile);
        all.addAll(noRecords(telemetry, GPU, sample, "TelemetrySample", "TelemetrySample"));
        all.addAll(noRecords(progress, "job-1", work, "JobProgress", "JobProgress"));
        all.addAll(noRecords(notices, "i-1", notice, "CapacityEvent", "CapacityEvent"));
        return all;
    }

    /**
     * Values that are no record at all on {@code topic}, and {@code valid} without a key.
     *
     * @param wrongType what the reason of JSON of another type says
     */
    private static List<Hostile> noRecords(Topic<String, ?> topic, String key, String valid, String type,
            String wrongType) {
        String input = topic.name();
        return List.of(
                new Hostile(input + ": JSON null", topic, key, "null", "expected a JSON " + type + ", found null"),
                new Hostile(input + ": empty value", topic, key, "", "empty record"),
                new Hostile(input + ": no value", topic, key, (byte[]) null, "empty record"),
                new Hostile(input + ": a JSON string", topic, key, "\"x\"", wrongType),
                new Hostile(input + ": a JSON number", topic, key, "42", wrongType),
                new Hostile(input + ": an empty JSON array", topic, key, "[]", wrongType),
                new Hostile(input + ": no key", topic, null, valid, "record key 'null'"));
    }

    /**
     * Price versions of the good offer, each newer than the good one, that must never be charged:
     * each is not a valid quote, or not the version its key names. (A price without a key never
     * gets in: the broker refuses unkeyed records on a compacted topic.)
     */
    private static List<Hostile> hostilePrices(PriceQuote good) {
        String quote = Json.writeString(good);
        List<String> bodies = List.of("not a price", "null", "", "[]", "\"x\"", "42",
                edit(quote, "pricePerHour", "-5"), edit(quote, "pricePerHour", "NaN"),
                        edit(quote, "currency", "\"$$\""),
                edit(quote, "lifecycle", "\"moonlight\""), edit(quote, "gpuCount", "0"),
                edit(quote, "instanceType", "\"" + ONE_MEGABYTE.substring(0, 300_000) + "\""));
        List<Hostile> prices = new ArrayList<>();
        for (int i = 0; i < bodies.size(); i++) {
            Instant validFrom = T0.minus(Duration.ofDays(i + 1));
            prices.add(new Hostile("price: version " + i, Topics.PRICES, PriceQuote.versionKey(OFFER, validFrom),
                    bodies.get(i).replace(good.validFrom().toString(), validFrom.toString()), ""));
        }
        String dearer = edit(edit(quote, "pricePerHour", "99999"), "validFrom", "\"" + T0.minusSeconds(60) + "\"");
        prices.add(new Hostile("price: under another version's key", Topics.PRICES,
                PriceQuote.versionKey(OFFER, T0.minusSeconds(30)), dearer, ""));
        return prices;
    }

    private static TelemetrySample sample(String gpu, Instant time) {
        return TelemetrySample.builder().gpuUuid(gpu).gpuModel("A100-40GB").placement(NODE).jobId("job-1")
                .time(time).intervalSeconds(10).smActive(0.7).powerWatts(250.0).build();
    }

    private static JobProgress progress() {
        return new JobProgress("job-1", "research", "node-1", "i-1", List.of(GPU), T0.plusSeconds(30), 10, 1000,
                "tokens", 4, 3.2, 0.9, null, null);
    }

    private static CapacityEvent notice() {
        return new CapacityEvent(CapacityEvent.SCHEMA_VERSION, "aws:i-1:spot_interruption:t", "aws", "us-east-1",
                "i-1", "p4d.24xlarge", "node-1", Lifecycle.SPOT, CapacityEventKind.SPOT_INTERRUPTION, "terminate",
                T0.plusSeconds(40), T0.plusSeconds(160), "test", null);
    }

    /** {@code json} with {@code field}'s value replaced by the raw JSON {@code value}. */
    private static String edit(String json, String field, String value) {
        Matcher matcher = Pattern.compile("\"" + field + "\":(\"(?:[^\"\\\\]|\\\\.)*\"|[^,}\\]]*)").matcher(json);
        assertThat(matcher.find()).as("field %s in %s", field, json).isTrue();
        return json.substring(0, matcher.start(1)) + value + json.substring(matcher.end(1));
    }

    private static String sourceOf(Topic<String, byte[]> deadLetters) {
        return deadLetters.name().replace(".dlq.", ".");
    }

    private static String abbreviated(String text) {
        return text == null || text.length() < 300 ? text : text.substring(0, 300) + "…";
    }

    private static java.util.Optional<GpuUsage> latest(List<ConsumerRecord<String, GpuUsage>> records, String gpu) {
        GpuUsage last = null;
        for (ConsumerRecord<String, GpuUsage> record : records) {
            if (record.key().equals(gpu)) {
                last = record.value();
            }
        }
        return java.util.Optional.ofNullable(last);
    }

    private KafkaProducer<String, byte[]> producer() {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, 1_048_000);
        return new KafkaProducer<>(props, new StringSerializer(), new ByteArraySerializer());
    }

    /**
     * The committed records of {@code topic} from the start, read until {@code done} holds of them
     * all (20 s at most: the tests then say what is missing) and then for {@code quiet} more, so
     * that anything still in flight shows.
     */
    private <V> List<ConsumerRecord<String, V>> readUntil(String topic, Deserializer<V> values,
            Predicate<List<ConsumerRecord<String, V>>> done, Duration quiet) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, "hostile-reader-" + System.nanoTime());
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        List<ConsumerRecord<String, V>> seen = new ArrayList<>();
        try (KafkaConsumer<String, V> consumer = new KafkaConsumer<>(props, Serdes.String().deserializer(), values)) {
            consumer.subscribe(List.of(topic));
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (!done.test(seen) && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(seen::add);
            }
            long quietUntil = System.nanoTime() + quiet.toNanos();
            while (System.nanoTime() < quietUntil) {
                consumer.poll(Duration.ofMillis(200)).forEach(seen::add);
            }
        }
        return seen;
    }
}
