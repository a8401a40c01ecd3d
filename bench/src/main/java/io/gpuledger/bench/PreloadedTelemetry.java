package io.gpuledger.bench;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.util.MinimalPrettyPrinter;
import com.fasterxml.jackson.databind.ObjectWriter;
import io.gpuledger.cli.UsageException;
import io.gpuledger.ingest.kafka.Producers;
import io.gpuledger.ingest.price.PriceCatalog;
import io.gpuledger.ingest.sim.Fleet;
import io.gpuledger.ingest.sim.FleetSimulation;
import io.gpuledger.ingest.sim.SimulationSettings;
import io.gpuledger.ingest.sim.SimulationStep;
import io.gpuledger.model.Json;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.TelemetrySample;
import io.gpuledger.model.TopicAdmin;
import io.gpuledger.model.Topics;
import io.gpuledger.streams.CostEngineConfig;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * What the throughput benchmarks work on: a simulated fleet's telemetry preloaded on a broker, in
 * the JSON node agents write, ending a few minutes before now ({@link #BEFORE_NOW}), with every price version it needs;
 * and a plain consumer → producer copy of it, the ceiling of any one stage on that broker.
 */
final class PreloadedTelemetry {

    static final String COPY_TOPIC = "bench.telemetry-copy";
    private static final long SEED = 42;
    /** Kafka deletes records older than the topics' retention (7 days) by their timestamps. */
    private static final Duration LONGEST_SPAN = Duration.ofDays(6);
    /**
     * How long before now the samples end: the engine sends a window at every update from a minute
     * plus its grace before its wall clock, and later samples would make a run's last minutes a live
     * fleet's rather than the backlog being measured.
     */
    static final Duration BEFORE_NOW = CostEngineConfig.DEFAULT_GRACE.plusMinutes(2);

    private PreloadedTelemetry() {
    }

    /** The simulated time {@code samples} of {@code gpus} GPUs span; refused when the topics would not keep it. */
    static Duration span(long samples, int gpus, Duration interval) {
        Duration span = interval.multipliedBy((samples + gpus - 1) / gpus);
        if (span.compareTo(LONGEST_SPAN) > 0) {
            throw new UsageException(samples + " samples of " + gpus + " GPUs span " + span.toHours()
                    + " h of simulated time; the topics keep 7 days: give more --gpus");
        }
        return span;
    }

    /** The contract's topics and the copy's, {@link TopicAdmin#DEFAULT_PARTITIONS} partitions each. */
    static void createTopics(String bootstrap) throws ExecutionException, InterruptedException {
        TopicAdmin.ensureTopics(bootstrap, TopicAdmin.DEFAULT_PARTITIONS);
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin admin = Admin.create(props)) {
            admin.createTopics(Set.of(new NewTopic(COPY_TOPIC, TopicAdmin.DEFAULT_PARTITIONS, (short) 1))).all().get();
        }
    }

    /**
     * Publishes the simulated fleet's samples until {@code samples} are out, with every price
     * version they need: the catalog first, each spot move and confirmation as the simulation
     * makes it. All of it is in before the engine starts, so its price table holds every version
     * from the start.
     */
    static Measure preload(String bootstrap, int gpus, long samples, Duration span, Duration interval) {
        return preload(bootstrap, gpus, samples, span, interval, false, 0);
    }

    /**
     * As above; with {@code spaced}, the samples are written as Python's {@code json.dumps} writes
     * them, a space after each colon and comma, rather than in the writers' compact form that the
     * engine reads from the bytes ({@code CanonicalTelemetry}): so they go through its JSON parser. About
     * {@code sharedFraction} of the fleet's GPUs are time-sliced among several jobs, their samples listing each
     * job's share ({@code Fleet.generate}); with 0, none is.
     */
    static Measure preload(String bootstrap, int gpus, long samples, Duration span, Duration interval,
            boolean spaced, double sharedFraction) {
        List<PriceQuote> catalog = PriceCatalog.loadDefault().quotes().stream()
                .filter(quote -> quote.currency().equals("USD")).toList();
        Instant start = Instant.now().truncatedTo(ChronoUnit.SECONDS).minus(BEFORE_NOW).minus(span);
        FleetSimulation simulation = new FleetSimulation(Fleet.generate(gpus, catalog, SEED, sharedFraction), catalog,
                SimulationSettings.defaults(interval), SEED, start);
        AtomicReference<Exception> failure = new AtomicReference<>();
        long begin = System.nanoTime();
        try (KafkaProducer<byte[], byte[]> producer = Producers.forTopics(bootstrap, "bench-preload")) {
            for (PriceQuote quote : catalog) {
                producer.send(Producers.record(Topics.PRICES, quote.validFrom().toEpochMilli(), quote.key(), quote));
            }
            long sent = 0;
            while (sent < samples) {
                SimulationStep step = simulation.next();
                for (PriceQuote quote : step.priceChanges()) {
                    producer.send(Producers.record(Topics.PRICES, quote.validFrom().toEpochMilli(), quote.key(),
                            quote));
                }
                for (PriceQuote quote : step.priceConfirmations()) {
                    producer.send(Producers.record(Topics.PRICES, quote.observedAt().toEpochMilli(), quote.key(),
                            quote));
                }
                for (TelemetrySample sample : step.telemetry()) {
                    if (sent == samples) {
                        break;
                    }
                    ProducerRecord<byte[], byte[]> record = Producers.record(Topics.TELEMETRY,
                            sample.time().toEpochMilli(), sample.gpuUuid(), sample);
                    if (spaced) {
                        record = new ProducerRecord<>(record.topic(), null, record.timestamp(), record.key(),
                                spaced(sample));
                    }
                    producer.send(record, (metadata, error) -> {
                                if (error != null) {
                                    failure.compareAndSet(null, error);
                                }
                            });
                    sent++;
                }
            }
            producer.flush();
        }
        if (failure.get() != null) {
            throw new IllegalStateException("preloading failed: " + failure.get().getMessage(), failure.get());
        }
        return new Measure(samples, System.nanoTime() - begin);
    }

    private static final ObjectWriter SPACED = Json.MAPPER.writer(new MinimalPrettyPrinter() {
        @Override
        public void writeObjectFieldValueSeparator(JsonGenerator out) throws IOException {
            out.writeRaw(": ");
        }

        @Override
        public void writeObjectEntrySeparator(JsonGenerator out) throws IOException {
            out.writeRaw(", ");
        }

        @Override
        public void writeArrayValueSeparator(JsonGenerator out) throws IOException {
            out.writeRaw(", ");
        }
    });

    private static byte[] spaced(TelemetrySample sample) {
        try {
            return SPACED.writeValueAsBytes(sample);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write a sample", e);
        }
    }

    /** Copies every telemetry record to a topic of its own, as the simplest stage would, and times it. */
    static Measure copy(String bootstrap, long records, String groupId) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        long begin = System.nanoTime();
        long copied = 0;
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
                KafkaProducer<byte[], byte[]> producer = Producers.forTopics(bootstrap, groupId)) {
            consumer.subscribe(List.of(Topics.TELEMETRY.name()));
            while (copied < records) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(100))) {
                    producer.send(new ProducerRecord<>(COPY_TOPIC, null, record.timestamp(), record.key(),
                            record.value()));
                    copied++;
                }
            }
            producer.flush();
        }
        return new Measure(copied, System.nanoTime() - begin);
    }

    /**
     * What the broker holds per topic after the run (compressed, as stored), per telemetry sample:
     * the engine's writes are most of the broker's work besides serving the input.
     */
    static void printTopicBytes(String bootstrap, long samples, PrintStream out)
            throws ExecutionException, InterruptedException {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        Map<String, Long> bytes = new TreeMap<>();
        Map<String, Long> offsets = new TreeMap<>();
        try (Admin admin = Admin.create(props)) {
            Collection<Integer> brokers = admin.describeCluster().nodes().get().stream().map(Node::id).toList();
            Map<TopicPartition, OffsetSpec> partitions = new HashMap<>();
            for (Map<String, LogDirDescription> dirs : admin.describeLogDirs(brokers).allDescriptions().get()
                    .values()) {
                for (LogDirDescription dir : dirs.values()) {
                    dir.replicaInfos().forEach((partition, replica) -> {
                        bytes.merge(partition.topic(), replica.size(), Long::sum);
                        partitions.put(partition, OffsetSpec.latest());
                    });
                }
            }
            admin.listOffsets(partitions).all().get().forEach((partition, latest) ->
                    offsets.merge(partition.topic(), latest.offset(), Long::sum));
        }
        // Offsets count transaction markers too: one a partition written to, each transaction.
        out.println("per telemetry sample, by topic (after the run): bytes on the broker, records and markers");
        bytes.entrySet().stream().filter(entry -> entry.getValue() > 0)
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                .forEach(entry -> out.printf("  %8.1f  %6.3f  %s%n", entry.getValue() / (double) samples,
                        offsets.getOrDefault(entry.getKey(), 0L) / (double) samples, entry.getKey()));
    }

    /** The machine's load when a benchmark starts: on a shared machine, what the figures must be read against. */
    static String loadAverage() {
        try {
            String[] fields = Files.readString(Path.of("/proc/loadavg")).split(" ");
            return fields[0] + " " + fields[1] + " " + fields[2];
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }
}
