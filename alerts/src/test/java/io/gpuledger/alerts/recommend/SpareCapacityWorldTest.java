package io.gpuledger.alerts.recommend;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuledger.alerts.TestSettings;
import io.gpuledger.model.GpuUsage;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Offer;
import io.gpuledger.model.Recommendation;
import io.gpuledger.model.TelemetrySample;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.function.Consumer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * RECLAIM_IDLE judged in a world of spare capacity: the nodes of a node group kept warm for jobs to come, which run
 * no job. The rule sees an instance that runs no job, quiet for a period, and is its own target; a hook gives back
 * every one it names as soon as it is published.
 *
 * <p>The world draws from what the rule never reads: how many nodes the group keeps (2 to 5), how long a new node
 * takes from its request to its agent's first sample (2 to 6 minutes, billed throughout), when an autoscaler asks
 * for a replacement (within a minute), how long a node given back takes to stop (up to 3 minutes, billed). Either
 * an autoscaler keeps the group at its minimum, so that each node given back is replaced at once by a new instance,
 * a target the rule has never seen; or nothing does, and a node given back stays gone. Each world is billed by the
 * instance-minutes it held, against the same world left alone.
 */
class SpareCapacityWorldTest {

    private static final Instant MONDAY = Instant.parse("2026-03-02T00:00:00Z");
    private static final Offer G5 = new Offer("aws", "us-east-1", "g5.xlarge", Lifecycle.ON_DEMAND);
    private static final double PRICE = 1.006;
    private static final int DAYS = 2;

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3})
    void shouldStopGivingBackAndClaimingForSpareNodesAnAutoscalerReplacesAtOnce(long seed) {
        // Given a node group an autoscaler keeps at its minimum, whose nodes run no job, when two days go by
        World world = ran(seed, true);

        // Then each node's place is given back at most eight times in two days (given back every 30 quiet minutes,
        // that was every 35 or so), no more is lost than the minutes the nodes given back ran beside their
        // replacements (up to three each), and once a node came back, no record claims more than a day a month of
        // a node (what its releases kept away is minutes), and each says why
        String report = world.report();
        assertThat(world.releases()).as(report).isLessThanOrEqualTo(8L * world.minimum);
        assertThat(world.minutesSaved()).as(report).isGreaterThanOrEqualTo(-3.0 * world.releases());
        assertThat(world.claimsAfterTheFirst()).as(report).allSatisfy(claim -> {
            assertThat(claim.perMonth()).isLessThanOrEqualTo(PRICE * 24);
            assertThat(claim.summary()).contains("Its capacity came back within 30 minutes of its last release");
        });
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3})
    void shouldGiveBackSpareNodesNothingReplacesOnceForWhatTheyCost(long seed) {
        // Given the same group, with nothing that replaces a node given back, when two days go by
        World world = ran(seed, false);

        // Then each node is given back once, after its first quiet period, and what that saved is what was claimed
        String report = world.report();
        assertThat(world.releases()).as(report).isEqualTo(world.minimum);
        assertThat(world.realizedPerMonth()).as(report).isGreaterThanOrEqualTo(0.9 * world.claimedPerMonth())
                .isPositive();
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3})
    void shouldNotTakeANodeOfThePoolWhoseJobEndedForSpareCapacityComingBack(long seed) {
        // Given the group with nothing that replaces a node given back, and beside it a node of the same pool whose
        // batch job ends 25 minutes in, a few minutes before the spare nodes are given back: its minutes then run no
        // job, and it is followed afresh, with no period of its own yet
        World world = new World(seed, false, 25);

        // When two days go by
        world.run();
        System.out.println(world.report());

        // Then it is given back once it has been quiet a period, as the spare nodes were: it is not their capacity
        // coming back, which would make it wait twice as long
        assertThat(world.claims).as(world.report()).anySatisfy(claim -> {
            assertThat(claim.instance()).isEqualTo(World.BATCH_NODE);
            assertThat(claim.second()).isLessThan((25 + 30 + WorldHook.CLOSING_MINUTES + 3) * 60L);
        });
    }

    /** The world of {@code seed} after its days went by, its figures printed. */
    private static World ran(long seed, boolean autoscaler) {
        World world = new World(seed, autoscaler, 0);
        world.run();
        System.out.println(world.report());
        return world;
    }

    private record Claim(String instance, long second, double perMonth, String summary) {
    }

    /**
     * A node: billed from {@code from} (its request), sending from {@code sendsFrom}, until {@code to}; running a
     * batch job until {@code jobUntil}.
     */
    private static final class Node {
        private final String instance;
        private final long from;
        private final long sendsFrom;
        private long jobUntil;
        private long to = Long.MAX_VALUE;
        private boolean givenBack;

        private Node(String instance, long from, long sendsFrom) {
            this.instance = instance;
            this.from = from;
            this.sendsFrom = sendsFrom;
        }

        boolean sends(long second) {
            return second >= sendsFrom && second < to;
        }
    }

    private static final class World {
        static final String BATCH_NODE = "i-batch";
        private final long seed;
        private final boolean autoscaler;
        private final int minimum;
        /** The nodes held at the start: what the world left alone holds throughout. */
        private final int initialNodes;
        private final Random costs;
        private final Random noise;
        private final List<Node> nodes = new ArrayList<>();
        private final RulesOnMockTopic topic;
        private final WorldHook hook;
        private final List<Claim> claims = new ArrayList<>();
        private int created;

        /** {@code batchMinutes}: minutes of the batch node's job, 0 for no batch node. */
        World(long seed, boolean autoscaler, int batchMinutes) {
            this.seed = seed;
            this.autoscaler = autoscaler;
            Random draws = new Random(seed);
            this.costs = new Random(draws.nextLong());
            this.noise = new Random(draws.nextLong());
            this.minimum = 2 + draws.nextInt(4);
            for (int n = 0; n < minimum; n++) {
                nodes.add(new Node(newInstance(), 0, 0));
            }
            if (batchMinutes > 0) {
                Node batch = new Node(BATCH_NODE, 0, 0);
                batch.jobUntil = batchMinutes * 60L;
                nodes.add(batch);
            }
            initialNodes = nodes.size();
            topic = new RulesOnMockTopic(MONDAY, TestSettings.with("gpuledger.recommendation.ttl", "10m"));
            hook = new WorldHook(topic);
        }

        private String newInstance() {
            return "i-spare-" + created++;
        }

        void run() {
            WorldHook.Closing closing = new WorldHook.Closing();
            for (long m = 0; m < DAYS * 1440L; m++) {
                long start = m * 60;
                closing.add(m, minute(start));
                closing.closeBefore(m, topic);
                long sweep = (m + 1) * 60 + FleetFeed.READ_DELAY.toSeconds();
                topic.rules.sweep(topic.at(MONDAY.plusSeconds(sweep)));
                hook.follow(MONDAY.plusSeconds(sweep), (instance, r) -> release(instance, sweep, r));
            }
        }

        /** Gives the node back at {@code at}: it stops 0 to 3 minutes later; an autoscaler asks for another. */
        private void release(String instance, long at, Recommendation r) {
            for (Node node : List.copyOf(nodes)) {
                if (node.instance.equals(instance) && !node.givenBack && node.from <= at && at < node.to) {
                    node.givenBack = true;
                    node.to = at + Math.round(WorldHook.uniform(costs, 0, WorldHook.STOPPING_SECONDS));
                    claims.add(new Claim(instance, at, r.estimatedMonthlySaving(), r.summary()));
                    if (autoscaler) {
                        long asked = at + Math.round(WorldHook.uniform(costs, 5, 60));
                        nodes.add(new Node(newInstance(), asked,
                                asked + Math.round(WorldHook.uniform(costs, 120, 360))));
                    }
                }
            }
        }

        /** The group's closed minute from {@code start}, sent once the cost engine closes it: each node's window. */
        private Consumer<Instant> minute(long start) {
            List<GpuUsage> windows = new ArrayList<>();
            for (Node node : nodes) {
                if (!node.sends(start)) {
                    continue;
                }
                boolean working = start < node.jobUntil;
                double[] smActive = new double[60 / WorldHook.SAMPLE_SECONDS];
                for (int i = 0; i < smActive.length; i++) {
                    smActive[i] = working ? WorldHook.uniform(noise, 0.5, 0.7) : 0.004 * noise.nextDouble();
                }
                windows.add(WorldHook.window(node.instance, G5, "A10G-24GB",
                        working ? "batch-1" : TelemetrySample.UNKNOWN_JOB, "platform", MONDAY.plusSeconds(start),
                        PRICE, smActive));
            }
            return now -> windows.forEach(window -> topic.rules.onWindow(window, now));
        }

        /** Node-minutes saved against the world left alone, its first nodes held throughout. */
        double minutesSaved() {
            double held = 0;
            for (Node node : nodes) {
                held += Math.max(0, Math.min(node.to, DAYS * 86_400L) - node.from) / 60.0;
            }
            return initialNodes * DAYS * 1440.0 - held;
        }

        double realizedPerMonth() {
            return minutesSaved() / 60 * PRICE * 30 / DAYS;
        }

        /** What the releases claimed a month, each for the time from its release to the end of the run. */
        double claimedPerMonth() {
            return claims.stream().mapToDouble(claim -> claim.perMonth() * (DAYS * 86_400.0 - claim.second())
                    / (DAYS * 86_400.0)).sum();
        }

        /** The releases after the group's first (those of a later minute). */
        List<Claim> claimsAfterTheFirst() {
            return claims.stream().filter(claim -> claim.second() > claims.get(0).second()).toList();
        }

        long releases() {
            return claims.size();
        }

        String report() {
            return String.format(Locale.ROOT, "draw %d, %d nodes, %s: %d releases, saved %.0f node-minutes, realized"
                    + " %.2f USD a month against %.2f claimed", seed, minimum,
                    autoscaler ? "replaced at once" : "not replaced", releases(), minutesSaved(), realizedPerMonth(),
                    claimedPerMonth());
        }
    }
}
