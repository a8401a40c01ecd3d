package io.gpuledger.ingest.sim;

import io.gpuledger.model.TelemetrySample;
import io.gpuledger.model.Topics;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Random;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Publishes the fleet's telemetry to {@link Topics#TELEMETRY} every {@code interval}, as node
 * agents would: one sample per GPU, keyed by GPU UUID, timestamped with the end of the interval
 * it covers.
 */
public final class FleetSimulator implements AutoCloseable {

    private final Fleet fleet;
    private final Producer<String, TelemetrySample> producer;
    private final Duration interval;
    private final Clock clock;
    private final Random random;
    private final AtomicLong published = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private ScheduledExecutorService scheduler;

    public FleetSimulator(Fleet fleet, Producer<String, TelemetrySample> producer, Duration interval, Clock clock,
            long seed) {
        this.fleet = fleet;
        this.producer = producer;
        this.interval = interval;
        this.clock = clock;
        this.random = new Random(seed);
    }

    /** Publishes one round of samples ending at {@code end}; returns how many were sent. */
    public int publishRound(Instant end) {
        int sent = 0;
        for (TelemetrySample sample : fleet.samplesAt(end, interval.toMillis() / 1000.0, random)) {
            producer.send(new ProducerRecord<>(Topics.TELEMETRY.name(), null, sample.time().toEpochMilli(),
                    sample.gpuUuid(), sample), (metadata, error) -> {
                        if (error == null) {
                            published.incrementAndGet();
                        } else {
                            failed.incrementAndGet();
                        }
                    });
            sent++;
        }
        return sent;
    }

    /** Starts publishing a round every interval on a background thread, the first one now. */
    public synchronized void start() {
        if (scheduler != null) {
            return;
        }
        scheduler = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "fleet-simulator");
            thread.setDaemon(true);
            return thread;
        });
        scheduler.scheduleAtFixedRate(this::publishScheduledRound, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void publishScheduledRound() {
        try {
            publishRound(clock.instant());
        } catch (RuntimeException e) {
            // A failed round must not cancel the schedule (an exception would, silently).
            failed.addAndGet(fleet.gpus().size());
        }
    }

    public long published() {
        return published.get();
    }

    public long failed() {
        return failed.get();
    }

    public Fleet fleet() {
        return fleet;
    }

    /** Stops the schedule and flushes what was sent; the producer stays open for its owner to close. */
    @Override
    public synchronized void close() {
        if (scheduler != null) {
            scheduler.shutdownNow();
            try {
                scheduler.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            scheduler = null;
        }
        producer.flush();
    }
}
