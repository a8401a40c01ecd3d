package io.gpuledger.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuledger.broker.EmbeddedKafka;
import io.gpuledger.model.TopicAdmin;
import io.gpuledger.streams.CostEngineProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Accounting through crashes: a simulated fleet with a known ground truth (price in force ×
 * time) over a simulated working day of eight hours, published to an embedded broker while the cost engine runs as its
 * own process and is killed (SIGKILL) twice mid-stream, restarted once on its own state and once
 * on an empty state directory. What a downstream reader keeps of {@code gpu.usage.v1} (committed
 * records, the last of each window) must add up, per GPU, job, team and pool, to the ground truth, and
 * no window may hold more than its own samples.
 *
 * <p>A quarter of the fleet's GPUs are time-sliced among inference replicas and notebooks. Their jobs'
 * costs come from the job parts of the shared GPUs' windows and must match the simulator's own
 * account, which charges each job the milliseconds its GPU's scheduler gave it, from the demands it
 * drew, and not the shares the samples carry (the engine sees only those), and puts what no job used
 * (idle time, processes of no job) on the GPU's and pool's unallocated cost.
 */
class AccountingIT {

    private static final int GPUS = 96;
    private static final long SEED = 11;
    /** A quarter of the GPUs time-sliced among several jobs each, whose parts the windows must give each job. */
    private static final double SHARED = 0.25;
    /**
     * Eight hours: enough for spot interruptions, price moves and kills at a third and two thirds of it, and a
     * third of what a whole day costs a loaded CI machine (the engine's work grows with the span).
     */
    private static final Duration SPAN = Duration.ofHours(8);
    /**
     * The simulated day ends an hour or two before now. Kafka deletes records by their timestamps
     * (7 days on the topics, a day beyond the window on the engine's changelog), and refuses ones
     * more than an hour ahead of its clock: a fixed date would age out from under the test.
     */
    private static final Instant DAY = Instant.now().truncatedTo(ChronoUnit.HOURS).minus(SPAN)
            .minus(Duration.ofHours(1));
    /** Two samples a window, so that a kill can fall between the halves of one window. */
    private static final Duration INTERVAL = Duration.ofSeconds(30);
    /**
     * One partition: replaying a day costs the engine a RocksDB segment per 90 s of event time
     * and partition (its window store keeps 3 minutes, in segments of half that), opened and
     * dropped on the stream thread, and again on every restore; see docs/benchmarks.md.
     */
    private static final int PARTITIONS = 1;
    private static final String APPLICATION = "accounting-engine";
    /** Restarted under one name, as a supervisor restarts a crashed instance: it takes its partitions back at once. */
    private static final String INSTANCE = "accounting-engine-0";
    /** The day goes out in slices a little apart, so that the engine dies while input still flows (and behind it). */
    private static final int SLICES = 60;
    private static final Duration SLICE_PAUSE = Duration.ofMillis(20);
    /**
     * The parts of the day after which the publisher waits until the engine has committed a third of it, and two
     * thirds; it is let go on just before each kill, which comes once the engine has input it has not committed.
     * An engine commits what it read at its next update, however much that is: one that caught up with a
     * publisher done before it, or held back, could commit all there is at once and die with nothing uncommitted.
     */
    private static final double HELD_FOR_FIRST_KILL = 5.0 / 12;
    private static final double HELD_FOR_SECOND_KILL = 3.0 / 4;

    @TempDir(factory = InMemoryWhereAvailable.class)
    Path dir;

    @Test
    void shouldChargeEachGpuJobAndPoolItsGroundTruthOnceThoughTheEngineIsKilledTwiceMidStream() throws Exception {
        // Given a simulated day of a fleet bought in US dollars, with spot interruptions and spot price moves,
        // and a quarter of its GPUs each time-sliced among several jobs
        FleetAccounts day = FleetAccounts.simulate(GPUS, SEED, DAY, SPAN, INTERVAL, SHARED);
        assertThat(day.priceChanges()).isPositive();
        assertThat(day.interruptions()).isPositive();
        assertThat(day.sharedGpus()).isPositive();

        FleetAccounts.Charged charged;
        long lagAtFirstKill;
        long lagAtSecondKill;
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            String bootstrap = kafka.bootstrapServers();
            TopicAdmin.ensureTopics(bootstrap, PARTITIONS);
            day.publishPrices(bootstrap, "accounting-prices");

            ExecutorService publishing = Executors.newSingleThreadExecutor();
            CountDownLatch firstKill = new CountDownLatch(1);
            CountDownLatch secondKill = new CountDownLatch(1);
            try (EngineRuns engines = new EngineRuns(bootstrap, APPLICATION, INSTANCE, dir)) {
                // When the engine runs as its own process while the day is published
                Path state = dir.resolve("state");
                CostEngineProcess first = engines.start(state, "engine-1");
                Future<?> publisher = publishing.submit(() -> {
                    day.publishTelemetry(bootstrap, "accounting-fleet", SLICES, () -> {
                        day.holdFrom(HELD_FOR_FIRST_KILL, firstKill);
                        day.holdFrom(HELD_FOR_SECOND_KILL, secondKill);
                        return SLICE_PAUSE;
                    });
                    return null;
                });

                // And it is killed once its committed input reaches a third of the day, and restarted on its state
                lagAtFirstKill = killWhenInputReaches(1.0 / 3, day.samples(), first, engines, firstKill);
                CostEngineProcess second = engines.start(state, "engine-2");

                // And killed again at two thirds, and restarted on an empty state directory
                lagAtSecondKill = killWhenInputReaches(2.0 / 3, day.samples(), second, engines, secondKill);
                CostEngineProcess third = engines.start(dir.resolve("empty-state"), "engine-3");

                // And the last engine reads the day to its end
                publisher.get(2, TimeUnit.MINUTES);
                engines.awaitCaughtUp(third);
                charged = day.readCharged(bootstrap, engines);
            } finally {
                publishing.shutdownNow();
            }
        }
        System.out.printf("accounting: %d samples in %d windows (%d GPUs shared: %s), %d usage records read; "
                + "lag when killed: %d, %d; largest relative errors: %s%n", day.samples(), day.windows(),
                day.sharedGpus(), FleetAccounts.sharedWindows(charged), charged.records(), lagAtFirstKill,
                lagAtSecondKill, day.worstRelativeErrors(charged));

        // Then each kill came mid-stream: the engine died with input it had not committed
        assertThat(lagAtFirstKill).isPositive();
        assertThat(lagAtSecondKill).isPositive();

        // And every sample landed in its window, none refused, no window holds more than its own
        // samples, and the totals per GPU, per job, per team and per pool are the ground truth's, to 0.01%,
        // a shared GPU's jobs charged their parts and the rest unallocated, each shared window adding up
        day.assertChargedOnce(charged);
    }

    /**
     * Kills the engine (SIGKILL) once its committed input reaches {@code share} of the day's samples and, the
     * publisher let go on ({@code held}), input it has not committed is on the topic; returns that input.
     */
    private static long killWhenInputReaches(double share, long samples, CostEngineProcess engine,
            EngineRuns engines, CountDownLatch held) throws InterruptedException {
        engines.awaitCommitted((long) (share * samples), engine);
        held.countDown();
        engines.awaitUncommitted();
        engine.kill();
        return engines.lag();
    }
}
