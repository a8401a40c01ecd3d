package io.gpuledger.streams;

import io.gpuledger.model.KafkaClientSettings;
import io.gpuledger.model.Topics;
import io.gpuledger.streams.cost.CostSettings;
import io.gpuledger.streams.cost.CostTopology;
import io.gpuledger.streams.deadletter.DeadLetterSink;
import io.gpuledger.streams.metrics.EngineMeters;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;

/** The cost engine as a running service: the cost topology on a Kafka Streams instance. */
public final class CostEngine implements AutoCloseable {

    private static final Duration DESCRIBE_TIMEOUT = Duration.ofSeconds(30);

    private final KafkaStreams streams;
    private final CountDownLatch running = new CountDownLatch(1);
    /** Where the exception handlers keep the records that failed; closed after the engine. */
    private final DeadLetterSink deadLetters;
    /** Made when first asked for: an engine nobody scrapes keeps no meters. */
    private EngineMeters meters;

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
        CostSettings settings = config.costSettings().withSources(sourcePartitions(config.bootstrapServers()));
        this.streams = new KafkaStreams(CostTopology.build(settings), props);
        // A thread that dies on an unexpected error is replaced; its task restarts from the last commit.
        streams.setUncaughtExceptionHandler(error -> StreamThreadExceptionResponse.REPLACE_THREAD);
        streams.setStateListener((now, before) -> {
            if (now == KafkaStreams.State.RUNNING) {
                running.countDown();
            }
            listener.onChange(now, before);
        });
    }

    /**
     * How many tasks send roll-up partials: one per partition of the telemetry and work-report
     * topics (the most of either). 0 when the topics cannot be described (not created yet, say):
     * the roll-ups then wait only for the tasks they have heard from.
     */
    static int sourcePartitions(String bootstrapServers) {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        KafkaClientSettings.applyTo(props);
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) DESCRIBE_TIMEOUT.toMillis());
        try (Admin admin = Admin.create(props)) {
            return admin.describeTopics(List.of(Topics.TELEMETRY.name(), Topics.JOB_PROGRESS.name()))
                    .allTopicNames().get(DESCRIBE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).values().stream()
                    .mapToInt(topic -> topic.partitions().size()).max().orElse(0);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 0;
        } catch (ExecutionException | TimeoutException e) {
            return 0;
        }
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
     * rather than after the session timeout (a static member, {@code group.instance.id}, would
     * otherwise be waited for); false when it did not stop within {@code timeout}.
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
