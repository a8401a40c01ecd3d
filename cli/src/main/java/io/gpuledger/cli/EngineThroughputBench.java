package io.gpuledger.cli;

import io.gpuledger.broker.EmbeddedKafka;
import io.gpuledger.ingest.kafka.Producers;
import io.gpuledger.ingest.price.PriceCatalog;
import io.gpuledger.ingest.sim.Fleet;
import io.gpuledger.ingest.sim.FleetSimulation;
import io.gpuledger.ingest.sim.SimulationSettings;
import io.gpuledger.ingest.sim.SimulationStep;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.TelemetrySample;
import io.gpuledger.model.TopicAdmin;
import io.gpuledger.model.Topics;
import io.gpuledger.streams.CostEngineProcess;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * {@code gpu-ledger bench engine [--samples N] [--gpus G] [--warmup W] [--threads T] [--interval S]}: how fast the
 * cost engine prices and windows telemetry, against the fastest any stage could go on the same broker.
 *
 * <p>An embedded broker in this JVM is preloaded with N telemetry samples of a simulated fleet of
 * G GPUs (JSON, as agents and the simulator write them) and the prices they need. Then, on the same
 * records: (a) a plain consumer → producer copy in this JVM, twice (the second pass with a warm
 * JIT), and (b) the cost engine as its own process ({@code CostEngineMain}, exactly-once, its
 * default 1 s commit interval), from its RUNNING line until its committed offsets reach the end of
 * the input — under exactly-once that is when its last output is committed. The engine is reported
 * over all records and after the first W (its JIT warms up on them); the ratio compares the warm
 * figures.
 */
final class EngineThroughputBench {

    private static final int PARTITIONS = 3;
    private static final long SEED = 42;
    /**
     * A sample a second per GPU, the rate fleets are sized by: sixty
     * samples a one-minute window. {@code --interval 10} is the node agent's default.
     */
    private static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(1);
    private static final String COPY_TOPIC = "bench.telemetry-copy";
    private static final Duration PROGRESS_POLL = Duration.ofMillis(200);
    /** Extra JVM options of the engine process, split on spaces (a flight recording, say). */
    static final String ENGINE_JVM_OPTIONS = "GPULEDGER_BENCH_ENGINE_JVM_OPTS";

    private EngineThroughputBench() {
    }

    static int run(String[] args, PrintStream out) throws Exception {
        // Ten minutes of a 10,000-GPU fleet: windows close from the third minute on (grace: 2 min),
        // and the warm figure leaves out the first 3.3 minutes, whose windows are all still open.
        int samples = 6_000_000;
        int gpus = 10_000;
        int warmup = 2_000_000;
        int threads = 1;
        Duration interval = DEFAULT_INTERVAL;
        for (int i = 0; i < args.length; i += 2) {
            if (i + 1 >= args.length) {
                throw new UsageException(args[i] + " needs a value");
            }
            switch (args[i]) {
                case "--samples" -> samples = UsageException.positive(args[i], args[i + 1]);
                case "--gpus" -> gpus = UsageException.positive(args[i], args[i + 1]);
                case "--warmup" -> warmup = UsageException.positive(args[i], args[i + 1]);
                case "--threads" -> threads = UsageException.positive(args[i], args[i + 1]);
                case "--interval" -> interval = Duration.ofSeconds(UsageException.positive(args[i], args[i + 1]));
                default -> throw new UsageException("unknown option '" + args[i] + "'");
            }
        }
        // Kafka deletes records older than the topic's retention (7 days): the simulated span must end now and fit.
        Duration span = interval.multipliedBy((samples + gpus - 1) / gpus);
        if (span.compareTo(Duration.ofDays(6)) > 0) {
            throw new UsageException(samples + " samples of " + gpus + " GPUs span " + span.toHours()
                    + " h of simulated time; the topics keep 7 days: give more --gpus");
        }
        Path work = Files.createTempDirectory("gpu-ledger-bench-engine-");
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            String bootstrap = kafka.bootstrapServers();
            TopicAdmin.ensureTopics(bootstrap, PARTITIONS);
            createCopyTopic(bootstrap);
            out.printf("embedded broker %s, %d partitions; %d GPUs, a sample every %d s, %d samples"
                    + " (%.1f h simulated)%n", bootstrap, PARTITIONS, gpus, interval.toSeconds(), samples,
                    span.toMinutes() / 60.0);
            out.printf("%d CPUs, load average %s%n", Runtime.getRuntime().availableProcessors(), loadAverage());

            Measure preload = preload(bootstrap, gpus, samples, span, interval);
            out.printf("preloaded in %.1f s%n", preload.seconds());
            Measure coldCopy = copy(bootstrap, samples, "bench-copy-1");
            Measure warmCopy = copy(bootstrap, samples, "bench-copy-2");
            out.printf("copied twice: %.0f/s, then %.0f/s%n", coldCopy.rate(), warmCopy.rate());
            EngineRun engine = runEngine(bootstrap, work, samples, warmup, threads, out);

            out.println();
            out.println("| stage | records | seconds | records/s |");
            out.println("|---|---|---|---|");
            row(out, "preload: producer, JSON samples", preload);
            row(out, "copy consumer -> producer, 1st pass (cold)", coldCopy);
            row(out, "copy consumer -> producer, 2nd pass (warm)", warmCopy);
            row(out, "cost engine, exactly-once, all records (cold start)", engine.all());
            if (engine.warm() != null) {
                row(out, "cost engine, after the first " + warmup + " (warm)", engine.warm());
            }
            out.printf("cost engine process: %.1f s of CPU over %.1f s (%.2f cores), %.1f µs of CPU per record%n",
                    engine.cpuSeconds(), engine.all().seconds(), engine.cpuSeconds() / engine.all().seconds(),
                    engine.cpuSeconds() * 1e6 / engine.all().records());
            if (engine.warm() != null) {
                out.printf("  after the first %d: %.1f s of CPU (%.2f cores), %.1f µs of CPU per record%n", warmup,
                        engine.warmCpuSeconds(), engine.warmCpuSeconds() / engine.warm().seconds(),
                        engine.warmCpuSeconds() * 1e6 / engine.warm().records());
            }
            out.printf("broker (this process) meanwhile: %.1f s of CPU (%.2f cores), %.1f µs per record%n",
                    engine.brokerCpuSeconds(), engine.brokerCpuSeconds() / engine.all().seconds(),
                    engine.brokerCpuSeconds() * 1e6 / engine.all().records());
            printTopicBytes(bootstrap, samples, out);
            out.println();
            Measure engineFigure = engine.warm() != null ? engine.warm() : engine.all();
            out.printf("ratio %.2f (%.0f/s vs copy %.0f/s)%n", engineFigure.rate() / warmCopy.rate(),
                    engineFigure.rate(), warmCopy.rate());
            return 0;
        } finally {
            try (Stream<Path> files = Files.walk(work)) {
                files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
            }
        }
    }

    /** The machine's load when the benchmark starts: on a shared machine, what the figures must be read against. */
    private static String loadAverage() {
        try {
            String[] fields = Files.readString(Path.of("/proc/loadavg")).split(" ");
            return fields[0] + " " + fields[1] + " " + fields[2];
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }

    /** {@code records} done in {@code nanos}. */
    record Measure(long records, long nanos) {
        double seconds() {
            return nanos / 1e9;
        }

        double rate() {
            return records / seconds();
        }
    }

    /**
     * The engine over every record, and over those after the warm-up (null when there were not
     * more); and the CPU its process used meanwhile, which other load on the machine does not
     * change the way it changes the rates.
     */
    record EngineRun(Measure all, Measure warm, double cpuSeconds, double warmCpuSeconds, double brokerCpuSeconds) {
    }

    private static void row(PrintStream out, String stage, Measure measure) {
        out.printf("| %s | %d | %.1f | %.0f |%n", stage, measure.records(), measure.seconds(), measure.rate());
    }

    private static void createCopyTopic(String bootstrap) throws ExecutionException, InterruptedException {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin admin = Admin.create(props)) {
            admin.createTopics(Set.of(new NewTopic(COPY_TOPIC, PARTITIONS, (short) 1))).all().get();
        }
    }

    /**
     * Publishes the simulated fleet's samples until {@code samples} are out, with every price
     * version they need: the catalog first, each spot move and confirmation as the simulation makes
     * it. All of it is in before the engine starts, so its price table holds every version from the start.
     */
    private static Measure preload(String bootstrap, int gpus, int samples, Duration span, Duration interval) {
        List<PriceQuote> catalog = PriceCatalog.loadDefault().quotes().stream()
                .filter(quote -> quote.currency().equals("USD")).toList();
        Instant start = Instant.now().truncatedTo(ChronoUnit.SECONDS).minus(span);
        FleetSimulation simulation = new FleetSimulation(Fleet.generate(gpus, catalog, SEED), catalog,
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
                    producer.send(Producers.record(Topics.TELEMETRY, sample.time().toEpochMilli(), sample.gpuUuid(),
                            sample), (metadata, error) -> {
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

    /** Copies every telemetry record to a topic of its own, as the simplest stage would, and times it. */
    private static Measure copy(String bootstrap, long records, String groupId) {
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
     * Starts the engine as its own process and follows its committed input offsets, as an
     * operator follows consumer lag, until it has committed every record.
     */
    private static EngineRun runEngine(String bootstrap, Path work, long records, long warmup, int threads,
            PrintStream out)
            throws IOException, InterruptedException {
        String application = "bench-engine-" + System.currentTimeMillis();
        List<long[]> progress = new ArrayList<>();
        List<String> jvm = new ArrayList<>(List.of("-Xmx1g"));
        String extra = System.getenv(ENGINE_JVM_OPTIONS);
        if (extra != null && !extra.isBlank()) {
            jvm.addAll(List.of(extra.trim().split("\\s+")));
        }
        try (CostEngineProcess engine = CostEngineProcess.start(System.getProperty("java.class.path"),
                jvm, List.of("--bootstrap-servers", bootstrap, "--application-id", application,
                        "--state-dir", work.resolve("state").toString(), "--threads", String.valueOf(threads)),
                work.resolve("engine.log"));
                GroupProgress group = new GroupProgress(bootstrap)) {
            out.printf("cost engine: process %d, application %s, %d stream thread(s)%n", engine.pid(), application,
                    threads);
            engine.awaitRunning(Duration.ofMinutes(2));
            Duration cpuBefore = cpu(engine.pid());
            Duration brokerCpuBefore = cpu(ProcessHandle.current().pid());
            long begin = System.nanoTime();
            long committed = 0;
            long deadline = begin + TimeUnit.MINUTES.toNanos(30);
            while (committed < records) {
                if (!engine.isAlive() || System.nanoTime() > deadline) {
                    throw new IllegalStateException("the cost engine stopped before the end of its input; its log:\n"
                            + engine.tail());
                }
                Thread.sleep(PROGRESS_POLL.toMillis());
                committed = group.committed(application, Topics.TELEMETRY.name());
                progress.add(new long[] {System.nanoTime() - begin, committed, cpu(engine.pid()).toNanos()});
            }
            double cpuSeconds = cpu(engine.pid()).minus(cpuBefore).toNanos() / 1e9;
            double brokerCpuSeconds = cpu(ProcessHandle.current().pid()).minus(brokerCpuBefore).toNanos() / 1e9;
            long end = progress.get(progress.size() - 1)[0];
            Measure all = new Measure(records, end);
            Measure warm = null;
            double warmCpuSeconds = 0;
            long[] last = progress.get(progress.size() - 1);
            for (long[] point : progress) {
                if (point[1] >= warmup && point[1] < records) {
                    warm = new Measure(records - point[1], end - point[0]);
                    warmCpuSeconds = (last[2] - point[2]) / 1e9;
                    break;
                }
            }
            return new EngineRun(all, warm, cpuSeconds, warmCpuSeconds, brokerCpuSeconds);
        }
    }

    /**
     * What the broker holds per topic after the run (compressed, as stored), per telemetry sample:
     * the engine's writes are most of the broker's work besides serving the input.
     */
    private static void printTopicBytes(String bootstrap, long samples, PrintStream out)
            throws ExecutionException, InterruptedException {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        Map<String, Long> bytes = new TreeMap<>();
        try (Admin admin = Admin.create(props)) {
            Collection<Integer> brokers = admin.describeCluster().nodes().get().stream().map(Node::id).toList();
            for (Map<String, LogDirDescription> dirs : admin.describeLogDirs(brokers).allDescriptions().get().values()) {
                for (LogDirDescription dir : dirs.values()) {
                    dir.replicaInfos().forEach((partition, replica) ->
                            bytes.merge(partition.topic(), replica.size(), Long::sum));
                }
            }
        }
        out.println("bytes on the broker per telemetry sample, by topic (after the run):");
        bytes.entrySet().stream().filter(entry -> entry.getValue() > 0)
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                .forEach(entry -> out.printf("  %8.1f  %s%n", entry.getValue() / (double) samples, entry.getKey()));
    }

    /** CPU time a process has used so far, user and system; zero where the platform does not say. */
    private static Duration cpu(long pid) {
        return ProcessHandle.of(pid).flatMap(process -> process.info().totalCpuDuration()).orElse(Duration.ZERO);
    }
}
