package io.gpuledger.cli;

import io.gpuledger.broker.EmbeddedKafka;
import io.gpuledger.ingest.kafka.Producers;
import io.gpuledger.ingest.price.PriceCatalog;
import io.gpuledger.ingest.sim.Fleet;
import io.gpuledger.ingest.sim.FleetSimulation;
import io.gpuledger.ingest.sim.FleetSimulator;
import io.gpuledger.model.RecommendationKind;
import io.gpuledger.model.TopicAdmin;
import io.gpuledger.model.Topics;
import io.gpuledger.processes.AlertServiceProcess;
import io.gpuledger.streams.CostEngine;
import io.gpuledger.streams.CostEngineConfig;
import io.gpuledger.streams.CostEngineOptions;
import io.gpuledger.streams.cost.CostSettings;
import io.gpuledger.streams.metrics.EngineEndpoint;
import java.io.IOException;
import java.io.PrintStream;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Comparator;
import java.util.Deque;
import java.util.Optional;
import java.util.stream.Stream;
import org.apache.kafka.clients.producer.KafkaProducer;

/**
 * {@code gpu-ledger demo}: every stage of GPU Ledger on this machine. Stages start in the order
 * data flows (broker, topics, prices, cost engine, alert service, simulated fleet) and stop in
 * reverse order on Ctrl-C, so nothing is left running.
 */
public final class Demo implements AutoCloseable {

    /**
     * The demo JVM's heap, as the {@code gpu-ledger} script sets it (a test holds the two together):
     * the embedded broker, the cost engine and a simulated fleet of 10,000 GPUs need about 200 MiB.
     */
    public static final String HEAP = "-Xmx512m";
    /** How long the demo waits for the alert service to judge the pool's history before the fleet starts. */
    private static final Duration HISTORY_PATIENCE = Duration.ofMinutes(2);
    /** How long after its start the engine's tasks are assigned and running, on a busy machine. */
    private static final Duration ENGINE_SETTLING = Duration.ofSeconds(10);

    private final PrintStream out;
    private final Deque<AutoCloseable> stopInReverse = new ArrayDeque<>();
    private Path runDir;
    private AlertServiceProcess alertService;
    private volatile String bootstrap;
    private Fleet fleet;
    private volatile EngineEndpoint engineEndpoint;
    private volatile boolean closed;

    public Demo(PrintStream out) {
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

    public LiveSummary start(DemoOptions options) throws Exception {
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
        TopicAdmin.ensureTopics(bootstrap, TopicAdmin.DEFAULT_PARTITIONS);
        this.bootstrap = bootstrap;

        PriceCatalog catalog = options.catalog().map(PriceCatalog::load).orElseGet(PriceCatalog::loadDefault);
        catalog.errors().forEach(error -> out.println("price catalog: skipped " + error));
        int published = SimulatedFleet.publishPrices(catalog.quotes(), bootstrap, "demo-prices");
        out.println("Prices         " + published + " price versions published to " + Topics.PRICES.name());

        CostEngineConfig defaults = CostEngineConfig.defaults(bootstrap, runDir.resolve("streams-state"))
                .withGrace(options.grace());
        CostEngine engine = new CostEngine(defaults);
        stopInReverse.push(engine);
        EngineEndpoint endpoint = serveEngineMetrics(engine);
        stopInReverse.push(endpoint);
        this.engineEndpoint = endpoint;
        engine.start();
        long engineStarted = System.nanoTime();
        out.println("Cost engine    Kafka Streams application '" + defaults.applicationId() + "' started");

        Path jar = options.home().resolve("alerts/target/quarkus-app/quarkus-run.jar");
        Path log = options.home().resolve(".gpu-ledger/alerts-" + options.httpPort() + ".log");
        out.print("Alert service  starting (log: " + log + ")... ");
        AlertServiceProcess alerts = AlertServiceProcess.start(jar, bootstrap, options.httpPort(), log,
                options.alertSettings());
        stopInReverse.push(alerts);
        alerts.awaitReady(Duration.ofSeconds(90));
        out.println("ready");

        Instant start = SimulatedFleet.firstRoundStart(options);
        FleetSimulation simulation = SimulatedFleet.simulation(options, catalog.quotes(), start);
        Optional<PoolHistory> history = options.history()
                ? PoolHistory.of(simulation.fleet(), catalog.quotes(), SimulatedFleet.SEED, start) : Optional.empty();
        if (history.isPresent()) {
            sendHistory(history.get(), bootstrap, alerts, engineStarted);
        }
        if (closed) {
            // Stopped while the history was judged: nothing more to start.
            return new LiveSummary(alerts.baseUrl(), 0);
        }
        // The fleet goes on from where the history ended: the rounds due meanwhile go at once.
        SimulatedFleet simulated = SimulatedFleet.start(simulation, bootstrap, "demo-fleet");
        stopInReverse.push(simulated);
        simulated.describe(options, out);
        Fleet fleet = simulated.fleet();
        this.fleet = fleet;

        out.println();
        out.println("Open:");
        out.println("  " + alerts.managementUrl() + "/q/metrics              Prometheus metrics (gpuledger_*)");
        out.println("  " + alerts.baseUrl() + "/api/recommendations    recommendations (JSON; ?kind=&status=&target=)");
        out.println("  " + alerts.baseUrl()
                + "/api/fleet              spend per hour now, by pool, team and lifecycle");
        out.println("  " + alerts.baseUrl() + "/api/anomalies          cost anomalies for finance");
        java.time.LocalDate today = java.time.LocalDate.now(java.time.ZoneOffset.UTC);
        out.println("  " + alerts.baseUrl() + "/api/focus?from=" + today + "T00:00:00Z&to=" + today.plusDays(1)
                + "T00:00:00Z  today's closed GPU-hours as FOCUS 1.2 CSV, for finance");
        out.println("  " + alerts.baseUrl() + "/q/openapi              the API described (OpenAPI)");
        out.println("  " + alerts.managementUrl() + "/q/health/ready         readiness");
        out.println("  open on this machine: reads of /api/* need no token here (gpuledger.api.open-reads); metrics"
                + " and health are on the management port");
        String engineMetrics = "http://127.0.0.1:" + engineMetricsPort() + EngineEndpoint.METRICS;
        out.println("  " + String.format("%-45s", engineMetrics)
                + "the cost engine's metrics (gpuledger_engine_*, kafka_stream_*)");
        out.println("  POST /api/recommendations/{id}/ack or /dismiss with 'Authorization: Bearer "
                + alerts.apiToken() + "'");
        out.println("  Kafka at " + bootstrap + ": topics " + Topics.USAGE.name() + ", " + Topics.RECOMMENDATIONS.name()
                + ", " + Topics.COST_ANOMALIES.name());
        out.println();
        out.println("Costs appear with the first samples of each one-minute window. Recommendations are judged");
        out.println("on closed minutes (a minute closes " + options.grace().toSeconds() + " s after its end) over"
                + " the demo's periods, shorter than a deployment's (30m, 1h, 1h, 30m; jobs followed a day first):");
        out.println("  " + options.evidencePeriods() + "; reserve-capacity on a deployment's week of clock hours"
                + (history.isPresent() ? ", of the history sent first" : "") + ".");
        out.println((history.isPresent() ? "Every kind" : "Every kind but reserve-capacity")
                + " shows within about ten minutes. Ctrl-C stops everything.");
        out.println();
        alertService = alerts;
        return new LiveSummary(alerts.baseUrl(), fleet.gpus().size());
    }

    /**
     * Sends the pool's history and waits, a while at most, until the alert service has judged
     * the pool: the fleet's live minutes would otherwise make the history's hours final before
     * they arrive. The history goes once the engine's tasks that got nothing count as idle
     * ({@link CostSettings#SOURCE_IDLE_AFTER} after it started): until then they hold every roll-up
     * minute open, and a pool's open minutes, all in one state record, would outgrow what Kafka takes.
     */
    private void sendHistory(PoolHistory history, String bootstrap, AlertServiceProcess alerts, long engineStarted)
            throws InterruptedException {
        out.println(history.describe());
        long settled = engineStarted + CostSettings.SOURCE_IDLE_AFTER.plus(ENGINE_SETTLING).toNanos();
        long began = System.nanoTime();
        if (settled > began) {
            Thread.sleep(Duration.ofNanos(settled - began).toMillis());
        }
        long historyRecords;
        try (KafkaProducer<byte[], byte[]> producer = Producers.forTopics(bootstrap, "demo-history")) {
            historyRecords = FleetSimulator.backfill(history.simulation(), producer, history.until(), PoolHistory.PACE);
        }
        out.print("               " + historyRecords + " samples and work reports sent; the pool judged... ");
        boolean judged = alerts.awaitRecommendation(RecommendationKind.RESERVE_CAPACITY, history.job().offer().key(),
                HISTORY_PATIENCE);
        if (closed) {
            return;
        }
        long seconds = Duration.ofNanos(System.nanoTime() - began).toSeconds();
        out.println(judged ? "reserve-capacity raised in " + seconds + " s"
                : "no reservation within " + seconds + " s (see the alert service's log); the fleet starts");
    }

    /** The Kafka the demo runs on; null before {@link #start}. */
    public String bootstrap() {
        return bootstrap;
    }

    /** The fleet as the demo started it; null before {@link #start}. */
    public Fleet fleet() {
        return fleet;
    }

    /** The loopback port of the engine's /metrics and health; 0 before {@link #start}. */
    int engineMetricsPort() {
        EngineEndpoint endpoint = engineEndpoint;
        return endpoint == null ? 0 : endpoint.port();
    }

    /** The alert service this demo started; null before {@link #start}. */
    AlertServiceProcess alertService() {
        return alertService;
    }

    boolean isClosed() {
        return closed;
    }

    /**
     * The engine's metrics and health on loopback, on the port deploy/prometheus/prometheus.yml
     * scrapes; on any free one when another program holds that.
     */
    private static EngineEndpoint serveEngineMetrics(CostEngine engine) throws IOException {
        try {
            return EngineEndpoint.start(new InetSocketAddress(InetAddress.getLoopbackAddress(),
                    CostEngineOptions.DEFAULT_METRICS_PORT), engine.meters(), engine::state);
        } catch (BindException e) {
            return EngineEndpoint.start(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), engine.meters(),
                    engine::state);
        }
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
