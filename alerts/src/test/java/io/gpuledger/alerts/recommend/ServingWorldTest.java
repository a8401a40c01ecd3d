package io.gpuledger.alerts.recommend;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuledger.alerts.TestSettings;
import io.gpuledger.model.GpuUsage;
import io.gpuledger.model.JobProgress;
import io.gpuledger.model.JobTraits;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Offer;
import io.gpuledger.model.WorkloadClass;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.function.Consumer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * RECLAIM_IDLE followed by a hook, judged in a world of serving jobs whose requests come in bursts hours apart,
 * which the rule does not describe. The rule sees closed minutes of SM activity and the requests each job reports,
 * and takes 30 quiet minutes without a request as capacity nobody needs, given back for good. The world draws, from
 * parameters the rule never reads:
 * <ul>
 *   <li>serving jobs of 1 to 3 replicas, each on a one-GPU instance, whose bursts of requests come as a Poisson
 *       process with a mean gap of 40 minutes to 4 hours, last 2 to 15 minutes and keep each replica at 30% to 80%
 *       SM; between bursts a loaded model shows 0 to 0.5% (health checks);</li>
 *   <li>what brings replicas back once their instances are given back, one of two, as a cluster has it:
 *       <ul>
 *         <li>{@code demand}: scaled from zero, they come back at the next burst, after a cold start of 2 to 8
 *             minutes' boot (billed, no telemetry) and 1 to 5 minutes loading the model at 20% to 40%; the burst
 *             is served that much later;</li>
 *         <li>{@code controller}: a controller that keeps their count (a Deployment whose pods lose their node)
 *             asks for new instances 0 to 2 minutes after the release, which boot for 2 to 8 minutes, load the
 *             model, and wait for the next burst.</li>
 *       </ul></li>
 * </ul>
 * The bill of the hook's world is compared with the bill of the same jobs whose instances were never given back.
 */
class ServingWorldTest {

    private static final Instant MONDAY = Instant.parse("2026-03-02T00:00:00Z");
    private static final Offer G5 = new Offer("aws", "us-east-1", "g5.xlarge", Lifecycle.ON_DEMAND);
    private static final double PRICE = 1.006;
    private static final int JOBS = 6;
    private static final int DAYS = 3;
    private static final int SAMPLE_SECONDS = WorldHook.SAMPLE_SECONDS;
    private static final JobTraits SERVING = new JobTraits("chat-serving", false, null, null,
            WorkloadClass.INFERENCE);

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3})
    void shouldSaveWhatItClaimsForServingJobsScaledFromZeroBetweenBursts(long seed) {
        // Given six serving jobs over three days, whose instances a hook gives back at each RECLAIM_IDLE
        // published, and whose replicas come back at the next burst
        World world = new World(seed, false);

        // When the days go by
        world.run();

        // Then no job loses money by following the advice, and what was saved is at least 0.7 of what was claimed
        String report = world.report();
        System.out.println(report);
        for (Job job : world.jobs) {
            assertThat(job.minutesSaved()).as(report).isGreaterThanOrEqualTo(0);
        }
        assertThat(world.realizedPerMonth()).as(report).isGreaterThanOrEqualTo(0.7 * world.claimedPerMonth());
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3})
    void shouldStopGivingBackAndClaimingForCapacityAControllerBringsBackAtOnce(long seed) {
        // Given the same jobs, whose replicas a controller asks for again as soon as their instances go
        World world = new World(seed, true);

        // When the days go by
        world.run();

        // Then none is given back more than six times in three days (each return within minutes: given back every
        // 30 quiet minutes, that was every 40 or so), no job loses more than the minutes its old instances ran
        // beside the new ones (up to three each time), and once its capacity came back, no record claims more than
        // a day a month of the job's instances (what its releases keep away is minutes), and each says why
        String report = world.report();
        System.out.println(report);
        for (Job job : world.jobs) {
            assertThat(world.releases(job)).as(report).isLessThanOrEqualTo(6);
            assertThat(job.minutesSaved()).as(report)
                    .isGreaterThanOrEqualTo(-3.0 * job.replicaCount * world.releases(job));
            assertThat(world.claimsAfterTheFirst(job)).as(report).allSatisfy(claim -> {
                assertThat(claim.perMonth()).isLessThanOrEqualTo(job.replicaCount * PRICE * 24);
                assertThat(claim.summary()).contains("Its capacity came back within 30 minutes of its last release");
            });
        }
    }

    private record Claim(String job, long second, double perMonth, String summary) {
    }

    /** One replica's instance: billed from {@code from}, reporting from {@code reportsFrom}, loading until then. */
    private static final class Replica {
        private final String instance;
        private final long from;
        private final long reportsFrom;
        private final long loadedAt;
        private final double loading;
        private long to = Long.MAX_VALUE;
        private boolean givenBack;

        private Replica(String instance, long from, long reportsFrom, long loadedAt, double loading) {
            this.instance = instance;
            this.from = from;
            this.reportsFrom = reportsFrom;
            this.loadedAt = loadedAt;
            this.loading = loading;
        }

        boolean held(long second) {
            return second >= from && second < to;
        }

        /** Whether it serves at {@code second}: held, and not given back (stopping). */
        boolean serves(long second) {
            return held(second) && !givenBack;
        }
    }

    private static final class Job {
        private final String id;
        private final int replicaCount;
        private final List<long[]> bursts = new ArrayList<>();
        private final List<Replica> replicas = new ArrayList<>();
        private final Random costs;
        private final double load;
        private int placements;
        private long heldSeconds;
        private long delaySeconds;
        private long shift;
        private int nextBurst;

        private Job(int index, Random draws) {
            this.id = "serve-" + index;
            this.replicaCount = 1 + draws.nextInt(3);
            this.costs = new Random(draws.nextLong());
            this.load = WorldHook.uniform(draws, 0.3, 0.8);
            double meanGap = WorldHook.uniform(draws, 40 * 60, 4 * 3600);
            long t = Math.round(-meanGap * Math.log(1 - draws.nextDouble()));
            while (t < DAYS * 86_400L) {
                long length = Math.round(WorldHook.uniform(draws, 2 * 60, 15 * 60));
                bursts.add(new long[] {t, length});
                t += length + Math.round(-meanGap * Math.log(1 - draws.nextDouble()));
            }
            for (int r = 0; r < replicaCount; r++) {
                replicas.add(new Replica(instance(), 0, 0, 0, 0));
            }
        }

        private String instance() {
            return "i-" + id + "-" + placements++;
        }

        /** The replicas held now, stopping ones included. */
        List<Replica> held(long second) {
            return replicas.stream().filter(r -> r.held(second)).toList();
        }

        /** New instances for {@code count} replicas, asked for at {@code at}: booted, then loading the model. */
        void recreate(long at, int count) {
            long boot = Math.round(WorldHook.uniform(costs, 2 * 60, 8 * 60));
            long model = Math.round(WorldHook.uniform(costs, 60, 5 * 60));
            double loading = WorldHook.uniform(costs, 0.2, 0.4);
            for (int r = 0; r < count; r++) {
                replicas.add(new Replica(instance(), at, at + boot, at + boot + model, loading));
            }
        }

        /** The burst serving at {@code second} (the bursts run later by what cold starts cost), or null. */
        long[] burstAt(long second) {
            while (nextBurst < bursts.size() && bursts.get(nextBurst)[0] + bursts.get(nextBurst)[1] + shift <= second) {
                nextBurst++;
            }
            if (nextBurst == bursts.size()) {
                return null;
            }
            long[] burst = bursts.get(nextBurst);
            return burst[0] + shift <= second ? burst : null;
        }

        /** Whether a burst arrives within the minute from {@code start} while no replica is there. */
        boolean arrivesWithNone(long start) {
            long[] burst = nextBurst < bursts.size() ? bursts.get(nextBurst) : null;
            return burst != null && burst[0] + shift < start + 60
                    && replicas.stream().noneMatch(r -> r.serves(start) || r.from >= start);
        }

        /** Brings replicas back for the burst that finds none: they serve it once loaded. */
        void coldStart(long start) {
            long[] burst = bursts.get(nextBurst);
            long arrives = Math.max(start, burst[0] + shift);
            int before = replicas.size();
            recreate(arrives, replicaCount);
            long ready = replicas.get(before).loadedAt;
            delaySeconds += ready - arrives;
            shift += ready - arrives;
        }

        /** Gives {@code instance} back at {@code at}: it stops, and is billed, 0 to 3 minutes later. */
        int release(String instance, long at) {
            int released = 0;
            for (Replica replica : replicas) {
                if (replica.instance.equals(instance) && replica.serves(at)) {
                    replica.givenBack = true;
                    replica.to = at + Math.round(WorldHook.uniform(costs, 0, WorldHook.STOPPING_SECONDS));
                    released++;
                }
            }
            return released;
        }

        void end(long at) {
            for (Replica replica : replicas) {
                heldSeconds += Math.max(0, Math.min(replica.to, at) - replica.from);
            }
        }

        /** Instance-minutes saved against jobs whose instances were never given back. */
        double minutesSaved() {
            return replicaCount * DAYS * 1440.0 - heldSeconds / 60.0;
        }
    }

    private static final class World {
        private final List<Job> jobs = new ArrayList<>();
        private final boolean controller;
        private final RulesOnMockTopic topic;
        private final FleetFeed feed;
        private final WorldHook hook;
        private final long seed;
        private final Random noise;
        /** Each release followed: its job, when, and what it claimed a month. */
        private final List<Claim> claims = new ArrayList<>();

        World(long seed, boolean controller) {
            this.seed = seed;
            Random draws = new Random(seed);
            for (int i = 0; i < JOBS; i++) {
                jobs.add(new Job(i, draws));
            }
            this.controller = controller;
            noise = new Random(draws.nextLong());
            topic = new RulesOnMockTopic(MONDAY, TestSettings.with("gpuledger.recommendation.ttl", "10m"));
            feed = new FleetFeed(topic);
            hook = new WorldHook(topic);
        }

        void run() {
            WorldHook.Closing closing = new WorldHook.Closing();
            for (long m = 0; m < DAYS * 1440L; m++) {
                long start = m * 60;
                for (Job job : jobs) {
                    if (!controller && job.arrivesWithNone(start)) {
                        job.coldStart(start);
                    }
                    closing.add(m, minute(job, start));
                }
                closing.closeBefore(m, topic);
                long sweep = (m + 1) * 60 + FleetFeed.READ_DELAY.toSeconds();
                topic.rules.sweep(topic.at(MONDAY.plusSeconds(sweep)));
                hook.follow(MONDAY.plusSeconds(sweep), (instance, r) -> {
                    for (Job job : jobs) {
                        int released = job.release(instance, sweep);
                        if (released > 0) {
                            claims.add(new Claim(job.id, sweep, r.estimatedMonthlySaving(), r.summary()));
                            if (controller) {
                                job.recreate(sweep + Math.round(WorldHook.uniform(job.costs, 0, 120)), released);
                            }
                        }
                    }
                });
            }
            jobs.forEach(job -> job.end(DAYS * 86_400L));
        }

        /**
         * The job's minute from {@code start} as it runs: what the cost engine sends of it once closed, each
         * replica's window, then its roll-up and requests.
         */
        private Consumer<Instant> minute(Job job, long start) {
            Instant from = MONDAY.plusSeconds(start);
            List<GpuUsage> windows = new ArrayList<>();
            double requests = 0;
            boolean[] inBurst = new boolean[60 / SAMPLE_SECONDS];
            for (int i = 0; i < inBurst.length; i++) {
                inBurst[i] = job.burstAt(start + (long) SAMPLE_SECONDS * i) != null;
            }
            for (Replica replica : job.held(start)) {
                if (start < replica.reportsFrom) {
                    continue;
                }
                double[] smActive = new double[60 / SAMPLE_SECONDS];
                for (int i = 0; i < smActive.length; i++) {
                    long second = start + (long) SAMPLE_SECONDS * i;
                    if (second < replica.loadedAt) {
                        smActive[i] = replica.loading;
                    } else if (inBurst[i] && !replica.givenBack) {
                        smActive[i] = job.load + WorldHook.uniform(noise, -0.05, 0.05);
                        requests += 20 * job.load;
                    } else {
                        smActive[i] = 0.005 * noise.nextDouble();
                    }
                }
                windows.add(WorldHook.window(replica.instance, G5, "A10G-24GB", job.id, "search", from, PRICE,
                        smActive));
            }
            double done = requests;
            return now -> {
                windows.forEach(window -> topic.rules.onWindow(window, now));
                if (windows.isEmpty()) {
                    return;
                }
                if (done > 0) {
                    topic.rules.onProgress(new JobProgress(job.id, "search", "host-" + job.id, "i-" + job.id,
                            List.of(), from.plusSeconds(60), 60, done, "requests", 1, null, null, null, SERVING), now);
                }
                feed.jobMinute(job.id, from, windows.size(), windows.size() * PRICE, "requests", done, now);
            };
        }

        double realizedPerMonth() {
            return jobs.stream().mapToDouble(Job::minutesSaved).sum() / 60 * PRICE * 30 / DAYS;
        }

        /**
         * What the releases claimed a month, each for the time until its job's next release (or the end of the
         * run), over the run: the same span as what was realized.
         */
        double claimedPerMonth() {
            double claimed = 0;
            for (int i = 0; i < claims.size(); i++) {
                Claim claim = claims.get(i);
                long until = DAYS * 86_400L;
                for (int j = i + 1; j < claims.size(); j++) {
                    if (claims.get(j).job().equals(claim.job())) {
                        until = claims.get(j).second();
                        break;
                    }
                }
                claimed += claim.perMonth() * (until - claim.second()) / (DAYS * 86_400.0);
            }
            return claimed;
        }

        /** The releases of the job after its first (those of a later minute). */
        List<Claim> claimsAfterTheFirst(Job job) {
            List<Claim> of = claims.stream().filter(claim -> claim.job().equals(job.id)).toList();
            return of.stream().filter(claim -> claim.second() > of.get(0).second()).toList();
        }

        long releases(Job job) {
            return claims.stream().filter(claim -> claim.job().equals(job.id)).map(Claim::second).distinct().count();
        }

        String report() {
            StringBuilder out = new StringBuilder(String.format(Locale.ROOT,
                    "draw %d, replicas back %s: realized %.2f USD a month against %.2f claimed%n", seed,
                    controller ? "at once" : "at the next burst", realizedPerMonth(), claimedPerMonth()));
            for (Job job : jobs) {
                out.append(String.format(Locale.ROOT, "%s: %d replicas, %d bursts, saved %.0f instance-minutes, %d"
                        + " releases, requests delayed %.0f min%n", job.id, job.replicaCount, job.bursts.size(),
                        job.minutesSaved(), releases(job), job.delaySeconds / 60.0));
            }
            return out.toString();
        }
    }
}
