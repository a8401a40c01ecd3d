package io.gpuledger.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuledger.broker.BrokerProcess;
import io.gpuledger.model.TopicAdmin;
import io.gpuledger.model.Topics;
import io.gpuledger.streams.CostEngineProcess;
import java.nio.file.Files;
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
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * The broker crashes under load: a simulated fleet with a known ground truth publishes hours of
 * samples through idempotent producers while the cost engine, a process of its own, charges
 * them; the broker, a process of its own too, is killed with SIGKILL mid-stream (nothing flushed,
 * no clean shutdown, an engine transaction open) and started again a few seconds later on the
 * same data and ports. The producers keep their records through the outage and send none twice,
 * the engine carries on, and what a downstream reader keeps of {@code gpu.usage.v1} adds up, per
 * GPU, job and pool, to the ground truth.
 */
class BrokerRestartIT {

    private static final int GPUS = 32;
    private static final long SEED = 23;
    /** The samples end an hour or two before now, as in AccountingIT (retention, and the broker's clock). */
    private static final Instant START = Instant.now().truncatedTo(ChronoUnit.HOURS).minus(Duration.ofHours(5));
    private static final Duration SPAN = Duration.ofHours(4);
    private static final Duration INTERVAL = Duration.ofSeconds(30);
    private static final int PARTITIONS = 2;
    private static final String APPLICATION = "broker-restart-engine";
    private static final String INSTANCE = "broker-restart-engine-0";
    /** The samples go out over a dozen seconds or more, so that the broker dies while they still flow. */
    private static final int SLICES = 80;
    private static final Duration SLICE_PAUSE = Duration.ofMillis(150);
    private static final Duration OUTAGE = Duration.ofSeconds(5);
    /** Written by a broker that stops cleanly; a restart without it recovers every log. */
    private static final String CLEAN_SHUTDOWN_MARKER = ".kafka_cleanshutdown";

    /** Kept when the test fails: the broker's and the engine's logs are in it. */
    @TempDir(factory = InMemoryWhereAvailable.class, cleanup = CleanupMode.ON_SUCCESS)
    Path dir;

    @Test
    void shouldChargeEachGpuJobAndPoolItsGroundTruthOnceThoughTheBrokerIsKilledMidStream() throws Exception {
        // Given hours of a fleet bought in US dollars, with spot interruptions and spot price moves
        FleetAccounts fleet = FleetAccounts.simulate(GPUS, SEED, START, SPAN, INTERVAL);
        assertThat(fleet.priceChanges()).isPositive();
        assertThat(fleet.interruptions()).isPositive();

        FleetAccounts.Charged charged;
        long onTopic;
        long sentAtKill;
        long lagAtKill;
        boolean markerAfterKill;
        boolean engineRodeItOut;
        Duration outage;
        Duration recovery;
        Path data = dir.resolve("kafka");
        try (BrokerProcess broker = BrokerProcess.start(System.getProperty("java.class.path"), data,
                dir.resolve("broker.log"))) {
            String bootstrap = broker.bootstrapServers();
            TopicAdmin.ensureTopics(bootstrap, PARTITIONS);
            fleet.publishPrices(bootstrap, "broker-restart-prices");

            ExecutorService publishing = Executors.newSingleThreadExecutor();
            try (EngineRuns engines = new EngineRuns(bootstrap, APPLICATION, INSTANCE, dir)) {
                // When the engine runs while the fleet's samples are published
                CostEngineProcess engine = engines.start(dir.resolve("state"), "engine");
                // The fleet holds its last third back until the engine has committed a third, however
                // slowly the engine starts (beside other tests it may take longer than the whole span
                // takes to publish): the broker must die with samples still to send.
                CountDownLatch release = new CountDownLatch(1);
                Future<?> publisher = publishing.submit(() -> {
                    fleet.publishTelemetry(bootstrap, "broker-restart-fleet", SLICES,
                            () -> {
                                fleet.holdFrom(2.0 / 3, release);
                                return SLICE_PAUSE;
                            });
                    return null;
                });

                // And the broker is killed once the engine has committed a third of the samples, as the
                // fleet sends its last third and the engine has some of it still to commit (catching
                // up, it commits every few seconds: by then it may have committed all it was sent)
                engines.awaitCommitted(fleet.samples() / 3, engine);
                release.countDown();
                engines.awaitUncommitted();
                lagAtKill = engines.lag();
                broker.kill();
                long killed = System.nanoTime();
                sentAtKill = fleet.samplesSent();
                markerAfterKill = Files.exists(data.resolve(CLEAN_SHUTDOWN_MARKER));

                // And started again on the same data and ports a few seconds later (the outage is the scenario)
                Thread.sleep(OUTAGE.toMillis());
                broker.restart();
                long back = System.nanoTime();

                // And the fleet and the engine go on to the end
                publisher.get(2, TimeUnit.MINUTES);
                engines.awaitCaughtUp(engine);
                outage = Duration.ofNanos(back - killed);
                recovery = Duration.ofNanos(System.nanoTime() - back);
                engineRodeItOut = engine.isAlive();
                onTopic = engines.end(Topics.TELEMETRY.name());
                charged = fleet.readCharged(bootstrap, engines);
            } finally {
                publishing.shutdownNow();
            }
        }
        boolean markerAfterStop = Files.exists(data.resolve(CLEAN_SHUTDOWN_MARKER));
        System.out.printf("broker restart: %d samples in %d windows, %d usage records read; at the kill %d samples"
                + " acknowledged, %d not yet committed by the engine; broker away %.1f s, every sample committed"
                + " %.1f s after it was back%n", fleet.samples(), fleet.windows(), charged.records(), sentAtKill,
                lagAtKill, outage.toMillis() / 1000.0, recovery.toMillis() / 1000.0);

        // Then the broker died mid-stream, the hard way: samples still to send, input the engine had not
        // committed, and none of the marker its clean stop at the end wrote
        assertThat(markerAfterKill).as("clean-shutdown marker after the kill").isFalse();
        assertThat(markerAfterStop).as("clean-shutdown marker after the stop").isTrue();
        assertThat(sentAtKill).isLessThan(fleet.samples());
        assertThat(lagAtKill).isPositive();

        // And the producers lost no sample and wrote none twice, and the engine carried on
        assertThat(onTopic).as("samples on %s", Topics.TELEMETRY.name()).isEqualTo(fleet.samples());
        assertThat(engineRodeItOut).as("the engine still runs").isTrue();

        // And every sample was charged once, in its window, at the ground truth's cost per GPU, job and pool
        fleet.assertChargedOnce(charged);
    }
}
