package io.gpuledger.bench;

import io.gpuledger.broker.EmbeddedKafka;
import io.gpuledger.cli.SimulatedFleet;
import io.gpuledger.cli.UsageException;
import io.gpuledger.ingest.price.PriceCatalog;
import io.gpuledger.ingest.sim.Fleet;
import io.gpuledger.ingest.sim.FleetSimulation;
import io.gpuledger.ingest.sim.SimulationSettings;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.TopicAdmin;
import io.gpuledger.model.Topics;
import io.gpuledger.processes.GroupProgress;
import io.gpuledger.streams.CostEngineProcess;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * {@code gpu-ledger bench rebalance [--gpus G] [--repeats N] [--setups KEY,...]}: how long a change
 * of the cost engine's instances holds up the partitions they held, under live load.
 *
 * <p>An embedded broker in this JVM; the telemetry topics with six partitions; a simulated fleet
 * of G GPUs publishing live (a sample a second per GPU); three engines as processes of their own
 * under one application id. For each way of running them (with and without static membership,
 * {@code --instance-id}; with and without a standby replica, {@code --standby-replicas}), N
 * times each: (a) an engine that holds telemetry partitions is killed (SIGKILL) and started again
 * on its state, and the hold is the time from the kill until the group's committed offset has
 * moved on every telemetry partition; (b) an engine that holds partitions is stopped (SIGTERM; it
 * commits, then leaves the group), and the hold is the time from the signal until every
 * partition's offset has moved past where it stood once the engine had exited: its partitions
 * taken over by the others. That hold is printed in two parts, the engine's own close (signal to
 * exit) and the takeover (exit to every partition moving). Committed offsets are what an operator
 * sees; the engines commit at least every second, so a hold is known to about a second.
 *
 * <p>{@code --setups} names the setups to run ({@link #SETUPS} by default); {@code streams-0}
 * and {@code streams-1} run dynamic members under the streams rebalance protocol (KIP-1071,
 * early access in Kafka 4.1) on a broker started for it, the classic setups named with them too.
 */
final class RebalanceBench {

    private static final int PARTITIONS = 6;
    private static final int INSTANCES = 3;
    private static final Duration POLL = Duration.ofMillis(50);
    private static final Duration PATIENCE = Duration.ofMinutes(3);

    /**
     * A way of running the engines: their names (static membership), standby replicas and
     * rebalance protocol (the classic one, or the streams one of KIP-1071); {@code key} is how
     * {@code --setups} names it.
     */
    record Setup(String key, String name, boolean named, int standbyReplicas, boolean streamsProtocol) {
    }

    /** What the benchmark runs unless told otherwise: the classic protocol, as the engine runs by default. */
    static final List<Setup> SETUPS = List.of(
            new Setup("dynamic-0", "dynamic members, no standby", false, 0, false),
            new Setup("dynamic-1", "dynamic members, 1 standby", false, 1, false),
            new Setup("static-0", "static members, no standby", true, 0, false),
            new Setup("static-1", "static members, 1 standby", true, 1, false));
    /**
     * The streams rebalance protocol, early access in Kafka 4.1: run only when named, on a broker
     * started for it ({@link EmbeddedKafka#startWithStreamsGroups()}).
     */
    static final List<Setup> STREAMS_PROTOCOL_SETUPS = List.of(
            new Setup("streams-0", "dynamic members, streams protocol, no standby", false, 0, true),
            new Setup("streams-1", "dynamic members, streams protocol, 1 standby", false, 1, true));

    /** Kafka Streams' own lines, which name the client each engine is to the group. */
    private static final String CLIENT_LOG = "-Dorg.slf4j.simpleLogger.log.org.apache.kafka.streams.KafkaStreams=info";
    private static final Pattern UUID = Pattern.compile(
            "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");

    private RebalanceBench() {
    }

    static int run(String[] args, PrintStream out) throws Exception {
        int gpus = 2_000;
        int repeats = 3;
        List<Setup> setups = SETUPS;
        for (int i = 0; i < args.length; i += 2) {
            if (i + 1 >= args.length) {
                throw new UsageException(args[i] + " needs a value");
            }
            switch (args[i]) {
                case "--gpus" -> gpus = UsageException.positive(args[i], args[i + 1]);
                case "--repeats" -> repeats = UsageException.positive(args[i], args[i + 1]);
                case "--setups" -> setups = setups(args[i + 1]);
                default -> throw new UsageException("unknown option '" + args[i] + "'");
            }
        }
        Path work = Files.createTempDirectory("gpu-ledger-bench-rebalance-");
        List<PriceQuote> quotes = PriceCatalog.loadDefault().quotes();
        // Streams groups need a broker made for them; the classic setups run on it too if named with them.
        boolean streamsGroups = setups.stream().anyMatch(Setup::streamsProtocol);
        try (EmbeddedKafka kafka = streamsGroups ? EmbeddedKafka.startWithStreamsGroups() : EmbeddedKafka.start()) {
            String bootstrap = kafka.bootstrapServers();
            TopicAdmin.ensureTopics(bootstrap, PARTITIONS);
            SimulatedFleet.publishPrices(quotes, bootstrap, "bench-rebalance-prices");
            FleetSimulation simulation = new FleetSimulation(Fleet.generate(gpus, quotes, SimulatedFleet.SEED),
                    quotes, SimulationSettings.defaults(Duration.ofSeconds(1)), SimulatedFleet.SEED,
                    Clock.systemUTC().instant().truncatedTo(ChronoUnit.SECONDS).minusSeconds(1));
            out.printf("embedded broker %s, %d partitions; a fleet of %d GPUs publishing live, a sample a second"
                    + " each; %d engines; %s; %d CPUs, load average %s%n", bootstrap, PARTITIONS, gpus, INSTANCES,
                    streamsGroups ? "streams groups enabled" : "classic groups",
                    Runtime.getRuntime().availableProcessors(), PreloadedTelemetry.loadAverage());
            List<String> rows = new ArrayList<>();
            try (SimulatedFleet fleet = SimulatedFleet.start(simulation, bootstrap, "bench-rebalance-fleet");
                    GroupProgress group = new GroupProgress(bootstrap)) {
                for (Setup setup : setups) {
                    rows.add(measure(setup, repeats, bootstrap, work, group, out));
                }
            }
            out.println();
            out.println("| engines | kill → every partition processing again (s) | SIGTERM → taken over (s)"
                    + " | of which the engine's close (s) |");
            out.println("|---|---|---|---|");
            rows.forEach(out::println);
            return 0;
        } finally {
            try (Stream<Path> files = Files.walk(work)) {
                files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
            }
        }
    }

    /** Runs three engines as {@code setup} says, kills and stops them in turn; returns its table row. */
    private static String measure(Setup setup, int repeats, String bootstrap, Path work, GroupProgress group,
            PrintStream out) throws Exception {
        String application = "bench-rebalance-" + System.currentTimeMillis();
        List<Double> kills = new ArrayList<>();
        List<Double> stops = new ArrayList<>();
        List<Double> closes = new ArrayList<>();
        List<CostEngineProcess> engines = new ArrayList<>();
        try {
            for (int i = 0; i < INSTANCES; i++) {
                engines.add(engine(setup, bootstrap, work, application, i, 0));
            }
            for (CostEngineProcess engine : engines) {
                engine.awaitRunning(PATIENCE);
            }
            awaitSettled(setup, group, application);
            for (int round = 0; round < repeats; round++) {
                int victim = holder(setup, group, engines, application, 2 * round);
                Map<Integer, Long> before = group.committedByPartition(application, Topics.TELEMETRY.name());
                long killed = System.nanoTime();
                engines.get(victim).kill();
                engines.set(victim, engine(setup, bootstrap, work, application, victim, 2 * round + 1));
                kills.add(awaitEveryPartitionPast(before, killed, group, application));
                engines.get(victim).awaitRunning(PATIENCE);
                awaitSettled(setup, group, application);

                int stopped = holder(setup, group, engines, application, 2 * round + 1);
                long signalled = System.nanoTime();
                engines.get(stopped).stop(Duration.ofSeconds(40));
                closes.add((System.nanoTime() - signalled) / 1e9);
                Map<Integer, Long> atExit = group.committedByPartition(application, Topics.TELEMETRY.name());
                stops.add(awaitEveryPartitionPast(atExit, signalled, group, application));
                engines.set(stopped, engine(setup, bootstrap, work, application, stopped, 2 * round + 2));
                engines.get(stopped).awaitRunning(PATIENCE);
                awaitSettled(setup, group, application);
                out.printf("%s, round %d: kill engine %d %.1f s; SIGTERM engine %d %.1f s (its close %.1f s);"
                        + " load average %s%n", setup.name(), round + 1, victim, kills.get(round), stopped,
                        stops.get(round), closes.get(round), PreloadedTelemetry.loadAverage());
            }
        } finally {
            for (CostEngineProcess engine : engines) {
                engine.close();
            }
        }
        return "| " + setup.name() + " | " + figures(kills) + " | " + figures(stops) + " | " + figures(closes) + " |";
    }

    /**
     * The index of an engine that holds telemetry partitions now, the {@code turn}-th of those
     * that do (in the order of their names): one that held none would hold nothing up.
     */
    private static int holder(Setup setup, GroupProgress group, List<CostEngineProcess> engines, String application,
            int turn) throws IOException {
        List<String> holders = held(setup, group, application).entrySet().stream()
                .filter(member -> member.getValue() > 0).map(Map.Entry::getKey).toList();
        if (holders.isEmpty()) {
            throw new IllegalStateException("no engine holds a telemetry partition");
        }
        String member = holders.get(turn % holders.size());
        // A static member is known by its instance name and its thread's number (engine-0-1). A
        // dynamic one by the id of its Kafka Streams instance, which that engine's log names: under
        // the classic protocol its member id begins with it, after the application's.
        Matcher process = UUID.matcher(member);
        for (int i = 0; i < INSTANCES; i++) {
            if (member.startsWith("engine-" + i + "-")
                    || process.find(0) && Files.readString(engines.get(i).log()).contains(process.group())) {
                return i;
            }
        }
        throw new IllegalStateException("no engine is member " + member);
    }

    private static Path stateDir(Path work, String application, int index) {
        return work.resolve(application + "-state-" + index);
    }

    private static List<Setup> setups(String keys) {
        List<Setup> chosen = new ArrayList<>();
        List<Setup> known = Stream.concat(SETUPS.stream(), STREAMS_PROTOCOL_SETUPS.stream()).toList();
        for (String key : keys.split(",")) {
            chosen.add(known.stream().filter(setup -> setup.key().equals(key.trim())).findFirst()
                    .orElseThrow(() -> new UsageException("unknown setup '" + key + "'; known: "
                            + String.join(", ", known.stream().map(Setup::key).toList()))));
        }
        return chosen;
    }

    /**
     * How many telemetry partitions each member of the group processes now, by its name.
     */
    private static Map<String, Integer> held(Setup setup, GroupProgress group, String application) {
        if (setup.streamsProtocol()) {
            return group.streamsGroupActivePartitions(application, Topics.TELEMETRY.name());
        }
        Map<String, Integer> held = new TreeMap<>();
        group.assignment(application, Topics.TELEMETRY.name()).forEach((member, partitions) ->
                held.put(member, partitions.size()));
        return held;
    }

    /** Engine {@code index} of {@code setup}, its {@code run}-th start; its state stays across runs. */
    private static CostEngineProcess engine(Setup setup, String bootstrap, Path work, String application, int index,
            int run) throws IOException {
        List<String> arguments = new ArrayList<>(List.of("--bootstrap-servers", bootstrap,
                "--application-id", application, "--commit-interval", "1",
                "--state-dir", stateDir(work, application, index).toString(),
                "--standby-replicas", String.valueOf(setup.standbyReplicas())));
        if (setup.streamsProtocol()) {
            arguments.addAll(List.of("--group-protocol", "streams"));
        }
        if (setup.named()) {
            arguments.addAll(List.of("--instance-id", "engine-" + index));
        }
        List<String> jvm = new ArrayList<>(BenchProcesses.engineJvm());
        jvm.add(CLIENT_LOG);
        return CostEngineProcess.start(System.getProperty("java.class.path"), jvm, arguments,
                work.resolve(application + "-" + index + "-" + run + ".log"));
    }

    /**
     * Waits until the group's committed offset on every telemetry partition is past
     * {@code before}; returns the seconds since {@code since}.
     */
    private static double awaitEveryPartitionPast(Map<Integer, Long> before, long since, GroupProgress group,
            String application) throws InterruptedException {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (System.nanoTime() < deadline) {
            Map<Integer, Long> now = group.committedByPartition(application, Topics.TELEMETRY.name());
            if (now.size() == PARTITIONS && now.entrySet().stream()
                    .allMatch(entry -> entry.getValue() > before.getOrDefault(entry.getKey(), -1L))) {
                return (System.nanoTime() - since) / 1e9;
            }
            Thread.sleep(POLL.toMillis());
        }
        throw new IllegalStateException("the engines did not process every partition again within "
                + PATIENCE.toMinutes() + " min");
    }

    /**
     * Waits until the group has its three members (a killed dynamic member is gone only once its
     * session has timed out) and every partition is processed.
     */
    private static void awaitSettled(Setup setup, GroupProgress group, String application)
            throws InterruptedException {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (held(setup, group, application).size() != INSTANCES) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the group did not settle with " + INSTANCES + " members");
            }
            Thread.sleep(POLL.toMillis());
        }
        awaitEveryPartitionPast(group.committedByPartition(application, Topics.TELEMETRY.name()), System.nanoTime(),
                group, application);
    }

    /** Each figure, then their median. */
    private static String figures(List<Double> seconds) {
        List<Double> sorted = seconds.stream().sorted().toList();
        double median = sorted.size() % 2 == 1 ? sorted.get(sorted.size() / 2)
                : (sorted.get(sorted.size() / 2 - 1) + sorted.get(sorted.size() / 2)) / 2;
        return String.join(", ", seconds.stream().map(value -> String.format("%.1f", value)).toList())
                + String.format(" (median %.1f)", median);
    }
}
