package io.gpuledger.ingest.sim;

import io.gpuledger.ingest.kafka.Producers;
import io.gpuledger.model.CapacityEvent;
import io.gpuledger.model.JobProgress;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.TelemetrySample;
import io.gpuledger.model.Topics;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Publishes a {@link FleetSimulation} in real time, through the same topics and keys as node
 * agents, job reporters and price feeds: capacity notices to {@link Topics#CAPACITY_EVENTS} (key:
 * instance id), spot price versions and confirmations to {@link Topics#PRICES} (key: version key), samples to
 * {@link Topics#TELEMETRY} (key: GPU UUID) and work reports to {@link Topics#JOB_PROGRESS} (key:
 * job id). Each round is sent when the wall clock reaches its end, timestamped with its simulated
 * time; notices go first, as an agent sends them the moment it sees them.
 */
public final class FleetSimulator implements AutoCloseable {

    private final FleetSimulation simulation;
    private final Producer<byte[], byte[]> producer;
    private final Clock clock;
    private final AtomicLong published = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final Callback countOutcome = (metadata, error) -> (error == null ? published : failed).incrementAndGet();
    private ScheduledExecutorService scheduler;

    /** @param producer a {@link Producers#forTopics} producer; it stays open for its owner to close */
    public FleetSimulator(FleetSimulation simulation, Producer<byte[], byte[]> producer, Clock clock) {
        this.simulation = simulation;
        this.producer = producer;
        this.clock = clock;
    }

    /** Steps the simulation by one round and sends all of it; returns what was sent. */
    public SimulationStep publishNextRound() {
        SimulationStep step = simulation.next();
        for (CapacityEvent notice : step.capacityEvents()) {
            send(Producers.record(Topics.CAPACITY_EVENTS, notice.noticedAt().toEpochMilli(), notice.instanceId(),
                    notice));
        }
        for (PriceQuote quote : step.priceChanges()) {
            send(Producers.record(Topics.PRICES, quote.observedAt().toEpochMilli(), quote.key(), quote));
        }
        for (PriceQuote quote : step.priceConfirmations()) {
            send(Producers.record(Topics.PRICES, quote.observedAt().toEpochMilli(), quote.key(), quote));
        }
        sendWork(step, producer, countOutcome);
        return step;
    }

    /**
     * Sends the samples and work reports of every round of {@code past} that ends by {@code until},
     * {@code pace} of simulated time for each second of the wall clock: what part of a fleet did
     * before it is watched live. A pace bounds how much of the past reaches the cost engine between
     * two of its updates, each of which closes what came before. Price records are left out: the
     * feed has published the prices in force already, and a confirmation from the past would make
     * them look stale. Returns the records sent; the producer is flushed.
     */
    public static long backfill(FleetSimulation past, Producer<byte[], byte[]> producer, Instant until,
            Duration pace) throws InterruptedException {
        if (pace.isNegative() || pace.isZero()) {
            throw new IllegalArgumentException("the pace must be positive, was " + pace);
        }
        long sent = 0;
        long began = System.nanoTime();
        Instant from = past.now();
        while (!past.nextEnd().isAfter(until)) {
            SimulationStep step = past.next();
            sendWork(step, producer, null);
            sent += step.telemetry().size() + step.progress().size();
            double dueSeconds = Duration.between(from, step.end()).toMillis() / (double) pace.toMillis();
            long aheadMillis = Math.round(dueSeconds * 1000) - (System.nanoTime() - began) / 1_000_000;
            if (aheadMillis > 0) {
                Thread.sleep(aheadMillis);
            }
        }
        producer.flush();
        return sent;
    }

    private static void sendWork(SimulationStep step, Producer<byte[], byte[]> producer, Callback callback) {
        for (TelemetrySample sample : step.telemetry()) {
            producer.send(Producers.record(Topics.TELEMETRY, sample.time().toEpochMilli(), sample.gpuUuid(), sample),
                    callback);
        }
        for (JobProgress report : step.progress()) {
            producer.send(Producers.record(Topics.JOB_PROGRESS, report.time().toEpochMilli(), report.jobId(), report),
                    callback);
        }
    }

    /**
     * Publishes each round on a background thread as the wall clock reaches its end: a round whose
     * end has already passed goes at once, and a late schedule catches up. Each turn is timed anew
     * from the wall clock: a fixed-rate timer keeps its own time, drifts ahead of the wall clock,
     * and would publish samples stamped in the future.
     */
    public synchronized void start() {
        if (scheduler != null) {
            return;
        }
        scheduler = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "fleet-simulator");
            thread.setDaemon(true);
            return thread;
        });
        scheduleNext(scheduler);
    }

    private void scheduleNext(ScheduledExecutorService on) {
        long delay = Math.max(0, Duration.between(clock.instant(), simulation.nextEnd()).toMillis() + 1);
        try {
            on.schedule(() -> publishScheduledRound(on), delay, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            // closed meanwhile: no more rounds
        }
    }

    private void publishScheduledRound(ScheduledExecutorService on) {
        try {
            publishDueRounds();
        } catch (RuntimeException e) {
            // A failed round must not end the schedule.
            failed.incrementAndGet();
        } finally {
            scheduleNext(on);
        }
    }

    /**
     * Publishes every round whose end the wall clock has passed, none ahead of it: a simulation
     * that starts in the past, or a schedule held up, catches up at once. Returns the rounds
     * published.
     */
    int publishDueRounds() {
        int rounds = 0;
        while (!simulation.nextEnd().isAfter(clock.instant())) {
            publishNextRound();
            rounds++;
        }
        return rounds;
    }

    private void send(ProducerRecord<byte[], byte[]> record) {
        producer.send(record, countOutcome);
    }

    /** Records the broker acknowledged. */
    public long published() {
        return published.get();
    }

    /** Records (or whole rounds) that could not be sent. */
    public long failed() {
        return failed.get();
    }

    public FleetSimulation simulation() {
        return simulation;
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
