package io.gpuledger.broker;

import java.io.IOException;
import java.lang.ProcessBuilder.Redirect;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A broker ({@link BrokerMain}) run as a child JVM on a data directory and ports of its own, so
 * that it can fail as a production broker does: {@link #kill()} ends it with SIGKILL (nothing
 * flushed, no clean-shutdown marker written), and {@link #restart()} starts it again on the same
 * data and ports, where its clients find it and it recovers its logs. Each start appends to one
 * log file. A node of a cluster of several runs the same way ({@link BrokerCluster}).
 *
 * <pre>{@code
 * try (BrokerProcess broker = BrokerProcess.start(classpath, dataDir, log)) {
 *     String bootstrap = broker.bootstrapServers();
 *     broker.kill();
 *     broker.restart();
 * }
 * }</pre>
 */
public final class BrokerProcess implements AutoCloseable {

    private static final Duration START_TIMEOUT = Duration.ofSeconds(90);
    private static final int START_ATTEMPTS = 3;

    private final List<String> command;
    private final Path log;
    private final String bootstrapServers;
    private Process process;
    /** How many starts the log told of before the last one was spawned. */
    private long startsBefore;

    BrokerProcess(List<String> command, Path log, int port) {
        this.command = command;
        this.log = log;
        this.bootstrapServers = "127.0.0.1:" + port;
    }

    /**
     * Starts a broker on free ports, with its data in {@code dataDir} (created if missing); waits
     * until it serves clients. A port taken by another process before the broker binds it is a
     * failed start, tried again on other ports.
     *
     * @param classpath where the broker's classes and Kafka are; a JVM's own {@code java.class.path}
     *                  will do when it holds the broker module
     */
    public static BrokerProcess start(String classpath, Path dataDir, Path log) throws IOException,
            InterruptedException {
        Files.createDirectories(log.toAbsolutePath().getParent());
        IllegalStateException last = null;
        for (int attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
            int port = EmbeddedKafka.freePort();
            BrokerProcess broker = new BrokerProcess(command(classpath, dataDir, port,
                    ClusterNode.single(EmbeddedKafka.freePort())), log, port);
            try {
                broker.launch();
                return broker;
            } catch (IllegalStateException e) {
                broker.kill();
                last = e;
            }
        }
        throw last;
    }

    /** The command line of {@code node} on {@code dataDir}, serving clients on {@code port}. */
    static List<String> command(String classpath, Path dataDir, int port, ClusterNode node) {
        List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"),
                "-Xmx512m",
                // Ends on its first OutOfMemoryError rather than running on without the thread that hit it.
                "-XX:+ExitOnOutOfMemoryError",
                // The broker's own INFO lines would fill the log; its warnings are what tells a story.
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                "-cp", classpath, BrokerMain.class.getName(),
                "--data-dir", dataDir.toString(), "--port", String.valueOf(port),
                "--controller-port", String.valueOf(node.controllerPort())));
        if (node.size() > 1) {
            command.addAll(List.of("--node-id", String.valueOf(node.nodeId()), "--cluster-id", node.clusterId(),
                    "--voters", node.voters()));
        }
        return List.copyOf(command);
    }

    /** {@code 127.0.0.1:port}, the same across restarts. */
    public String bootstrapServers() {
        return bootstrapServers;
    }

    /** Ends the broker as a crash would (SIGKILL) and waits until it is gone. */
    public void kill() throws InterruptedException {
        if (process != null) {
            process.destroyForcibly();
            process.waitFor();
        }
    }

    /** Starts the broker again on the same data and ports, once the last one is gone; waits until it serves. */
    public void restart() throws IOException, InterruptedException {
        if (process != null && process.isAlive()) {
            throw new IllegalStateException("the broker still runs (pid " + process.pid() + ")");
        }
        launch();
    }

    public boolean isAlive() {
        return process != null && process.isAlive();
    }

    public Path log() {
        return log;
    }

    private void launch() throws IOException, InterruptedException {
        spawn();
        awaitServing();
    }

    /** Starts the broker's JVM without waiting for it: a node of a cluster serves only once a majority runs. */
    void spawn() throws IOException {
        startsBefore = runningLines();
        process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(Redirect.appendTo(log.toFile()))
                .start();
    }

    /** Waits until the broker last spawned serves clients; fails when it exits first or takes too long. */
    void awaitServing() throws IOException, InterruptedException {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (runningLines() == startsBefore) {
            if (!process.isAlive()) {
                throw new IllegalStateException("the broker exited with status " + process.exitValue()
                        + " before it served; its log: " + log);
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the broker did not serve within " + START_TIMEOUT.toSeconds()
                        + " s; its log: " + log);
            }
            Thread.sleep(100);
        }
    }

    private long runningLines() throws IOException {
        if (!Files.exists(log)) {
            return 0;
        }
        try (Stream<String> lines = Files.lines(log)) {
            return lines.filter(line -> line.startsWith(BrokerMain.RUNNING)).count();
        }
    }

    /** Asks the broker to stop cleanly (SIGTERM) without waiting for it. */
    void terminate() {
        if (process != null && process.isAlive()) {
            process.destroy();
        }
    }

    /** Stops the broker if it runs: SIGTERM (a clean shutdown, data kept), then SIGKILL after 30 s. */
    @Override
    public void close() throws InterruptedException {
        if (process != null && process.isAlive()) {
            process.destroy();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                kill();
            }
        }
    }
}
