package io.gpuledger.streams;

import io.gpuledger.streams.cost.CostTopology;
import io.gpuledger.streams.deadletter.DeadLetterSink;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;

/** The cost engine as a running service: the cost topology on a Kafka Streams instance. */
public final class CostEngine implements AutoCloseable {

    private final KafkaStreams streams;
    private final CountDownLatch running = new CountDownLatch(1);
    /** Where the exception handlers keep the records that failed; closed after the engine. */
    private final DeadLetterSink deadLetters;

    public CostEngine(CostEngineConfig config) {
        this(config, new Properties(), (now, before) -> { });
    }

    /**
     * @param overrides Kafka Streams settings on top of {@code config}'s (static membership, say)
     * @param listener  told of every state change, after the engine's own bookkeeping
     */
    public CostEngine(CostEngineConfig config, Properties overrides, KafkaStreams.StateListener listener) {
        Properties props = config.toProperties();
        props.putAll(overrides);
        this.deadLetters = DeadLetterSink.open(config.bootstrapServers(), config.applicationId() + "-dead-letters");
        props.put(DeadLetterSink.CONFIG, deadLetters);
        this.streams = new KafkaStreams(CostTopology.build(config.costSettings()), props);
        // A thread that dies on an unexpected error is replaced; its task restarts from the last commit.
        streams.setUncaughtExceptionHandler(error -> StreamThreadExceptionResponse.REPLACE_THREAD);
        streams.setStateListener((now, before) -> {
            if (now == KafkaStreams.State.RUNNING) {
                running.countDown();
            }
            listener.onChange(now, before);
        });
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

    /** Stops the engine; false when it did not stop within {@code timeout}. */
    public boolean close(Duration timeout) {
        boolean closed = streams.close(timeout);
        deadLetters.close();
        return closed;
    }

    @Override
    public void close() {
        close(Duration.ofSeconds(30));
    }
}
