// Over 400 lines: every program of the pipeline measured the same way, its processes started and read in one place.
package io.gpuledger.bench;

import io.gpuledger.broker.EmbeddedKafka;
import io.gpuledger.cli.CliProcess;
import io.gpuledger.cli.Demo;
import io.gpuledger.cli.UsageException;
import io.gpuledger.model.TopicAdmin;
import io.gpuledger.model.Topics;
import io.gpuledger.processes.AlertServiceProcess;
import io.gpuledger.processes.GroupProgress;
import io.gpuledger.processes.LocalPorts;
import io.gpuledger.processes.NodeAgentProcess;
import io.gpuledger.streams.CostEngineConfig;
import io.gpuledger.streams.CostEngineProcess;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * {@code gpu-ledger bench footprint [--gpus 1000,10000,100000] [--warmup S] [--seconds S] [--demo-gpus D]}:
 * CPU and resident memory of each program of the pipeline while it follows a live fleet sampled
 * every second, at each fleet size; then of the whole demo stack, against its target of 1.5 GB.
 *
 * <p>Each fleet size runs on a fresh embedded broker in this JVM, every program in a JVM of its own:
 * <ul>
 *   <li>a node agent: one runs on each node of 8 GPUs, so its cost does not grow with the fleet
 *       (a fleet of G GPUs has G/8 of them, each on its own node); one agent sampling its own
 *       8 GPUs is measured beside the fleet, per sample of its own;</li>
 *   <li>the simulated fleet ({@code gpu-ledger simulate}), one process standing in for the G/8
 *       agents: it writes G samples a second, in their JSON; not a part of a deployment;</li>
 *   <li>the cost engine ({@code CostEngineMain}, the Kafka Streams application);</li>
 *   <li>the alert service (the packaged Quarkus application);</li>
 *   <li>this JVM: the embedded broker, and the benchmark polling offsets twice a window.</li>
 * </ul>
 * After S seconds of warm-up (windows close from the third minute; the JIT warms up), each process
 * is measured for S seconds: CPU (cores, and µs per sample written meanwhile) and resident memory
 * (VmRSS each second: its mean, the steady figure, and its most; VmHWM, its peak since it started).
 * Then the demo as users start it ({@code gpu-ledger demo --gpus D --interval 1}): its JVM (broker,
 * cost engine and simulated fleet in one) and its alert service, measured the same way; the
 * headline adds up their peaks. Linux only: it reads /proc. Prints a table whose last line is the
 * headline; asserts nothing.
 */
final class FootprintBench {

    private static final String ALERTS_GROUP = "bench-alerts";
    /** The demo's target: the whole stack within 1.5 GB resident. */
    private static final double TARGET_BYTES = 1.5e9;
    private static final double GIB = 1024.0 * 1024 * 1024;
    private static final Pattern DEMO_BROKER = Pattern.compile("embedded single-node broker\\.\\.\\. (\\S+)");

    private FootprintBench() {
    }

    /** What to run: the defaults, then the command line. */
    private static final class Settings {
        private List<Integer> fleets = List.of(1_000, 10_000, 100_000);
        private int warmupSeconds = 300;
        private int seconds = 120;
        private int demoGpus = 10_000;
    }

    /** A line of the table: a process at a fleet size, and its CPU per sample (NaN where none is written). */
    record Row(int gpus, String process, String runsAs, Footprint.Usage usage, double microsPerSample) {
    }

    static int run(String[] args, PrintStream out) throws Exception {
        Settings settings = new Settings();
        OptionPairs.read(args, (option, value) -> {
            switch (option) {
                case "--gpus" -> settings.fleets = UsageException.positives(option, value);
                case "--warmup" -> settings.warmupSeconds = UsageException.nonNegative(option, value);
                case "--seconds" -> settings.seconds = UsageException.positive(option, value);
                case "--demo-gpus" -> settings.demoGpus = value.equals("0")
                        ? 0 : UsageException.positive(option, value);
                default -> throw new UsageException("bench footprint: unknown option '" + option + "'");
            }
        });
        out.printf("%d CPUs, load average %s; warm-up %d s, then %d s measured, at each size%n",
                Runtime.getRuntime().availableProcessors(), PreloadedTelemetry.loadAverage(), settings.warmupSeconds,
                settings.seconds);
        List<Row> rows = new ArrayList<>();
        for (int gpus : settings.fleets) {
            rows.addAll(fleet(gpus, settings.warmupSeconds, settings.seconds, out));
        }
        if (settings.demoGpus > 0) {
            rows.addAll(demo(settings.demoGpus, settings.warmupSeconds, settings.seconds, out));
        }
        printTable(rows, out);
        return 0;
    }

    /** Every row, then the headline: the demo stack's peak, from the last row (the stack in all). */
    static void printTable(List<Row> rows, PrintStream out) {
        out.println();
        out.println("| GPUs | process | runs with | cores | µs CPU per sample | resident MiB, steady | most in window"
                + " | peak (VmHWM) |");
        out.println("|---|---|---|---|---|---|---|---|");
        for (Row row : rows) {
            Footprint.Usage usage = row.usage();
            out.printf(Locale.ROOT, "| %d | %s | %s | %.3f | %s | %.0f | %.0f | %.0f |%n", row.gpus(), row.process(),
                    row.runsAs(), usage.cores(), micros(row.microsPerSample()), usage.steadyKb() / 1024,
                    usage.maxKb() / 1024.0, usage.peakKb() / 1024.0);
        }
        Row stack = rows.get(rows.size() - 1);
        if (!stack.process().startsWith("demo stack")) {
            return;
        }
        out.println();
        out.printf(Locale.ROOT, "demo stack at %d GPUs: %.2f GiB resident at peak, %.2f GiB steady (target 1.5 GB"
                + " = %.2f GiB)%n", stack.gpus(), stack.usage().peakKb() * 1024 / GIB,
                stack.usage().steadyKb() * 1024 / GIB, TARGET_BYTES / GIB);
    }

    /** One fleet size: the pipeline's programs each in its own JVM, on a broker of their own. */
    static List<Row> fleet(int gpus, int warmupSeconds, int seconds, PrintStream out) throws Exception {
        Path home = Path.of(System.getProperty("gpuledger.home", ".")).toAbsolutePath().normalize();
        Path work = Files.createTempDirectory("gpu-ledger-bench-footprint-");
        String application = "bench-footprint-" + System.currentTimeMillis();
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            String bootstrap = kafka.bootstrapServers();
            TopicAdmin.ensureTopics(bootstrap, TopicAdmin.DEFAULT_PARTITIONS);
            out.println();
            out.printf("== %d GPUs, a sample a second each, live ==%n", gpus);
            // Every program starts at once: the warm-up is there for whatever starts first to settle.
            try (AlertServiceProcess alerts = BenchProcesses.alertService(bootstrap, work, ALERTS_GROUP);
                    CostEngineProcess engine = BenchProcesses.engine(bootstrap, work, application, 1);
                    CliProcess fleet = BenchProcesses.command(work.resolve("fleet.log"),
                            Map.of("KAFKA_BOOTSTRAP_SERVERS", bootstrap), "simulate", "--gpus", String.valueOf(gpus),
                            "--interval", "1");
                    NodeAgentProcess agent = NodeAgentProcess.start(home, work, bootstrap);
                    GroupProgress group = new GroupProgress(bootstrap)) {
                engine.awaitRunning(Duration.ofMinutes(2));
                out.printf("embedded broker %s; processes: agent %d, simulated fleet %d, cost engine %d, alert service"
                        + " %d, broker and benchmark %d%n", bootstrap, agent.pid(), fleet.pid(), engine.pid(),
                        alerts.pid(), ProcessHandle.current().pid());
                Map<String, Long> processes = new LinkedHashMap<>();
                processes.put("agent", agent.pid());
                processes.put("fleet", fleet.pid());
                processes.put("engine", engine.pid());
                processes.put("alerts", alerts.pid());
                processes.put("broker", ProcessHandle.current().pid());
                Footprint.Window window;
                long written;
                try {
                    Footprint.measure(processes, warmupSeconds);
                    long before = group.end(Topics.TELEMETRY.name());
                    window = Footprint.measure(processes, seconds);
                    written = group.end(Topics.TELEMETRY.name()) - before;
                } catch (IllegalStateException e) {
                    throw new IllegalStateException(e.getMessage() + "; the logs' last lines:\n-- cost engine:\n"
                            + engine.tail() + "\n-- alert service:\n" + alerts.tail() + "\n-- simulated fleet:\n"
                            + fleet.tail(), e);
                }
                long engineBehind = group.lag(application, Topics.TELEMETRY.name());
                long alertsBehind = group.lag(ALERTS_GROUP, Topics.USAGE.name());
                double measured = window.total().seconds();
                out.printf(Locale.ROOT, "measured %.1f s: %d samples written (%.0f/s of the fleet's %d/s and the"
                        + " agent's 8/s); behind at the end: the engine %d samples (%.1f s of the fleet's), the alert"
                        + " service %d records of %s%n", measured, written, written / measured, gpus, engineBehind,
                        engineBehind / (double) gpus, alertsBehind, Topics.USAGE.name());
                List<Row> rows = fleetRows(gpus, window, written);
                rows.forEach(row -> printRow(row, out));
                scrapes(alerts, out);
                return rows;
            }
        } finally {
            deleteRecursively(work);
        }
    }

    /**
     * One round of the scrapes a Prometheus makes of the alert service: {@code /q/metrics}, and each shard of
     * the per-GPU series where they are served apart ({@code GPULEDGER_METRICS_GPU_SHARDS}); the size of each,
     * the largest, and the service's resident peak (VmHWM) after them, the scrapes' own memory included.
     */
    private static void scrapes(AlertServiceProcess alerts, PrintStream out) throws Exception {
        String shardsSetting = System.getenv().getOrDefault("GPULEDGER_METRICS_GPU_SHARDS", "1");
        int shards = Integer.parseInt(shardsSetting.strip());
        List<String> paths = new ArrayList<>(List.of("/q/metrics"));
        for (int shard = 0; shards > 1 && shard < shards; shard++) {
            paths.add("/q/gpu-metrics?shard=" + shard);
        }
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        long largest = 0;
        StringBuilder sizes = new StringBuilder();
        for (String path : paths) {
            HttpRequest scrape = HttpRequest.newBuilder(URI.create(alerts.managementUrl() + path))
                    .timeout(Duration.ofMinutes(2)).build();
            long bytes;
            try {
                bytes = http.send(scrape, HttpResponse.BodyHandlers.ofByteArray()).body().length;
            } catch (IOException e) {
                out.printf("scrape of %s failed (%s); the alert service %s; its log's last lines:%n%s%n", path, e,
                        alerts.isAlive() ? "still runs" : "has ended", alerts.tail());
                return;
            }
            largest = Math.max(largest, bytes);
            sizes.append(sizes.isEmpty() ? "" : ", ")
                    .append(String.format(Locale.ROOT, "%s %.1f MB", path, bytes / 1e6));
        }
        out.printf(Locale.ROOT, "scrapes of the alert service (%d): %s; largest %.1f MB (target 50 MB); its resident"
                + " peak after them %d MiB (target 1.5 GiB = 1536 MiB)%n", paths.size(), sizes, largest / 1e6,
                ProcFiles.peakResidentKb(alerts.pid()) / 1024);
    }

    private static List<Row> fleetRows(int gpus, Footprint.Window window, long written) {
        double perSample = written > 0 ? 1e6 / written : Double.NaN;
        Footprint.Usage agent = window.of("agent");
        return List.of(
                new Row(gpus, "node agent, one per node of 8 GPUs (" + (gpus + 7) / 8
                        + " in this fleet); per sample of its own 8/s", "deploy/agent/jvm.options", agent,
                        agent.cpuSeconds() * 1e6 / (NodeAgentProcess.GPUS * agent.seconds())),
                new Row(gpus, "simulated fleet, standing in for the agents", "-Xmx1g", window.of("fleet"),
                        window.of("fleet").cpuSeconds() * perSample),
                new Row(gpus, "cost engine (Kafka Streams)", String.join(" ", BenchProcesses.engineJvm()),
                        window.of("engine"), window.of("engine").cpuSeconds() * perSample),
                new Row(gpus, "alert service", String.join(" ", BenchProcesses.alertsJvm()), window.of("alerts"),
                        window.of("alerts").cpuSeconds() * perSample),
                new Row(gpus, "embedded broker and the benchmark (this JVM)", thisHeap(), window.of("broker"),
                        window.of("broker").cpuSeconds() * perSample));
    }

    /** The demo as users start it, measured the same way: its JVM and the alert service it starts. */
    static List<Row> demo(int gpus, int warmupSeconds, int seconds, PrintStream out) throws Exception {
        int port = LocalPorts.freePair();
        Path work = Files.createTempDirectory("gpu-ledger-bench-footprint-demo-");
        out.println();
        out.printf("== the demo stack: gpu-ledger demo --gpus %d --interval 1 --history off ==%n", gpus);
        try (CliProcess demo = CliProcess.start(work.resolve("demo.log"), List.of(Demo.HEAP),
                Map.of("GPULEDGER_CONSUMER_GROUP_ID", ALERTS_GROUP), "demo", "--gpus", String.valueOf(gpus),
                "--interval", "1", "--http-port", String.valueOf(port), "--history", "off")) {
            awaitAnswer(demo, port);
            Map<String, Long> processes = new LinkedHashMap<>();
            processes.put("demo", demo.pid());
            for (long child : demo.descendants()) {
                processes.put("alert service " + child, child);
            }
            out.printf("processes: demo %d (embedded broker, cost engine, simulated fleet), alert service %s%n",
                    demo.pid(), demo.descendants());
            Footprint.Window window;
            Optional<String> bootstrap;
            long written = 0;
            Map<String, Map<String, Double>> threadsBefore;
            Map<String, Map<String, Double>> threadsAfter;
            try {
                Footprint.measure(processes, warmupSeconds);
                bootstrap = demoBroker(demo);
                long before = bootstrap.map(FootprintBench::telemetryEnd).orElse(0L);
                threadsBefore = threads(processes);
                window = Footprint.measure(processes, seconds);
                threadsAfter = threads(processes);
                written = bootstrap.map(FootprintBench::telemetryEnd).orElse(0L) - before;
            } catch (IllegalStateException e) {
                throw new IllegalStateException(e.getMessage() + "; the demo's last lines:\n" + demo.tail(), e);
            }
            double measured = window.total().seconds();
            if (bootstrap.isPresent()) {
                try (GroupProgress group = new GroupProgress(bootstrap.get())) {
                    out.printf(Locale.ROOT, "measured %.1f s: %d samples written (%.0f/s of the fleet's %d/s);"
                            + " behind at the end: the engine %d samples, the alert service %d records of %s%n",
                            measured, written, written / measured, gpus,
                            group.lag(CostEngineConfig.DEFAULT_APPLICATION_ID, Topics.TELEMETRY.name()),
                            group.lag(ALERTS_GROUP, Topics.USAGE.name()), Topics.USAGE.name());
                }
            } else {
                out.printf(Locale.ROOT, "measured %.1f s (the demo's broker not found in its output: samples"
                        + " written unknown)%n", measured);
            }
            double perSample = written > 0 ? 1e6 / written : Double.NaN;
            List<Row> rows = new ArrayList<>();
            window.processes().forEach((name, usage) -> rows.add(name.equals("demo")
                    ? new Row(gpus, "demo: embedded broker, cost engine, simulated fleet (one JVM)", Demo.HEAP, usage,
                            usage.cpuSeconds() * perSample)
                    : new Row(gpus, "demo's alert service", String.join(" ", BenchProcesses.alertsJvm()), usage,
                            usage.cpuSeconds() * perSample)));
            rows.add(new Row(gpus, "demo stack, in all (peak: the sum of the processes' peaks)", "-",
                    window.total(), window.total().cpuSeconds() * perSample));
            rows.forEach(row -> printRow(row, out));
            printParts(processes, threadsBefore, threadsAfter, measured, perSample, out);
            printScrapeCost(processes, port, window, out);
            return rows;
        } finally {
            deleteRecursively(work);
        }
    }

    private static Map<String, Map<String, Double>> threads(Map<String, Long> processes)
            throws IOException, InterruptedException {
        Map<String, Map<String, Double>> threads = new LinkedHashMap<>();
        for (Map.Entry<String, Long> process : processes.entrySet()) {
            threads.put(process.getKey(), ThreadCpu.byThread(process.getValue()));
        }
        return threads;
    }

    /** Each process's CPU by part (its threads', by name) over the measured window. */
    private static void printParts(Map<String, Long> processes, Map<String, Map<String, Double>> before,
            Map<String, Map<String, Double>> after, double seconds, double perSample, PrintStream out) {
        out.println("  CPU by part (threads, by name, from each JVM's thread dump):");
        for (String process : processes.keySet()) {
            Function<String, String> partOf = process.equals("demo") ? ThreadCpu::demoPart : ThreadCpu::alertsPart;
            ThreadCpu.between(before.get(process), after.get(process), partOf).entrySet().stream()
                    .sorted(Map.Entry.<String, Double>comparingByValue().reversed())
                    .forEach(part -> out.printf(Locale.ROOT, "    %s, %s: %.3f cores, %s µs per sample%n",
                            process.startsWith("alert") ? "alert service" : "demo JVM", part.getKey(),
                            part.getValue() / seconds, micros(part.getValue() * perSample)));
        }
    }

    /**
     * What one Prometheus scrape of the whole {@code /q/metrics} costs the alert service: its CPU
     * over three scrapes, less what it uses meanwhile without them (its rate in the window).
     */
    private static void printScrapeCost(Map<String, Long> processes, int port, Footprint.Window window,
            PrintStream out) throws IOException, InterruptedException {
        Map.Entry<String, Long> alerts = processes.entrySet().stream().filter(p -> p.getKey().startsWith("alert"))
                .findFirst().orElseThrow();
        double background = window.of(alerts.getKey()).cores();
        HttpClient http = HttpClient.newHttpClient();
        HttpRequest scrape = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + AlertServiceProcess.managementPort(port) + "/q/metrics"))
                .timeout(Duration.ofMinutes(1)).build();
        int scrapes = 3;
        long bytes = 0;
        long begin = System.nanoTime();
        long ticks = ProcFiles.ticks(alerts.getValue()).own();
        for (int i = 0; i < scrapes; i++) {
            bytes += http.send(scrape, HttpResponse.BodyHandlers.ofByteArray()).body().length;
        }
        double cpu = (ProcFiles.ticks(alerts.getValue()).own() - ticks) / (double) ProcFiles.ticksPerSecond();
        double wall = (System.nanoTime() - begin) / 1e9;
        double perScrape = Math.max(0, cpu - background * wall) / scrapes;
        out.printf(Locale.ROOT, "  one scrape of /q/metrics: %.1f MB, %.2f s of the alert service's CPU"
                + " (%.3f cores at a 15 s scrape interval, %.3f at 60 s)%n", bytes / 1e6 / scrapes, perScrape,
                perScrape / 15, perScrape / 60);
    }

    private static void printRow(Row row, PrintStream out) {
        out.printf(Locale.ROOT, "  %s: %.3f cores, %s µs per sample; resident %.0f MiB steady, %.0f MiB at most,"
                + " %.0f MiB peak%n", row.process(), row.usage().cores(), micros(row.microsPerSample()),
                row.usage().steadyKb() / 1024, row.usage().maxKb() / 1024.0, row.usage().peakKb() / 1024.0);
    }

    /** CPU per sample, or a dash where no sample was written to divide by. */
    private static String micros(double value) {
        return Double.isFinite(value) ? String.format(Locale.ROOT, "%.1f", value) : "-";
    }

    private static String thisHeap() {
        return String.format(Locale.ROOT, "heap at most %d MiB", Runtime.getRuntime().maxMemory() / (1024 * 1024));
    }

    /** Waits until the demo's alert service answers: by then its broker, engine and fleet have started. */
    private static void awaitAnswer(CliProcess demo, int port) throws InterruptedException {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
        HttpRequest probe = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + AlertServiceProcess.managementPort(port)
                + "/q/health/live"))
                .timeout(Duration.ofSeconds(2)).build();
        long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
        while (System.nanoTime() < deadline) {
            if (!demo.isAlive()) {
                throw new IllegalStateException("the demo stopped before its alert service answered:\n" + demo.tail());
            }
            try {
                if (http.send(probe, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    return;
                }
            } catch (IOException e) {
                // not listening yet
            }
            Thread.sleep(500);
        }
        throw new IllegalStateException("the demo's alert service did not answer within 3 minutes:\n" + demo.tail());
    }

    /** The demo's broker, as its output names it. */
    private static Optional<String> demoBroker(CliProcess demo) {
        try {
            Matcher matcher = DEMO_BROKER.matcher(Files.readString(demo.log()));
            return matcher.find() ? Optional.of(matcher.group(1)) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    private static long telemetryEnd(String bootstrap) {
        try (GroupProgress group = new GroupProgress(bootstrap)) {
            return group.end(Topics.TELEMETRY.name());
        }
    }

    private static void deleteRecursively(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        }
    }
}
