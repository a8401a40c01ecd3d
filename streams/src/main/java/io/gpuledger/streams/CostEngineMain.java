package io.gpuledger.streams;

import io.gpuledger.streams.metrics.EngineEndpoint;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;

/**
 * The cost engine as a process of its own, as production runs it:
 * {@code java -cp ... io.gpuledger.streams.CostEngineMain --bootstrap-servers HOST:PORT}
 * (options: {@link CostEngineOptions#USAGE}).
 *
 * <p>It prints {@value #RUNNING} each time the engine reaches that state (supervisors and tests
 * wait for the line), stops cleanly on SIGTERM (Kafka Streams commits and writes its checkpoints
 * before the JVM exits), and exits with status 1 if Kafka Streams fails for good, so that a
 * supervisor restarts it. Exit status 2: the command line is wrong.
 *
 * <p>It builds its Kafka Streams instance from {@link CostTopology} and {@link CostEngineConfig}
 * itself rather than through {@link CostEngine}, because it sets what {@link CostEngine} takes no
 * setting for (static group membership); the thread-replacement policy is the same.
 */
public final class CostEngineMain {

    public static final String RUNNING = "cost engine: RUNNING";
    public static final String STOPPED = "cost engine: stopped";
    private static final Duration TOPICS_POLL = Duration.ofSeconds(5);

    private CostEngineMain() {
    }

    public static void main(String[] args) throws InterruptedException {
        CostEngineOptions options;
        try {
            options = CostEngineOptions.parse(args, System.getenv());
        } catch (IllegalArgumentException e) {
            System.err.println("cost engine: " + e.getMessage());
            System.err.print(CostEngineOptions.USAGE);
            System.exit(2);
            return;
        }
        if (options.help()) {
            System.out.print(CostEngineOptions.USAGE);
            return;
        }
        System.exit(run(options, System.out));
    }

    /** Runs until SIGTERM (the JVM then exits from the shutdown hook) or until Kafka Streams fails; returns 1 then. */
    static int run(CostEngineOptions options, PrintStream out) throws InterruptedException {
        CostEngineConfig config = options.config();
        EngineInputs inputs = awaitInputs(config, options.topicsWait(), out);
        if (inputs == null) {
            return 1;
        }
        CountDownLatch failed = new CountDownLatch(1);
        CostEngine engine = new CostEngine(config, overrides(options), options.topicsWait(), inputs,
                (now, before) -> {
            if (now == KafkaStreams.State.RUNNING) {
                out.println(RUNNING + " (application " + config.applicationId() + ", Kafka "
                        + config.bootstrapServers() + ", state " + config.stateDir().toAbsolutePath() + ")");
            } else if (now == KafkaStreams.State.ERROR) {
                out.println("cost engine: failed; stopping");
                failed.countDown();
            }
        });
        EngineEndpoint endpoint = null;
        if (options.metricsPort() > 0) {
            InetSocketAddress address = new InetSocketAddress(options.metricsAddress(), options.metricsPort());
            try {
                endpoint = EngineEndpoint.start(address, engine.meters(), engine::state);
            } catch (IOException e) {
                out.println("cost engine: cannot serve metrics on " + options.metricsAddress() + ":"
                        + options.metricsPort() + " (" + e + "); stopping");
                engine.close(Duration.ofSeconds(30));
                return 1;
            }
            out.println("cost engine: metrics and health on http://" + options.metricsAddress() + ":"
                    + endpoint.port() + EngineEndpoint.METRICS);
        }
        EngineEndpoint served = endpoint;
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            boolean closed = engine.close(Duration.ofSeconds(30));
            if (served != null) {
                served.close();
            }
            out.println(closed ? STOPPED : "cost engine: did not stop within 30 s");
        }, "cost-engine-shutdown"));
        out.println("cost engine: starting, application " + config.applicationId() + ", Kafka "
                + config.bootstrapServers());
        engine.inputs().clockNotes().forEach(note -> out.println("cost engine: " + note));
        engine.start();
        failed.await();
        engine.close(Duration.ofSeconds(30));
        if (served != null) {
            served.close();
        }
        return 1;
    }

    /**
     * Waits up to {@code wait} for the input topics the cluster does not have, saying once which and
     * how to create them; the inputs as last described, or null if some are still missing then. A
     * cluster that does not answer is left to Kafka Streams, which keeps trying.
     */
    static EngineInputs awaitInputs(CostEngineConfig config, Duration wait, PrintStream out)
            throws InterruptedException {
        long deadline = System.nanoTime() + wait.toNanos();
        EngineInputs inputs = EngineInputs.describe(config.bootstrapServers());
        if (inputs.missing().isEmpty()) {
            return inputs;
        }
        out.println("cost engine: waiting up to " + wait.toSeconds() + " s for input topics the cluster does not have: "
                + String.join(", ", inputs.missing()) + ". Create them with the settings of deploy/k8s/base/topics.yaml"
                + " (Strimzi) or deploy/compose/create-topics.sh, or let the demo create them"
                + " (docs/operations.md#topics)");
        while (!inputs.missing().isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(Math.min(TOPICS_POLL.toMillis(), Math.max(1, (deadline - System.nanoTime()) / 1_000_000)));
            inputs = EngineInputs.describe(config.bootstrapServers());
        }
        if (!inputs.missing().isEmpty()) {
            out.println("cost engine: input topics still missing after " + wait.toSeconds() + " s: "
                    + String.join(", ", inputs.missing()) + "; stopping");
            return null;
        }
        out.println("cost engine: input topics are there");
        return inputs;
    }

    /** The Kafka Streams settings the engine runs with: its configuration and the overrides. */
    static Properties properties(CostEngineOptions options) {
        Properties props = options.config().toProperties();
        props.putAll(overrides(options));
        return props;
    }

    /** Settings on top of the engine's defaults. */
    static Properties overrides(CostEngineOptions options) {
        Properties props = new Properties();
        props.put(StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG, options.standbyReplicas());
        props.put(StreamsConfig.GROUP_PROTOCOL_CONFIG, options.groupProtocol());
        // Only the group's own consumer is a member: restore and global consumers have no group to join.
        options.instanceId().ifPresent(id ->
                props.put(StreamsConfig.mainConsumerPrefix(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG), id));
        return props;
    }
}
