package io.gpuledger.bench;

import io.gpuledger.broker.EmbeddedKafka;
import io.gpuledger.cli.UsageException;
import io.gpuledger.model.TopicAdmin;
import io.gpuledger.model.Topics;
import io.gpuledger.processes.GroupProgress;
import io.gpuledger.streams.CostEngineConfig;
import io.gpuledger.streams.CostEngineProcess;
import io.gpuledger.streams.cost.CostSettings;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * {@code gpu-ledger bench engine [--samples N] [--gpus G] [--warmup W] [--threads T] [--interval S]
 * [--commit-interval S] [--instances I,I,...] [--form compact|spaced] [--shared F] [--variant NAME=JVM-OPTIONS ...
 * --rounds R]}: how fast the
 * cost engine prices and windows telemetry, against the fastest any stage could go on the same broker.
 *
 * <p>An embedded broker in this JVM is preloaded with N telemetry samples of a simulated fleet of
 * G GPUs (JSON, as agents and the simulator write them) and the prices they need. Then, on the same
 * records: (a) a plain consumer → producer copy in this JVM, twice (the second pass with a warm
 * JIT), and (b) the cost engine as its own process ({@code CostEngineMain}, exactly-once, with
 * its default commit interval unless told another), from its RUNNING line until its committed
 * offsets reach the end of the input — under exactly-once that is when its last output is
 * committed. The engine is reported over all records and after the first W (its JIT warms up on
 * them); the ratio compares the warm figures.
 *
 * <p>With {@code --instances 1,2,3} the engine runs once per count on the same records, as that
 * many processes of one application (a new application each time, so each run reads everything),
 * measured from the moment all of them are {@code RUNNING}; each run's samples per second and CPU
 * per sample, summed over its processes, make the scaling table. On a machine with fewer cores
 * than processes the rates do not grow; the CPU per sample says what each instance costs.
 *
 * <p>With {@code --variant} (given twice or more) the engine runs once per variant and round on
 * the same records, each variant with its own JVM options (a {@code -Dgpuledger.compare...}
 * property, see {@code Compared}), for {@code --rounds} rounds, after a first run that is not
 * counted; each round starts with the next variant, so that neither a drift of the machine's
 * pace nor a place in the round favours one. The table gives each variant's warm rate and CPU
 * per sample in every round, their means, and both against the first variant. {@code --form spaced}
 * writes the samples with a space after each colon and comma, as other JSON writers do, so that
 * the engine parses them. {@code --shared 0.25} time-slices about a quarter of the fleet's GPUs among several jobs
 * each, so that their samples carry allocations, which the engine splits among the jobs.
 */
final class EngineThroughputBench {

    /**
     * A sample a second per GPU, the rate fleets are sized by: sixty
     * samples a one-minute window. {@code --interval 10} is the node agent's default.
     */
    private static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(1);

    /** Said of a run whose warm part began before the engine first sent its roll-ups ({@link EngineRun}). */
    static final String ROLLUPS_INSIDE = "the warm part began before the engine first sent its roll-ups ("
            + CostSettings.SOURCE_IDLE_AFTER.toSeconds() + " s after it ran): compare it only with runs alike, or give"
            + " more --samples and --warmup";

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
        Duration commitInterval = CostEngineConfig.DEFAULT_COMMIT_INTERVAL;
        List<Integer> instances = List.of(1);
        boolean spaced = false;
        double shared = 0;
        List<Variant> variants = new ArrayList<>();
        int rounds = 1;
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
                case "--commit-interval" ->
                    commitInterval = Duration.ofSeconds(UsageException.positive(args[i], args[i + 1]));
                case "--instances" -> instances = counts(args[i], args[i + 1]);
                case "--form" -> spaced = spaced(args[i], args[i + 1]);
                case "--shared" -> shared = UsageException.fraction(args[i], args[i + 1]);
                case "--variant" -> variants.add(Variant.parse(args[i], args[i + 1]));
                case "--rounds" -> rounds = UsageException.positive(args[i], args[i + 1]);
                default -> throw new UsageException("unknown option '" + args[i] + "'");
            }
        }
        if (variants.size() == 1 || (variants.size() > 1 && !instances.equals(List.of(1)))) {
            throw new UsageException("--variant compares two or more variants, of one instance each");
        }
        Duration span = PreloadedTelemetry.span(samples, gpus, interval);
        Path work = Files.createTempDirectory("gpu-ledger-bench-engine-");
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            String bootstrap = kafka.bootstrapServers();
            PreloadedTelemetry.createTopics(bootstrap);
            out.printf("embedded broker %s, %d partitions; %d GPUs, a sample every %d s, %d samples"
                    + " (%.1f h simulated)%n", bootstrap, TopicAdmin.DEFAULT_PARTITIONS, gpus, interval.toSeconds(),
                    samples, span.toMinutes() / 60.0);
            out.printf("%d CPUs, load average %s%n", Runtime.getRuntime().availableProcessors(),
                    PreloadedTelemetry.loadAverage());

            Measure preload = PreloadedTelemetry.preload(bootstrap, gpus, samples, span, interval, spaced, shared);
            out.printf("preloaded in %.1f s%s%s%n", preload.seconds(), spaced ? ", spaced JSON" : "",
                    shared > 0 ? String.format(Locale.ROOT, ", about %.0f%% of the GPUs shared", shared * 100) : "");
            Measure coldCopy = PreloadedTelemetry.copy(bootstrap, samples, "bench-copy-1");
            Measure warmCopy = PreloadedTelemetry.copy(bootstrap, samples, "bench-copy-2");
            out.printf("copied twice: %.0f/s, then %.0f/s%n", coldCopy.rate(), warmCopy.rate());
            if (!variants.isEmpty()) {
                compare(bootstrap, work, samples, warmup, threads, commitInterval, variants, rounds, out);
                return 0;
            }
            List<EngineRun> runs = new ArrayList<>();
            for (int count : instances) {
                runs.add(runEngine(bootstrap, work, samples, warmup, threads, commitInterval, count, List.of(), out));
            }
            EngineRun engine = runs.get(0);
            // A copy on each side of the engine: the machine's pace drifts over a run, and the
            // ratio is taken against the mean of the two warm copies.
            Measure lateCopy = PreloadedTelemetry.copy(bootstrap, samples, "bench-copy-3");
            out.printf("copied again after the engine: %.0f/s%n", lateCopy.rate());

            out.println();
            out.println("| stage | records | seconds | records/s |");
            out.println("|---|---|---|---|");
            row(out, "preload: producer, JSON samples", preload);
            row(out, "copy consumer -> producer, 1st pass (cold)", coldCopy);
            row(out, "copy consumer -> producer, 2nd pass (warm)", warmCopy);
            row(out, "copy consumer -> producer, 3rd pass (after the engine)", lateCopy);
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
            if (engine.warmBeforeRollups()) {
                out.println(ROLLUPS_INSIDE);
            }
            out.printf("broker (this process) meanwhile: %.1f s of CPU (%.2f cores), %.1f µs per record%n",
                    engine.brokerCpuSeconds(), engine.brokerCpuSeconds() / engine.all().seconds(),
                    engine.brokerCpuSeconds() * 1e6 / engine.all().records());
            PreloadedTelemetry.printTopicBytes(bootstrap, samples, out);
            out.println();
            if (runs.size() > 1) {
                printScaling(runs, threads, out);
            }
            Measure engineFigure = engine.warm() != null ? engine.warm() : engine.all();
            double copyRate = (warmCopy.rate() + lateCopy.rate()) / 2;
            out.printf("copy: the mean of the warm passes before and after the engine%n");
            out.printf("ratio %.2f (%.0f/s vs copy %.0f/s)%n", engineFigure.rate() / copyRate, engineFigure.rate(),
                    copyRate);
            return 0;
        } finally {
            try (Stream<Path> files = Files.walk(work)) {
                files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
            }
        }
    }

    /**
     * The engine over every record, and over those after the warm-up (null when there were not
     * more); and the CPU its process used meanwhile, which other load on the machine does not
     * change the way it changes the rates.
     */
    record EngineRun(int instances, Measure all, Measure warm, double cpuSeconds, double warmCpuSeconds,
            double brokerCpuSeconds) {

        /**
         * Whether the warm part began before the engine first sent its roll-ups: with no work reports in the
         * preload, it closes their minutes only once the reports were quiet for {@link CostSettings#SOURCE_IDLE_AFTER}
         * of its wall clock, then sends all it held at once. A warm figure that began earlier has that burst in it;
         * one that began later has not. Both figures end at the run's end, so the warm part began at their
         * difference.
         */
        boolean warmBeforeRollups() {
            return warm != null && all.seconds() - warm.seconds() < CostSettings.SOURCE_IDLE_AFTER.toSeconds();
        }

        /** The warm figure when there is one. */
        Measure figure() {
            return warm != null ? warm : all;
        }

        /** CPU of every engine process over {@link #figure}, in µs per sample. */
        double cpuMicrosPerSample() {
            return (warm != null ? warmCpuSeconds : cpuSeconds) * 1e6 / figure().records();
        }
    }

    /** One row per instance count: samples per second, CPU per sample, and both against one instance. */
    private static void printScaling(List<EngineRun> runs, int threads, PrintStream out) {
        EngineRun one = runs.get(0);
        out.println();
        out.printf("| instances (%d thread(s) each) | samples | seconds | samples/s | engine CPU µs/sample | cores"
                + " | rate vs first | CPU/sample vs first |%n", threads);
        out.println("|---|---|---|---|---|---|---|---|");
        for (EngineRun run : runs) {
            Measure figure = run.figure();
            double cpu = run.warm() != null ? run.warmCpuSeconds() : run.cpuSeconds();
            out.printf(Locale.ROOT, "| %d | %d | %.1f | %.0f | %.1f | %.2f | %.2f | %.2f |%n", run.instances(),
                    figure.records(), figure.seconds(), figure.rate(), run.cpuMicrosPerSample(),
                    cpu / figure.seconds(), figure.rate() / one.figure().rate(),
                    run.cpuMicrosPerSample() / one.cpuMicrosPerSample());
        }
        EngineRun last = runs.get(runs.size() - 1);
        out.printf(Locale.ROOT, "scaling: %d instance(s) %.0f/s at %.1f µs CPU/sample; %d: %.0f/s at %.1f µs"
                + " CPU/sample (%d CPUs)%n", one.instances(), one.figure().rate(), one.cpuMicrosPerSample(),
                last.instances(), last.figure().rate(), last.cpuMicrosPerSample(),
                Runtime.getRuntime().availableProcessors());
    }

    /** A name and the JVM options that make the engine run one implementation of a piece. */
    record Variant(String name, List<String> jvm) {

        /** {@code NAME=OPTIONS}: the options split on spaces, none after a bare {@code NAME=}. */
        static Variant parse(String option, String value) {
            int equals = value.indexOf('=');
            if (equals <= 0) {
                throw new UsageException(option + " takes NAME=JVM-OPTIONS, not '" + value + "'");
            }
            String options = value.substring(equals + 1).strip();
            return new Variant(value.substring(0, equals), options.isEmpty() ? List.of()
                    : List.of(options.split("\\s+")));
        }
    }

    private static boolean spaced(String option, String value) {
        return switch (value) {
            case "compact" -> false;
            case "spaced" -> true;
            default -> throw new UsageException(option + " is compact or spaced, not '" + value + "'");
        };
    }

    /** Runs every variant once a round, the first of each round the next of the last, and tabulates them. */
    private static void compare(String bootstrap, Path work, long samples, long warmup, int threads,
            Duration commitInterval, List<Variant> variants, int rounds, PrintStream out)
            throws IOException, InterruptedException {
        Map<Variant, List<EngineRun>> runs = new LinkedHashMap<>();
        variants.forEach(variant -> runs.put(variant, new ArrayList<>()));
        // The first engine run after the preload was a third slower than the others, whichever
        // variant it ran (the broker's first reads of the records for a consumer group): not counted.
        out.printf("a first run, not counted: %s%n", variants.get(0).name());
        runEngine(bootstrap, work, samples, warmup, threads, commitInterval, 1, variants.get(0).jvm(), out);
        for (int round = 0; round < rounds; round++) {
            for (int k = 0; k < variants.size(); k++) {
                Variant variant = variants.get((round + k) % variants.size());
                out.printf("round %d of %d: %s %s%n", round + 1, rounds, variant.name(), variant.jvm());
                EngineRun run = runEngine(bootstrap, work, samples, warmup, threads, commitInterval, 1,
                        variant.jvm(), out);
                out.printf(Locale.ROOT, "  %.0f/s, %.2f µs of engine CPU a sample%s%n", run.figure().rate(),
                        run.cpuMicrosPerSample(), run.warmBeforeRollups() ? "; " + ROLLUPS_INSIDE : "");
                runs.get(variant).add(run);
            }
        }
        out.println();
        out.println("| variant | JVM options | samples/s, each round | mean | engine CPU µs/sample, each round | mean"
                + " | rate vs first | CPU/sample vs first |");
        out.println("|---|---|---|---|---|---|---|---|");
        double firstRate = meanRate(runs.get(variants.get(0)));
        double firstCpu = meanCpu(runs.get(variants.get(0)));
        for (Variant variant : variants) {
            List<EngineRun> of = runs.get(variant);
            out.printf(Locale.ROOT, "| %s | %s | %s | %.0f | %s | %.2f | %.3f | %.3f |%n", variant.name(),
                    String.join(" ", variant.jvm()),
                    String.join(", ", of.stream().map(run -> String.format(Locale.ROOT, "%.0f", run.figure().rate()))
                            .toList()),
                    meanRate(of),
                    String.join(", ", of.stream().map(run -> String.format(Locale.ROOT, "%.2f",
                            run.cpuMicrosPerSample())).toList()),
                    meanCpu(of), meanRate(of) / firstRate, meanCpu(of) / firstCpu);
        }
    }

    private static double meanRate(List<EngineRun> runs) {
        return runs.stream().mapToDouble(run -> run.figure().rate()).average().orElseThrow();
    }

    private static double meanCpu(List<EngineRun> runs) {
        return runs.stream().mapToDouble(EngineRun::cpuMicrosPerSample).average().orElseThrow();
    }

    /** A list of instance counts such as {@code 1,2,3}. */
    private static List<Integer> counts(String option, String value) {
        List<Integer> counts = new ArrayList<>();
        for (String count : value.split(",")) {
            counts.add(UsageException.positive(option, count.strip()));
        }
        return counts;
    }

    private static void row(PrintStream out, String stage, Measure measure) {
        out.printf("| %s | %d | %.1f | %.0f |%n", stage, measure.records(), measure.seconds(), measure.rate());
    }

    /**
     * Starts the engine as {@code count} processes of one application and follows its committed
     * input offsets, as an operator follows consumer lag, from when every process is running until
     * they have committed every record.
     */
    private static EngineRun runEngine(String bootstrap, Path work, long records, long warmup, int threads,
            Duration commitInterval, int count, List<String> jvm, PrintStream out)
            throws IOException, InterruptedException {
        String application = "bench-engine-" + System.currentTimeMillis();
        List<CostEngineProcess> engines = new ArrayList<>();
        try (GroupProgress group = new GroupProgress(bootstrap)) {
            for (int i = 1; i <= count; i++) {
                CostEngineProcess engine = BenchProcesses.engine(bootstrap, work, application,
                        count == 1 ? "" : "-" + i, threads, commitInterval, jvm);
                engines.add(engine);
                out.printf("cost engine: process %d, application %s, %d stream thread(s), commits at least every"
                        + " %d s%n", engine.pid(), application, threads, commitInterval.toSeconds());
            }
            for (CostEngineProcess engine : engines) {
                engine.awaitRunning(Duration.ofMinutes(2));
            }
            Map<String, Long> watched = new LinkedHashMap<>();
            for (int i = 0; i < engines.size(); i++) {
                watched.put("engine-" + (i + 1), engines.get(i).pid());
            }
            watched.put("broker", ProcessHandle.current().pid());
            // One instance is timed from its RUNNING line, all of its work counted; several from when
            // the last one runs, what the first ones did while the others joined left out.
            long before = count == 1 ? 0 : group.committed(application, Topics.TELEMETRY.name());
            long toDo = records - before;
            RunTrace trace = new RunTrace(watched);
            trace.follow(() -> group.committed(application, Topics.TELEMETRY.name()) - before,
                    () -> trace.done() >= toDo, Duration.ofMinutes(30),
                    () -> "the cost engine's log:\n" + engines.get(0).tail());
            double cpu = 0;
            double warmCpu = 0;
            long warmFrom = Math.max(0, warmup - before);
            for (int i = 1; i <= engines.size(); i++) {
                cpu += trace.cpuSeconds("engine-" + i);
                warmCpu += trace.cpuSecondsAfter("engine-" + i, warmFrom);
            }
            return new EngineRun(count, trace.all(), trace.after(warmFrom), cpu, warmCpu, trace.cpuSeconds("broker"));
        } finally {
            for (CostEngineProcess engine : engines) {
                engine.close();
            }
        }
    }
}
