package io.gpuledger.bench;

import io.gpuledger.broker.EmbeddedKafka;
import io.gpuledger.cli.UsageException;
import io.gpuledger.ingest.prom.PrometheusText;
import io.gpuledger.model.Topic;
import io.gpuledger.model.TopicAdmin;
import io.gpuledger.model.Topics;
import io.gpuledger.processes.AlertServiceProcess;
import io.gpuledger.processes.GroupProgress;
import io.gpuledger.streams.CostEngineConfig;
import io.gpuledger.streams.CostEngineProcess;
import java.io.IOException;
import java.io.PrintStream;
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
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicPartition;

/**
 * {@code gpu-ledger bench throughput [--gpus 1000,10000,100000] [--minutes M] [--warmup S] [--threads T]
 * [--commit-interval S]}:
 * samples per second through the complete pipeline — samples as agents write them, the cost
 * engine, the alert service reading everything the engine wrote — beside a plain consumer →
 * producer copy of the same records on the same broker, for fleets of each size sampled every second.
 *
 * <p>Each fleet size runs on a fresh embedded broker in this JVM: M minutes of the simulated fleet
 * (G × 60 × M samples, as {@code bench engine} preloads them), copied twice (the second pass with a
 * warm JIT); then the alert service in its own JVM, which reads the prices; then the cost engine in
 * its own JVM; once both are stopped, copied a third time. The clock runs from the engine's RUNNING
 * line until the pipeline is done:
 * <ol>
 *   <li>the engine's committed offsets on {@code gpu.telemetry.v1} reach its end (under exactly-once,
 *       everything those samples made in the engine's first stage is committed with them);</li>
 *   <li>then its committed offsets on its repartition topics reach their stable end (the roll-ups of
 *       those samples are committed): <em>the engine is done</em>;</li>
 *   <li>then the alert service's groups have committed, on every topic of the engine's it reads,
 *       every record the engine had committed by then (it commits after handling a poll's records
 *       and sending what they caused): <em>the pipeline is done</em>.</li>
 * </ol>
 * The warm figure leaves out the first S seconds of simulated samples; the ratio compares it with
 * the mean of the warm copies before and after, as the machine's pace drifts over a run. Prints a
 * table whose last line is the headline; asserts nothing.
 */
final class PipelineThroughputBench {

    private static final Duration INTERVAL = Duration.ofSeconds(1);
    private static final String ALERTS_GROUP = "bench-alerts";
    /** The alert service's notice reader has a group of its own, named after the other. */
    private static final List<String> ALERTS_GROUPS = List.of(ALERTS_GROUP, ALERTS_GROUP + "-capacity");
    /** What the cost engine writes and the alert service reads. */
    private static final List<Topic<?, ?>> ENGINE_OUTPUTS = List.of(Topics.USAGE, Topics.ROLLUPS,
            Topics.JOB_ECONOMICS, Topics.CAPACITY_EVENTS_ENRICHED, Topics.TELEMETRY_DEAD_LETTERS,
            Topics.JOB_PROGRESS_DEAD_LETTERS, Topics.CAPACITY_EVENT_DEAD_LETTERS, Topics.USAGE_DEAD_LETTERS);
    private static final Duration LIMIT = Duration.ofMinutes(60);

    private PipelineThroughputBench() {
    }

    /** One fleet size's figures. */
    record SizeRun(int gpus, long samples, long warmup, Measure copyBefore, Measure copyAfter, Measure engine,
            Measure all, Measure warm, Map<String, Double> cpuSecondsWarm, long recordsRead) {

        /** The copy's figure: the mean of its warm passes before and after the pipeline. */
        double copyRate() {
            return (copyBefore.rate() + copyAfter.rate()) / 2;
        }

        /** The pipeline's figure: warm when there is one. */
        Measure figure() {
            return warm != null ? warm : all;
        }

        double ratio() {
            return figure().rate() / copyRate();
        }
    }

    /** What to run: the defaults, then the command line. */
    static final class Settings {
        /**
         * The fewest samples a fleet runs by default: both programs start in fresh JVMs whose JIT
         * compilers keep compiling for about a minute of load, which a shorter run would measure.
         */
        static final long MIN_SAMPLES = 12_000_000;
        private List<Integer> fleets = List.of(1_000, 10_000, 100_000);
        /** Null: the default of each fleet (see {@link #minutes(int)}). */
        private Integer minutes;
        private Integer warmupSeconds;
        /**
         * One stream thread per partition of the benchmark's topics, as an instance that holds
         * them all would run: a large fleet's threads wait on memory, so more threads than cores still help.
         */
        private int threads = TopicAdmin.DEFAULT_PARTITIONS;
        private Duration commitInterval = CostEngineConfig.DEFAULT_COMMIT_INTERVAL;

        /**
         * Ten minutes of a fleet, as bench engine runs (windows close from the third minute on,
         * grace 2 min), or more, to make at least {@link #MIN_SAMPLES}: 200 minutes of 1,000 GPUs,
         * 20 of 10,000.
         */
        int minutes(int gpus) {
            if (minutes != null) {
                return minutes;
            }
            long forSamples = -Math.floorDiv(-MIN_SAMPLES, gpus * 60L);
            return (int) Math.max(10, forSamples);
        }

        int threads() {
            return threads;
        }

        /** The engine's longest time between commits: its own default unless told. */
        Duration commitInterval() {
            return commitInterval;
        }

        /**
         * The first half of the run, by default: six million samples or more, in which both
         * programs' JIT compilers do most of their work (see {@link #MIN_SAMPLES}).
         */
        int warmupSeconds(int gpus) {
            return warmupSeconds != null ? warmupSeconds : minutes(gpus) * 60 / 2;
        }
    }

    static int run(String[] args, PrintStream out) throws Exception {
        Settings settings = new Settings();
        parse(args, settings);
        return run(settings, out);
    }

    static void parse(String[] args, Settings settings) {
        OptionPairs.read(args, (option, value) -> {
            switch (option) {
                case "--gpus" -> settings.fleets = UsageException.positives(option, value);
                case "--minutes" -> settings.minutes = UsageException.positive(option, value);
                case "--warmup" -> settings.warmupSeconds = UsageException.nonNegative(option, value);
                case "--threads" -> settings.threads = UsageException.positive(option, value);
                case "--commit-interval" ->
                    settings.commitInterval = Duration.ofSeconds(UsageException.positive(option, value));
                default -> throw new UsageException("bench throughput: unknown option '" + option + "'");
            }
        });
        for (int gpus : settings.fleets) {
            PreloadedTelemetry.span((long) gpus * settings.minutes(gpus) * 60, gpus, INTERVAL);
        }
    }

    private static int run(Settings settings, PrintStream out) throws Exception {
        List<SizeRun> runs = new ArrayList<>();
        for (int gpus : settings.fleets) {
            runs.add(runSize(gpus, settings.minutes(gpus), settings.warmupSeconds(gpus), settings.threads,
                    settings.commitInterval(), out));
        }

        out.println();
        out.println("| GPUs | samples | copy, warm (mean of 2) | engine done, all | pipeline, all | pipeline, warm"
                + " | ratio | µs CPU per sample, warm: engine / alert service / broker"
                + " | alert service records per sample |");
        out.println("|---|---|---|---|---|---|---|---|---|");
        for (SizeRun run : runs) {
            Measure cpuBase = run.figure();
            out.printf(Locale.ROOT, "| %d | %d | %.0f/s | %.0f/s | %.0f/s | %s | %.2f | %.1f / %.1f / %.1f | %.3f |%n",
                    run.gpus(), run.samples(), run.copyRate(), run.engine().rate(), run.all().rate(),
                    run.warm() == null ? "-" : String.format(Locale.ROOT, "%.0f/s", run.warm().rate()), run.ratio(),
                    run.cpuSecondsWarm().get("engine") * 1e6 / cpuBase.records(),
                    run.cpuSecondsWarm().get("alert service") * 1e6 / cpuBase.records(),
                    run.cpuSecondsWarm().get("broker") * 1e6 / cpuBase.records(),
                    run.recordsRead() / (double) run.samples());
        }
        out.println();
        for (SizeRun run : runs) {
            out.printf(Locale.ROOT, "%d GPUs: ratio %.2f (%.0f/s vs copy %.0f/s) over %s%n", run.gpus(), run.ratio(),
                    run.figure().rate(), run.copyRate(), runLength(run));
        }
        SizeRun largest = runs.stream().max(Comparator.comparingInt(SizeRun::gpus)).orElseThrow();
        out.printf(Locale.ROOT, "pipeline at %d GPUs: ratio %.2f (%.0f/s vs copy %.0f/s) over %s%n", largest.gpus(),
                largest.ratio(), largest.figure().rate(), largest.copyRate(), runLength(largest));
        return 0;
    }

    /** How long a run was, in simulated time, and the part its figure is taken from. */
    private static String runLength(SizeRun run) {
        long minutes = run.samples() / run.gpus() / 60;
        return run.warm() == null ? minutes + " simulated minutes, all of them"
                : String.format(Locale.ROOT, "%d simulated minutes, warm: the last %d s", minutes,
                        run.warm().records() / run.gpus());
    }

    private static SizeRun runSize(int gpus, int minutes, int warmupSeconds, int threads, Duration commitInterval,
            PrintStream out) throws Exception {
        long samples = (long) gpus * minutes * 60 / INTERVAL.toSeconds();
        long warmup = (long) gpus * warmupSeconds / INTERVAL.toSeconds();
        Duration span = PreloadedTelemetry.span(samples, gpus, INTERVAL);
        Path work = Files.createTempDirectory("gpu-ledger-bench-throughput-");
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            String bootstrap = kafka.bootstrapServers();
            PreloadedTelemetry.createTopics(bootstrap);
            out.println();
            out.printf("== %d GPUs, a sample a second each: %d samples, %d minutes simulated ==%n", gpus, samples,
                    minutes);
            out.printf("embedded broker %s, %d partitions; %d CPUs, load average %s%n", bootstrap,
                    TopicAdmin.DEFAULT_PARTITIONS, Runtime.getRuntime().availableProcessors(),
                    PreloadedTelemetry.loadAverage());
            Measure preload = PreloadedTelemetry.preload(bootstrap, gpus, samples, span, INTERVAL);
            Measure coldCopy = PreloadedTelemetry.copy(bootstrap, samples, "bench-copy-1");
            Measure warmCopy = PreloadedTelemetry.copy(bootstrap, samples, "bench-copy-2");
            out.printf(Locale.ROOT, "preloaded in %.1f s; copied twice: %.0f/s, then %.0f/s%n", preload.seconds(),
                    coldCopy.rate(), warmCopy.rate());

            RunTrace trace;
            Completion completion;
            Map<String, Long> read;
            try (AlertServiceProcess alerts = BenchProcesses.alertService(bootstrap, work, ALERTS_GROUP);
                    GroupProgress group = new GroupProgress(bootstrap)) {
                awaitPrices(group, alerts);
                out.printf("alert service: process %d, groups %s, has read the prices%n", alerts.pid(),
                        String.join(" and ", ALERTS_GROUPS));
                String application = "bench-pipeline-" + System.currentTimeMillis();
                try (CostEngineProcess engine = BenchProcesses.engine(bootstrap, work, application, threads,
                        commitInterval)) {
                    out.printf("cost engine: process %d, application %s, %d stream thread(s), commits at least every"
                            + " %d s%n", engine.pid(), application, threads, commitInterval.toSeconds());
                    engine.awaitRunning(Duration.ofMinutes(2));
                    Map<String, Long> processes = new LinkedHashMap<>();
                    processes.put("engine", engine.pid());
                    processes.put("alert service", alerts.pid());
                    processes.put("broker", ProcessHandle.current().pid());
                    trace = new RunTrace(processes);
                    completion = new Completion(group, application, samples, trace);
                    trace.follow(() -> group.committed(application, Topics.TELEMETRY.name()), completion::reached,
                            LIMIT, () -> "the cost engine's last lines:\n" + engine.tail()
                                    + "\nthe alert service's:\n" + alerts.tail());
                }
                read = recordsRead(alerts.baseUrl());
            }
            Measure lateCopy = PreloadedTelemetry.copy(bootstrap, samples, "bench-copy-3");
            out.printf(Locale.ROOT, "copied again after the pipeline: %.0f/s%n", lateCopy.rate());
            return report(gpus, samples, warmup, warmCopy, lateCopy, trace, completion, read, out);
        } finally {
            try (Stream<Path> files = Files.walk(work)) {
                files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
            }
        }
    }

    private static SizeRun report(int gpus, long samples, long warmup, Measure copy, Measure lateCopy,
            RunTrace trace, Completion completion, Map<String, Long> read, PrintStream out) {
        Measure all = trace.all();
        Measure warm = trace.after(warmup);
        Measure engine = completion.engineDone();
        out.printf(Locale.ROOT, "engine done after %.1f s; the alert service %.1f s after it%n", engine.seconds(),
                all.seconds() - engine.seconds());
        out.println("| stage | records | seconds | records/s |");
        out.println("|---|---|---|---|");
        row(out, "copy consumer -> producer, 2nd pass (warm)", copy);
        row(out, "copy consumer -> producer, 3rd pass (after the pipeline)", lateCopy);
        row(out, "cost engine done, in the pipeline, all records (cold start)", engine);
        row(out, "pipeline done, all records (cold start)", all);
        if (warm != null) {
            row(out, "pipeline done, after the first " + warmup + " (warm)", warm);
        }
        Map<String, Double> cpuWarm = new LinkedHashMap<>();
        for (String process : List.of("engine", "alert service", "broker")) {
            double cpu = trace.cpuSeconds(process);
            out.printf(Locale.ROOT, "%s: %.1f s of CPU over %.1f s (%.2f cores), %.1f µs per sample", process, cpu,
                    all.seconds(), cpu / all.seconds(), cpu * 1e6 / samples);
            double cpuAfter = warm == null ? cpu : trace.cpuSecondsAfter(process, warmup);
            if (warm != null) {
                out.printf(Locale.ROOT, "; warm: %.1f s (%.2f cores), %.1f µs per sample", cpuAfter,
                        cpuAfter / warm.seconds(), cpuAfter * 1e6 / warm.records());
            }
            out.println(process.equals("broker") ? " (this process: the broker and the benchmark)" : "");
            cpuWarm.put(process, cpuAfter);
        }
        long total = read.values().stream().mapToLong(Long::longValue).sum();
        StringBuilder topics = new StringBuilder();
        read.forEach((topic, records) -> topics.append(", ").append(topic).append(' ').append(records));
        out.printf(Locale.ROOT, "the alert service read %d records of the engine's (%.3f per sample)%s%n", total,
                total / (double) samples, topics);
        return new SizeRun(gpus, samples, warmup, copy, lateCopy, engine, all, warm, cpuWarm, total);
    }

    private static void row(PrintStream out, String stage, Measure measure) {
        out.printf(Locale.ROOT, "| %s | %d | %.1f | %.0f |%n", stage, measure.records(), measure.seconds(),
                measure.rate());
    }

    /** Waits until the alert service's group has committed every price: it is assigned its partitions and reading. */
    private static void awaitPrices(GroupProgress group, AlertServiceProcess alerts) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        while (group.lag(ALERTS_GROUP, Topics.PRICES.name()) > 0) {
            if (!alerts.isAlive() || System.nanoTime() > deadline) {
                throw new IllegalStateException("the alert service did not read the prices within 90 s; its log: "
                        + alerts.log());
            }
            Thread.sleep(RunTrace.POLL.toMillis());
        }
    }

    /**
     * The records of the engine's topics the alert service says it read ({@code gpuledger_records_read_total}),
     * read once at the end, that family alone: at large fleets {@code /q/metrics} holds hundreds of
     * thousands of series.
     */
    private static Map<String, Long> recordsRead(String baseUrl) throws IOException, InterruptedException {
        HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                AlertServiceProcess.family(baseUrl, "gpuledger_records_read_total"))
                .timeout(Duration.ofMinutes(2)).build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IOException("the alert service answered " + response.statusCode() + " for its records read: "
                    + response.body().lines().findFirst().orElse(""));
        }
        String text = response.body();
        List<String> outputs = ENGINE_OUTPUTS.stream().map(Topic::name).toList();
        Map<String, Long> read = new TreeMap<>();
        for (PrometheusText.Sample sample : PrometheusText.parse(text).family("gpuledger_records_read_total")) {
            String topic = sample.label("topic");
            if (outputs.contains(topic) && sample.value() > 0) {
                read.put(topic, (long) sample.value());
            }
        }
        return read;
    }

    /**
     * When the pipeline is done, in three steps, each checked once the one before holds (see the
     * class comment); remembers when the engine was done.
     */
    private static final class Completion {

        private final GroupProgress group;
        private final String application;
        private final long samples;
        private final RunTrace trace;
        private Map<TopicPartition, Long> repartitionEnds;
        private Map<TopicPartition, Long> outputEnds;
        private Measure engineDone;

        Completion(GroupProgress group, String application, long samples, RunTrace trace) {
            this.group = group;
            this.application = application;
            this.samples = samples;
            this.trace = trace;
        }

        boolean reached() {
            if (trace.done() < samples) {
                return false;
            }
            if (repartitionEnds == null) {
                List<String> repartition = group.topicsStartingWith(application + "-").stream()
                        .filter(topic -> topic.endsWith("-repartition")).toList();
                repartitionEnds = repartition.isEmpty() ? Map.of() : group.stableEnds(repartition);
            }
            if (outputEnds == null) {
                if (!group.caughtUp(List.of(application), repartitionEnds)) {
                    return false;
                }
                if (engineDone == null) {
                    engineDone = trace.all();
                }
                Map<TopicPartition, Long> ends = group.stableEnds(ENGINE_OUTPUTS.stream().map(Topic::name).toList());
                // A short run can be read to its end before the engine's first update interval has
                // passed: its windows are then not written yet, and there is nothing to wait for.
                if (ends.values().stream().mapToLong(Long::longValue).sum() == 0) {
                    return false;
                }
                outputEnds = ends;
            }
            return group.caughtUp(ALERTS_GROUPS, outputEnds);
        }

        Measure engineDone() {
            return engineDone;
        }
    }
}
