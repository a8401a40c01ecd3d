package io.gpuledger.cli;

import static org.awaitility.Awaitility.await;

import io.gpuledger.model.Topics;
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
 * Cost engines run as processes of their own under one application id and one instance name, as
 * a supervisor restarts a crashed instance (it takes its partitions back at once), and watched
 * from outside as an operator watches lag: the group's committed offsets on
 * {@code gpu.telemetry.v1}. Closing stops every engine started and still running.
 */
final class EngineRuns implements AutoCloseable {

    private static final Duration PATIENCE = Duration.ofMinutes(2);

    private final String bootstrap;
    private final String application;
    private final String instance;
    private final Path logs;
    private final GroupProgress progress;
    private final List<CostEngineProcess> started = new ArrayList<>();

    EngineRuns(String bootstrap, String application, String instance, Path logs) {
        this.bootstrap = bootstrap;
        this.application = application;
        this.instance = instance;
        this.logs = logs;
        this.progress = new GroupProgress(bootstrap);
    }

    /** Starts an engine on {@code state}, logging to {@code <name>.log}; waits until it runs. */
    CostEngineProcess start(Path state, String name) throws IOException, InterruptedException {
        CostEngineProcess engine = CostEngineProcess.start(System.getProperty("java.class.path"), List.of("-Xmx384m"),
                List.of("--bootstrap-servers", bootstrap, "--application-id", application,
                        "--state-dir", state.toString(), "--instance-id", instance),
                logs.resolve(name + ".log"));
        started.add(engine);
        engine.awaitRunning(Duration.ofSeconds(90));
        return engine;
    }

    /**
     * Waits until the engines have committed {@code samples} of the telemetry as read. Watching the
     * input rather than the output: the engine commits a second's work at a time, and reading its
     * output back is slower than the engine writes it.
     */
    void awaitCommitted(long samples, CostEngineProcess engine) {
        awaitWhileAlive(engine, Duration.ofMillis(20), () -> committed() >= samples,
                () -> "the engine did not commit " + samples + " samples (it is at " + committed() + ")");
    }

    /** Waits until the engines have committed every sample on the topic. */
    void awaitCaughtUp(CostEngineProcess engine) {
        awaitWhileAlive(engine, Duration.ofMillis(200), () -> lag() == 0,
                () -> "the engine did not commit every sample");
    }

    /** Waits until {@code done}, failing at once, with the engine's log, if the engine dies. */
    private static void awaitWhileAlive(CostEngineProcess engine, Duration every, Callable<Boolean> done,
            Supplier<String> failure) {
        try {
            await().atMost(PATIENCE).pollInterval(every).failFast(() -> !engine.isAlive()).until(done);
        } catch (ConditionTimeoutException | TerminalFailureException e) {
            throw new AssertionError(failure.get() + "; its log: " + engine.log() + "\n" + engine.tail(), e);
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
