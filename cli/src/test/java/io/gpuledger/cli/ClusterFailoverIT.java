package io.gpuledger.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuledger.broker.BrokerCluster;
import io.gpuledger.broker.BrokerProcess;
import io.gpuledger.model.TopicAdmin;
import io.gpuledger.model.Topics;
import io.gpuledger.processes.GroupProgress;
import io.gpuledger.streams.CostEngineProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.ToLongFunction;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * One broker of three dies under load: a three-node KRaft cluster ({@link BrokerCluster}, each
 * node a process of its own, topics in three copies with {@code min.insync.replicas=2}) carries a
 * simulated fleet's samples, published through idempotent producers ({@code acks=all}), to the
 * cost engine, a process of its own under exactly-once. The broker leading the first telemetry
 * partition is killed with SIGKILL mid-stream and stays away while the other two carry on: the
 * producer and the engine go on without it (their leaders and coordinators move), and it is
 * started again on its data once the engine has committed more samples without it. What a
 * {@code read_committed} reader keeps of {@code gpu.usage.v1} adds up, per GPU, job and pool, to
 * the simulator's ground truth, no window holding more than its own samples, and the telemetry
 * topic holds each sample once.
 *
 * <p>The test can fail: with every topic made to need all three copies in sync
 * ({@code min.insync.replicas=3}, in {@code TopicAdmin} and the brokers' defaults), the engine
 * committed nothing while the broker was away and the test failed waiting for it. With the
 * fleet's producer taking one copy's word instead ({@code acks=1}, idempotence off) it passed: on
 * loopback the followers had copied every acknowledged sample by the kill (docs/reliability.md).
 */
class ClusterFailoverIT {

    private static final int BROKERS = 3;
    private static final int GPUS = 8;
    private static final long SEED = 29;
    /** The samples end an hour or two before now, as in AccountingIT (retention, and the brokers' clocks). */
    private static final Instant START = Instant.now().truncatedTo(ChronoUnit.HOURS).minus(Duration.ofHours(5));
    private static final Duration SPAN = Duration.ofHours(3);
    private static final Duration INTERVAL = Duration.ofSeconds(30);
    /** One telemetry partition per broker, so that the one killed leads one of them. */
    private static final int PARTITIONS = 3;
    private static final String APPLICATION = "cluster-failover-engine";
    private static final String INSTANCE = "cluster-failover-engine-0";
    /** The samples go out over 20 seconds or more, so that the broker dies while they still flow. */
    private static final int SLICES = 80;
    private static final Duration SLICE_PAUSE = Duration.ofMillis(250);
    private static final Duration LOOK_EVERY = Duration.ofMillis(50);

    /** Kept when the test fails: the brokers' and the engine's logs are in it. */
    @TempDir(factory = InMemoryWhereAvailable.class, cleanup = CleanupMode.ON_SUCCESS)
    Path dir;

    @Test
    void shouldChargeEachGpuItsGroundTruthOnceThoughOneBrokerOfThreeIsKilledMidStream() throws Exception {
        // Given hours of a fleet bought in US dollars, with spot interruptions and spot price moves
        FleetAccounts fleet = FleetAccounts.simulate(GPUS, SEED, START, SPAN, INTERVAL);

        FleetAccounts.Charged charged;
        long onTopic;
        long sentAtKill;
        long lagAtKill;
        int victim;
        boolean engineRodeItOut;
        List<Short> telemetryReplicas;
        String telemetryMinInSync;
        List<Look> looks = new ArrayList<>();
        long killed;
        long back;
        long caughtUp;
        long inSyncAgain;
        try (BrokerCluster cluster = BrokerCluster.start(System.getProperty("java.class.path"), BROKERS,
                dir.resolve("kafka"))) {
            String bootstrap = cluster.bootstrapServers();
            TopicAdmin.ensureTopics(bootstrap, PARTITIONS);
            fleet.publishPrices(bootstrap, "cluster-failover-prices");

            ExecutorService background = Executors.newFixedThreadPool(2);
            try (EngineRuns engines = new EngineRuns(bootstrap, APPLICATION, INSTANCE, dir);
                    Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
                TopicDescription telemetry = describeTelemetry(admin);
                telemetryReplicas = telemetry.partitions().stream()
                        .map(partition -> (short) partition.replicas().size()).toList();
                telemetryMinInSync = minInSyncReplicas(admin);

                // When the engine runs while the fleet's samples are published
                CostEngineProcess engine = engines.start(dir.resolve("state"), "engine");
                Future<?> publisher = background.submit(() -> {
                    fleet.publishTelemetry(bootstrap, "cluster-failover-fleet", SLICES, SLICE_PAUSE);
                    return null;
                });
                Future<?> watcher = background.submit(() -> watch(fleet, bootstrap, looks));

                // And the leader of the first telemetry partition is killed once the engine has committed
                // samples and a third of them are published
                engines.awaitCommitted(1, engine);
                awaitWhileAlive("a third of the samples published", engine,
                        () -> fleet.samplesSent() >= fleet.samples() / 3);
                victim = cluster.nodeAt(describeTelemetry(admin).partitions().get(0).leader().port());
                BrokerProcess node = cluster.node(victim);
                lagAtKill = engines.lag();
                long committedAtKill = engines.committed();
                node.kill();
                killed = System.nanoTime();
                sentAtKill = fleet.samplesSent();

                // And stays away until the engine has committed samples without it
                awaitWhileAlive("the engine commits samples with one broker away", engine,
                        () -> engines.committed() > committedAtKill);
                node.restart();
                back = System.nanoTime();

                // And the node takes its copies back, and the fleet and the engine go on to the end
                await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(100))
                        .until(() -> describeTelemetry(admin).partitions().stream()
                                .allMatch(partition -> partition.isr().size() == BROKERS));
                inSyncAgain = System.nanoTime();
                publisher.get(2, TimeUnit.MINUTES);
                engines.awaitCaughtUp(engine);
                caughtUp = System.nanoTime();
                watcher.cancel(true);
                engineRodeItOut = engine.isAlive();
                onTopic = engines.end(Topics.TELEMETRY.name());
                charged = fleet.readCharged(bootstrap, engines);
            } finally {
                background.shutdownNow();
            }
        }
        Duration producerStall = longestStall(looks, killed, Long.MAX_VALUE, Look::sent, fleet.samples());
        Duration engineStall = longestStall(looks, killed, Long.MAX_VALUE, Look::committed, fleet.samples());
        Duration producerPace = longestStall(looks, 0, killed, Look::sent, fleet.samples());
        Duration enginePace = longestStall(looks, 0, killed, Look::committed, fleet.samples());
        Duration engineCaughtUpWithKill = firstReaching(looks, killed, Look::committed, sentAtKill);
        System.out.printf("cluster failover: %d samples in %d windows, %d usage records read; node %d of %d killed"
                + " with %d samples acknowledged, %d not yet committed by the engine; longest stall after the kill:"
                + " producer %.1f s, engine %.1f s (before it: %.1f s and %.1f s); the engine had committed every"
                + " sample acknowledged at the kill %.1f s after it; node away %.1f s; every telemetry partition in"
                + " sync on %d nodes %.1f s after it was back, every sample committed %.1f s after%n", fleet.samples(),
                fleet.windows(), charged.records(), victim, BROKERS, sentAtKill, lagAtKill, seconds(producerStall),
                seconds(engineStall), seconds(producerPace), seconds(enginePace), seconds(engineCaughtUpWithKill),
                seconds(Duration.ofNanos(back - killed)), BROKERS, seconds(Duration.ofNanos(inSyncAgain - back)),
                seconds(Duration.ofNanos(caughtUp - back)));

        // Then every telemetry partition was kept in three copies, two of which must hold a record first
        assertThat(telemetryReplicas).as("copies of each telemetry partition").containsOnly((short) BROKERS);
        assertThat(telemetryMinInSync).isEqualTo("2");

        // And the broker died mid-stream: samples still to send, input the engine had not committed
        assertThat(sentAtKill).isLessThan(fleet.samples());
        assertThat(lagAtKill).isPositive();

        // And the producers lost no sample and wrote none twice, and the engine carried on
        assertThat(onTopic).as("samples on %s", Topics.TELEMETRY.name()).isEqualTo(fleet.samples());
        assertThat(engineRodeItOut).as("the engine still runs").isTrue();

        // And every sample was charged once, in its window, at the ground truth's cost per GPU, job and pool
        fleet.assertChargedOnce(charged);
    }

    private static TopicDescription describeTelemetry(Admin admin) throws Exception {
        return admin.describeTopics(List.of(Topics.TELEMETRY.name())).allTopicNames().get(30, TimeUnit.SECONDS)
                .get(Topics.TELEMETRY.name());
    }

    private static String minInSyncReplicas(Admin admin) throws Exception {
        ConfigResource topic = new ConfigResource(ConfigResource.Type.TOPIC, Topics.TELEMETRY.name());
        Config config = admin.describeConfigs(List.of(topic)).all().get(30, TimeUnit.SECONDS).get(topic);
        return config.get("min.insync.replicas").value();
    }

    private static void awaitWhileAlive(String what, CostEngineProcess engine, Callable<Boolean> done) {
        await(what).atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(100)).failFast(() -> !engine.isAlive())
                .ignoreExceptionsInstanceOf(IllegalStateException.class).until(done);
    }

    /**
     * What the producer had acknowledged and the engine committed, looked at every 50 ms until
     * cancelled, through an admin client of its own.
     */
    private static Void watch(FleetAccounts fleet, String bootstrap, List<Look> looks) {
        try (GroupProgress progress = new GroupProgress(bootstrap)) {
            while (!Thread.currentThread().isInterrupted()) {
                long sent = fleet.samplesSent();
                try {
                    long committed = progress.committed(APPLICATION, Topics.TELEMETRY.name());
                    synchronized (looks) {
                        looks.add(new Look(System.nanoTime(), sent, committed));
                    }
                } catch (IllegalStateException e) {
                    // The group's coordinator moving: the look is missed, as it would be by an operator
                }
                Thread.sleep(LOOK_EVERY.toMillis());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return null;
    }

    /**
     * The longest time between {@code from} and {@code until} that {@code value} stood still while
     * it was short of {@code end}: how long a stage made no progress.
     */
    private static Duration longestStall(List<Look> looks, long from, long until, ToLongFunction<Look> value,
            long end) {
        long longest = 0;
        long since = from;
        long last = -1;
        synchronized (looks) {
            for (Look look : looks) {
                if (look.nanos() < from || look.nanos() > until) {
                    continue;
                }
                long now = value.applyAsLong(look);
                if (now != last) {
                    last = now;
                    since = look.nanos();
                } else if (now < end) {
                    longest = Math.max(longest, look.nanos() - since);
                }
            }
        }
        return Duration.ofNanos(longest);
    }

    /** How long after {@code from} {@code value} first reached {@code target}. */
    private static Duration firstReaching(List<Look> looks, long from, ToLongFunction<Look> value, long target) {
        synchronized (looks) {
            return looks.stream().filter(look -> look.nanos() >= from && value.applyAsLong(look) >= target)
                    .findFirst().map(look -> Duration.ofNanos(look.nanos() - from)).orElse(Duration.ZERO);
        }
    }

    private static double seconds(Duration duration) {
        return duration.toMillis() / 1000.0;
    }

    private record Look(long nanos, long sent, long committed) {
    }
}
