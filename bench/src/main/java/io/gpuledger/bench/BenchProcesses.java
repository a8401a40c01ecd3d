package io.gpuledger.bench;

import io.gpuledger.cli.CliProcess;
import io.gpuledger.processes.AlertServiceProcess;
import io.gpuledger.processes.JvmOptions;
import io.gpuledger.processes.LocalPorts;
import io.gpuledger.streams.CostEngineConfig;
import io.gpuledger.streams.CostEngineProcess;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The pipeline's programs as the benchmarks run them: each in a JVM of its own, with the memory
 * the demo and the compose stack give it, and whatever else an environment variable adds (a
 * larger heap for a larger fleet, a flight recording).
 */
final class BenchProcesses {

    /** Extra JVM options of the cost engine, split on spaces. */
    static final String ENGINE_JVM_OPTIONS = "GPULEDGER_BENCH_ENGINE_JVM_OPTS";
    /**
     * The collector the engine runs with, in the {@code gpu-ledger} script and its image: on a large
     * fleet the parallel one spends less CPU a sample than G1.
     */
    static final String ENGINE_GC = "-XX:+UseParallelGC";

    private BenchProcesses() {
    }

    /** {@code CostEngineMain} in its own JVM ({@code -Xmx1g}), state under {@code work}; not yet awaited. */
    static CostEngineProcess engine(String bootstrap, Path work, String application, int threads) throws IOException {
        return engine(bootstrap, work, application, threads, CostEngineConfig.DEFAULT_COMMIT_INTERVAL);
    }

    /** The same, committing at least every {@code commitInterval} (whole seconds) while behind. */
    static CostEngineProcess engine(String bootstrap, Path work, String application, int threads,
            Duration commitInterval) throws IOException {
        return engine(bootstrap, work, application, "", threads, commitInterval);
    }

    /** One of several instances of {@code application}: its state and log named with {@code instance}. */
    static CostEngineProcess engine(String bootstrap, Path work, String application, String instance, int threads,
            Duration commitInterval) throws IOException {
        return engine(bootstrap, work, application, instance, threads, commitInterval, List.of());
    }

    /** The same, with JVM options {@code extraJvm} after the usual ones. */
    static CostEngineProcess engine(String bootstrap, Path work, String application, String instance, int threads,
            Duration commitInterval, List<String> extraJvm) throws IOException {
        List<String> jvm = new ArrayList<>(engineJvm());
        jvm.addAll(extraJvm);
        return CostEngineProcess.start(System.getProperty("java.class.path"), jvm,
                List.of("--bootstrap-servers", bootstrap, "--application-id", application,
                        "--state-dir", work.resolve("state-" + application + instance).toString(),
                        "--threads", String.valueOf(threads),
                        "--commit-interval", String.valueOf(commitInterval.toSeconds())),
                work.resolve(application + instance + ".log"));
    }

    /**
     * The packaged alert service in its own JVM ({@code -Xmx384m}, as the demo runs it), reading
     * as consumer group {@code groupId} (and {@code groupId-capacity} for notices), on a free port;
     * not yet awaited.
     */
    /** How long the alert service may take to answer after its start. */
    static final Duration ALERTS_START = Duration.ofSeconds(90);

    /** The alert service, started with its own consumer group and answering; on other ports if a bind failed. */
    static AlertServiceProcess alertService(String bootstrap, Path work, String groupId)
            throws IOException, InterruptedException {
        Path home = Path.of(System.getProperty("gpuledger.home", ".")).toAbsolutePath().normalize();
        Path jar = home.resolve("alerts/target/quarkus-app/quarkus-run.jar");
        // A port found free can be taken by another program before the service binds it (other
        // benchmarks or tests starting brokers beside this one): then it starts again on others.
        for (int attempt = 1; ; attempt++) {
            AlertServiceProcess alerts = AlertServiceProcess.start(jar, bootstrap, LocalPorts.freePair(),
                    work.resolve(groupId + ".log"), Map.of("GPULEDGER_CONSUMER_GROUP_ID", groupId));
            try {
                alerts.awaitReady(ALERTS_START);
                return alerts;
            } catch (IllegalStateException e) {
                alerts.close();
                if (attempt == 3 || !alerts.tail().contains("BindException")) {
                    throw e;
                }
            }
        }
    }

    /** The engine's JVM options: as the {@code gpu-ledger} script runs {@code engine}, then the extra ones. */
    static List<String> engineJvm() {
        List<String> jvm = new ArrayList<>(List.of("-Xmx1g", ENGINE_GC));
        jvm.addAll(JvmOptions.fromEnvironment(ENGINE_JVM_OPTIONS));
        return jvm;
    }

    /** The alert service's JVM options: its heap, then the extra ones ({@link AlertServiceProcess} adds the heap). */
    static List<String> alertsJvm() {
        List<String> jvm = new ArrayList<>(List.of(AlertServiceProcess.HEAP));
        jvm.addAll(JvmOptions.fromEnvironment(AlertServiceProcess.JVM_OPTIONS));
        return jvm;
    }

    /**
     * A {@code gpu-ledger} command ({@code simulate}, {@code demo}) in its own JVM with the
     * script's {@code -Xmx1g}; {@code environment} is added to this one's, less
     * {@code KAFKA_BOOTSTRAP_SERVERS} unless it names it.
     */
    static CliProcess command(Path log, Map<String, String> environment, String... arguments) throws IOException {
        return CliProcess.start(log, List.of("-Xmx1g"), environment, arguments);
    }
}
