package io.gpuledger.cli;

import io.gpuledger.broker.EmbeddedKafka;
import io.gpuledger.ingest.kafka.Producers;
import io.gpuledger.ingest.price.PriceCatalog;
import io.gpuledger.ingest.price.PriceFeed;
import io.gpuledger.ingest.sim.Fleet;
import io.gpuledger.ingest.sim.FleetSimulation;
import io.gpuledger.ingest.sim.FleetSimulator;
import io.gpuledger.ingest.sim.SimulationSettings;
import io.gpuledger.ingest.sim.Workload;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.TopicAdmin;
import io.gpuledger.model.Topics;
import io.gpuledger.streams.CostEngine;
import io.gpuledger.streams.CostEngineConfig;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayDeque;
import java.util.Comparator;
import java.util.Deque;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.kafka.clients.producer.KafkaProducer;

/**
 * {@code gpu-ledger demo}: every stage of GPU Ledger on this machine. Stages start in the order
 * data flows (broker, topics, prices, cost engine, alert service, simulated fleet) and stop in
 * reverse order on Ctrl-C, so nothing is left running.
 */
final class Demo implements AutoCloseable {

    private static final int PARTITIONS = 3;
    private static final long SEED = 42;

    private final PrintStream out;
    private final Deque<AutoCloseable> stopInReverse = new ArrayDeque<>();
    private Path runDir;
    private AlertServiceProcess alertService;
    private Fleet fleet;
    private volatile boolean closed;

    Demo(PrintStream out) {
        this.out = out;
    }

    static void run(DemoOptions options) throws Exception {
        Demo demo = new Demo(System.out);
        Runtime.getRuntime().addShutdownHook(new Thread(demo::closeQuietly, "demo-shutdown"));
        try {
            LiveSummary summary = demo.start(options);
            while (!demo.isClosed()) {
                Thread.sleep(10_000);
                if (!demo.isClosed()) {
                    summary.print(System.out);
                }
            }
        } catch (RuntimeException e) {
            System.err.println("gpu-ledger demo: " + e.getMessage());
            demo.closeQuietly();
            System.exit(1);
        }
    }

    LiveSummary start(DemoOptions options) throws Exception {
        // Kafka Streams keeps its state here; not under /tmp, which the OS may clean under it.
        Path runs = Files.createDirectories(options.home().resolve(".gpu-ledger/run"));
        runDir = Files.createTempDirectory(runs, "demo-");
        stopInReverse.push(() -> deleteRecursively(runDir));

        String bootstrap;
        if (options.externalBootstrap().isPresent()) {
            bootstrap = options.externalBootstrap().get();
            out.println("Kafka          " + bootstrap + " (from KAFKA_BOOTSTRAP_SERVERS)");
        } else {
            out.print("Kafka          starting an embedded single-node broker... ");
            EmbeddedKafka kafka = EmbeddedKafka.start();
            stopInReverse.push(kafka);
            bootstrap = kafka.bootstrapServers();
            out.println(bootstrap);
        }
        TopicAdmin.ensureTopics(bootstrap, PARTITIONS);

        PriceCatalog catalog = options.catalog().map(PriceCatalog::load).orElseGet(PriceCatalog::loadDefault);
        catalog.errors().forEach(error -> out.println("price catalog: skipped " + error));
        try (KafkaProducer<String, PriceQuote> producer = Producers.forTopic(Topics.PRICES, bootstrap, "demo-prices")) {
            int published = new PriceFeed(producer).publish(catalog.quotes());
            out.println("Prices         " + published + " price versions published to " + Topics.PRICES.name());
        }

        CostEngineConfig defaults = CostEngineConfig.defaults(bootstrap, runDir.resolve("streams-state"))
                .withGrace(options.grace());
        CostEngine engine = new CostEngine(defaults);
        stopInReverse.push(engine);
        engine.start();
        out.println("Cost engine    Kafka Streams application '" + defaults.applicationId() + "' started");

        Path jar = options.home().resolve("alerts/target/quarkus-app/quarkus-run.jar");
        Path log = options.home().resolve(".gpu-ledger/alerts-" + options.httpPort() + ".log");
        out.print("Alert service  starting (log: " + log + ")... ");
        AlertServiceProcess alerts = AlertServiceProcess.start(jar, bootstrap, options.httpPort(), log,
                options.alertSettings());
        stopInReverse.push(alerts);
        alerts.awaitReady(Duration.ofSeconds(90));
        out.println("ready");

        Fleet fleet = Fleet.generate(options.gpus(), catalog.quotes(), SEED);
        SimulationSettings settings = SimulationSettings.defaults(options.interval())
                .withSpotInterruptionsPerInstanceHour(options.spotInterruptionsPerHour())
                .withSpotPriceChangesPerOfferHour(options.priceChangesPerHour());
        // The first round covers the interval that ends now, so the fleet shows up at once.
        Instant start = Clock.systemUTC().instant().truncatedTo(ChronoUnit.SECONDS).minus(options.interval());
        FleetSimulation simulation = new FleetSimulation(fleet, catalog.quotes(), settings, SEED, start);
        KafkaProducer<byte[], byte[]> records = Producers.forTopics(bootstrap, "demo-fleet");
        stopInReverse.push(records);
        FleetSimulator simulator = new FleetSimulator(simulation, records, Clock.systemUTC());
        stopInReverse.push(simulator);
        simulator.start();
        Map<Workload, Integer> gpus = fleet.gpusByWorkload();
        out.println("Fleet          " + fleet.gpus().size() + " simulated GPUs on " + fleet.instances().size()
                + " instances: " + gpus.getOrDefault(Workload.DISTRIBUTED_TRAINING, 0) + " in multi-node training, "
                + gpus.getOrDefault(Workload.TRAINING, 0) + " in single-node training, "
                + gpus.getOrDefault(Workload.INFERENCE, 0) + " serving, "
                + (gpus.getOrDefault(Workload.NOTEBOOK, 0) + gpus.getOrDefault(Workload.UNALLOCATED, 0)) + " idle");
        out.println("               samples and work reports every " + options.interval().toSeconds() + " s to "
                + Topics.TELEMETRY.name() + " and " + Topics.JOB_PROGRESS.name() + ";");
        out.println("               spot interruptions (" + options.spotInterruptionsPerHour()
                + " per spot instance-hour) to "
                + Topics.CAPACITY_EVENTS.name() + ", spot price moves (" + options.priceChangesPerHour()
                + " per offer-hour) to " + Topics.PRICES.name());
        this.fleet = fleet;

        out.println();
        out.println("Open:");
        out.println("  " + alerts.baseUrl() + "/q/metrics              Prometheus metrics (gpuledger_*)");
        out.println("  " + alerts.baseUrl() + "/api/recommendations    recommendations (JSON; ?kind=&status=&target=)");
        out.println("  " + alerts.baseUrl() + "/api/fleet              spend per hour now, by pool, team and lifecycle");
        out.println("  " + alerts.baseUrl() + "/api/anomalies          cost anomalies for finance");
        out.println("  " + alerts.baseUrl() + "/q/openapi              the API described (OpenAPI)");
        out.println("  " + alerts.baseUrl() + "/q/health/ready         readiness");
        out.println("  POST /api/recommendations/{id}/ack or /dismiss with 'Authorization: Bearer "
                + alerts.apiToken() + "'");
        out.println("  Kafka at " + bootstrap + ": topics " + Topics.USAGE.name() + ", " + Topics.RECOMMENDATIONS.name()
                + ", " + Topics.COST_ANOMALIES.name());
        out.println();
        out.println("Costs appear with the first samples of each one-minute window; idle GPUs are");
        out.println("recommended for reclaiming once enough of a window is observed. Ctrl-C stops everything.");
        out.println();
        alertService = alerts;
        return new LiveSummary(alerts.baseUrl(), fleet.gpus().size());
    }

    /** The fleet as the demo started it; null before {@link #start}. */
    Fleet fleet() {
        return fleet;
    }

    /** The alert service this demo started; null before {@link #start}. */
    AlertServiceProcess alertService() {
        return alertService;
    }

    boolean isClosed() {
        return closed;
    }

    private void closeQuietly() {
        try {
            close();
        } catch (Exception e) {
            System.err.println("gpu-ledger demo: while stopping: " + e);
        }
    }

    @Override
    public synchronized void close() throws Exception {
        if (closed) {
            return;
        }
        closed = true;
        out.println();
        out.println("Stopping...");
        Exception first = null;
        while (!stopInReverse.isEmpty()) {
            try {
                stopInReverse.pop().close();
            } catch (Exception e) {
                first = first == null ? e : first;
            }
        }
        out.println("Stopped.");
        if (first != null) {
            throw first;
        }
    }

    private static void deleteRecursively(Path dir) throws IOException {
        if (dir == null || !Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        }
    }
}
