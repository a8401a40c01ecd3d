package io.gpuledger.streams;

import io.gpuledger.streams.cost.CostSettings;
import io.gpuledger.streams.cost.CostTopology;
import io.gpuledger.streams.deadletter.DeadLetterSink;
import io.gpuledger.streams.metrics.EngineMeters;
import java.time.Clock;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.streams.KafkaStreams;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The cost engine as a running service: the cost topology on a Kafka Streams instance. */
public final class CostEngine implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(CostEngine.class);

    private final KafkaStreams streams;
    /** Its input topics as they were when it was made. */
    private final EngineInputs inputs;
    private final CountDownLatch running = new CountDownLatch(1);
    /** Where the exception handlers keep the records that failed; closed after the engine. */
    private final DeadLetterSink deadLetters;
    /** Made when first asked for: an engine nobody scrapes keeps no meters. */
    private EngineMeters meters;

    public CostEngine(CostEngineConfig config) {
        this(config, new Properties(), (now, before) -> { });
    }

    public CostEngine(CostEngineConfig config, Properties overrides, KafkaStreams.StateListener listener) {
        this(config, overrides, CostEngineOptions.DEFAULT_TOPICS_WAIT, listener);
    }

    /**
     * @param overrides  Kafka Streams settings on top of {@code config}'s (static membership, say)
     * @param topicsWait how long input topics may be missing before the engine stops ({@link ThreadFailures})
     * @param listener   told of every state change, after the engine's own bookkeeping
     */
    public CostEngine(CostEngineConfig config, Properties overrides, Duration topicsWait,
            KafkaStreams.StateListener listener) {
        this(config, overrides, topicsWait, EngineInputs.describe(config.bootstrapServers()), listener);
    }

    /** As above, with its input topics as the caller has just described them. */
    public CostEngine(CostEngineConfig config, Properties overrides, Duration topicsWait, EngineInputs inputs,
            KafkaStreams.StateListener listener) {
        Properties props = config.toProperties();
        props.putAll(overrides);
        this.deadLetters = DeadLetterSink.open(config.bootstrapServers(), config.applicationId() + "-dead-letters");
        props.put(DeadLetterSink.CONFIG, deadLetters);
        this.inputs = inputs;
        CostSettings settings = config.costSettings().withSources(inputs.partitions())
                .withBrokerStamped(inputs.brokerStamped());
        this.streams = new KafkaStreams(CostTopology.build(settings), props);
        // A thread that dies is replaced, its tasks restarting from the last commit, unless a new
        // one cannot get further: then the engine stops, visibly.
        streams.setUncaughtExceptionHandler(new ThreadFailures(topicsWait, Clock.systemUTC(), LOG::warn));
        streams.setStateListener((now, before) -> {
            if (now == KafkaStreams.State.RUNNING) {
                running.countDown();
            }
            listener.onChange(now, before);
        });
    }

    /** Its input topics as they were when it was made: partitions, missing ones, how they are dated. */
    public EngineInputs inputs() {
        return inputs;
    }

    public void start() {
        streams.start();
    }

    /** Waits until the engine is processing (all tasks assigned and restored). */
    public boolean awaitRunning(Duration timeout) throws InterruptedException {
        return running.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    public KafkaStreams.State state() {
        return streams.state();
    }

    /** The engine's meters ({@link EngineMeters}), closed with the engine. */
    public synchronized EngineMeters meters() {
        if (meters == null) {
            meters = new EngineMeters(streams, deadLetters::metrics);
        }
        return meters;
    }

    /**
     * Stops the engine and leaves its group, so that the others take its partitions over at once
     * rather than after the session timeout; false when it did not stop within {@code timeout}. A
     * dynamic member's consumer leaves as it closes ({@link CostEngineConfig#LEAVE_GROUP_ON_CLOSE});
     * a static member ({@code group.instance.id}) is removed by Kafka Streams once its threads
     * have stopped.
     */
    public boolean close(Duration timeout) {
        boolean closed = streams.close(new KafkaStreams.CloseOptions().timeout(timeout).leaveGroup(true));
        synchronized (this) {
            if (meters != null) {
                meters.close();
            }
        }
        deadLetters.close();
        return closed;
    }

    @Override
    public void close() {
        close(Duration.ofSeconds(30));
    }
}
