package io.gpuledger.cli;

import static org.awaitility.Awaitility.await;

import io.gpuledger.model.Topics;
import io.gpuledger.processes.GroupProgress;
import io.gpuledger.streams.CostEngineProcess;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import org.awaitility.core.ConditionTimeoutException;
import org.awaitility.core.TerminalFailureException;

/**
 * Cost engines run as processes of their own under one application id, each under an instance
 * name that a supervisor keeps when it restarts it (it takes its partitions back at once), and
 * watched from outside as an operator watches lag: the group's committed offsets on
 * {@code gpu.telemetry.v1}. Closing stops every engine started and still running.
 */
final class EngineRuns implements AutoCloseable {

    private static final Duration PATIENCE = Duration.ofMinutes(2);

    private final String bootstrap;
    private final String application;
    private final String instance;
    private final List<String> options;
    private final Path logs;
    private final GroupProgress progress;
    private final List<CostEngineProcess> started = new ArrayList<>();

    /** Engines named {@code instance}, with the engine's defaults. */
    EngineRuns(String bootstrap, String application, String instance, Path logs) {
        this(bootstrap, application, instance, logs, List.of());
    }

    /** Engines named {@code instance} unless told another name, with {@code options} added to their command line. */
    EngineRuns(String bootstrap, String application, String instance, Path logs, List<String> options) {
        this.bootstrap = bootstrap;
        this.application = application;
        this.instance = instance;
        this.options = List.copyOf(options);
        this.logs = logs;
        this.progress = new GroupProgress(bootstrap);
    }

    /** Starts an engine on {@code state}, logging to {@code <name>.log}; waits until it runs. */
    CostEngineProcess start(Path state, String name) throws IOException, InterruptedException {
        CostEngineProcess engine = launch(state, name, instance);
        engine.awaitRunning(Duration.ofSeconds(90));
        return engine;
    }

    /** Starts an engine named {@code instanceId} on {@code state}, logging to {@code <name>.log}; does not wait. */
    CostEngineProcess launch(Path state, String name, String instanceId) throws IOException {
        List<String> arguments = new ArrayList<>(List.of("--bootstrap-servers", bootstrap,
                "--application-id", application, "--state-dir", state.toString(), "--instance-id", instanceId));
        arguments.addAll(options);
        CostEngineProcess engine = CostEngineProcess.start(System.getProperty("java.class.path"), List.of("-Xmx384m"),
                arguments, logs.resolve(name + ".log"));
        started.add(engine);
        return engine;
    }

    /**
     * Waits until the engines have committed {@code samples} of the telemetry as read. Watching the
     * input rather than the output: the engine commits a second's work at a time, and reading its
     * output back is slower than the engine writes it.
     */
    void awaitCommitted(long samples, CostEngineProcess engine) {
        awaitCommitted(samples, List.of(engine));
    }

    /** The same, with {@code engines} running. */
    void awaitCommitted(long samples, List<CostEngineProcess> engines) {
        awaitWhileAlive(engines, Duration.ofMillis(20), () -> committed() >= samples,
                () -> "the engines did not commit " + samples + " samples (they are at " + committed() + ")");
    }

    /** Waits until samples the engines have not committed are on the topic. */
    void awaitUncommitted() {
        await("samples the engine has not committed").atMost(Duration.ofMinutes(1))
                .pollInterval(Duration.ofMillis(20)).until(() -> lag() > 0);
    }

    /** Waits until the engines have committed every sample on the topic. */
    void awaitCaughtUp(CostEngineProcess engine) {
        awaitCaughtUp(List.of(engine));
    }

    /** The same, with {@code engines} running. */
    void awaitCaughtUp(List<CostEngineProcess> engines) {
        awaitWhileAlive(engines, Duration.ofMillis(200), () -> lag() == 0,
                () -> "the engines did not commit every sample");
    }

    /** Waits until {@code done}, failing at once, with the log of the first engine that died, if one dies. */
    private static void awaitWhileAlive(List<CostEngineProcess> engines, Duration every, Callable<Boolean> done,
            Supplier<String> failure) {
        try {
            // A look that fails (the group's coordinator moving with a broker lost) is looked again.
            await().atMost(PATIENCE).pollInterval(every)
                    .failFast(() -> engines.stream().anyMatch(engine -> !engine.isAlive()))
                    .ignoreExceptionsInstanceOf(IllegalStateException.class).until(done);
        } catch (ConditionTimeoutException | TerminalFailureException e) {
            CostEngineProcess shown = engines.stream().filter(engine -> !engine.isAlive()).findFirst()
                    .orElse(engines.get(0));
            throw new AssertionError(failure.get() + "; the log of " + shown.log() + ":\n" + shown.tail(), e);
        }
    }

    /** Samples the engines have committed as read. */
    long committed() {
        return progress.committed(application, Topics.TELEMETRY.name());
    }

    /** Samples on the topic the engines have not committed as read. */
    long lag() {
        return progress.lag(application, Topics.TELEMETRY.name());
    }

    /** Records on {@code topic}, over its partitions. */
    long end(String topic) {
        return progress.end(topic);
    }

    /** Each engine started, whether it still runs, and the last lines of its log: what a failure shows. */
    String describe() {
        StringBuilder shown = new StringBuilder();
        for (CostEngineProcess engine : started) {
            shown.append(engine.log().getFileName()).append(engine.isAlive() ? " (running)" : " (ended)")
                    .append(":\n").append(engine.tail()).append('\n');
        }
        return shown.toString();
    }

    @Override
    public void close() throws InterruptedException {
        try {
            for (CostEngineProcess engine : started) {
                engine.close();
            }
        } finally {
            progress.close();
        }
    }
}
