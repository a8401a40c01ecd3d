package io.gpuledger.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.withinPercentage;

import io.gpuledger.cli.UsageLedger.Window;
import io.gpuledger.ingest.kafka.Producers;
import io.gpuledger.ingest.price.PriceCatalog;
import io.gpuledger.ingest.price.PriceFeed;
import io.gpuledger.ingest.sim.Fleet;
import io.gpuledger.ingest.sim.FleetSimulation;
import io.gpuledger.ingest.sim.GroundTruth;
import io.gpuledger.ingest.sim.SimulatedJob;
import io.gpuledger.ingest.sim.SimulationSettings;
import io.gpuledger.ingest.sim.SimulationStep;
import io.gpuledger.ingest.sim.Tally;
import io.gpuledger.model.GpuUsage;
import io.gpuledger.model.JobPart;
import io.gpuledger.model.Offer;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.TelemetrySample;
import io.gpuledger.model.Topics;
import io.gpuledger.model.UsageRollup;
import io.gpuledger.streams.CostEngineConfig;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.apache.kafka.clients.producer.KafkaProducer;

/**
 * A simulated fleet's span of time whose cost is known before any of it is published, for the
 * tests that put the pipeline through a fault and then check what the cost engine charged: the
 * fleet (bought in US dollars, with spot interruptions and spot price moves), every round of it,
 * every price version, the simulator's ground truth, and what each GPU's one-minute window must
 * hold. What a reader kept of {@code gpu.usage.v1} must add up, per GPU, job, team and pool, to the
 * ground truth, and no window may hold more than its own samples.
 */
final class FleetAccounts {

    private static final double PERCENT = 0.01;

    private final Fleet fleet;
    private final FleetSimulation simulation;
    private final List<PriceQuote> catalog;
    private final List<SimulationStep> steps;
    private final List<PriceQuote> prices;
    private final Map<Window, Expected> expected;
    /** The fleet's jobs by id; not the jobs on its shared GPUs, which are no job of the fleet's own. */
    private final Map<String, SimulatedJob> jobs;
    private final long samples;
    private final AtomicLong samplesSent = new AtomicLong();
    /** The end of the last round the broker has acknowledged whole. */
    private volatile Instant publishedThrough = Instant.EPOCH;

    private FleetAccounts(Fleet fleet, FleetSimulation simulation, List<PriceQuote> catalog,
            List<SimulationStep> steps) {
        this.fleet = fleet;
        this.simulation = simulation;
        this.catalog = catalog;
        this.steps = steps;
        List<PriceQuote> all = new ArrayList<>(catalog);
        steps.forEach(step -> all.addAll(step.priceChanges()));
        this.prices = List.copyOf(all);
        this.expected = expectedWindows(steps, prices);
        this.jobs = fleet.jobs().stream().collect(Collectors.toMap(SimulatedJob::id, Function.identity()));
        this.samples = steps.stream().mapToLong(step -> step.telemetry().size()).sum();
    }

    /**
     * Simulates {@code span} of a fleet of {@code gpus} from {@code start}, a sample per GPU every
     * {@code interval}; spot instances interrupted 0.2 times an hour, spot prices moving 4 times an hour.
     */
    static FleetAccounts simulate(int gpus, long seed, Instant start, Duration span, Duration interval) {
        return simulate(gpus, seed, start, span, interval, 0);
    }

    /** As above, with about {@code sharedFraction} of the GPUs time-sliced among several jobs each. */
    static FleetAccounts simulate(int gpus, long seed, Instant start, Duration span, Duration interval,
            double sharedFraction) {
        List<PriceQuote> catalog = PriceCatalog.loadDefault().quotes().stream()
                .filter(quote -> quote.currency().equals("USD")).toList();
        SimulationSettings settings = SimulationSettings.defaults(interval)
                .withSpotInterruptionsPerInstanceHour(0.2).withSpotPriceChangesPerOfferHour(4);
        Fleet fleet = Fleet.generate(gpus, catalog, seed, sharedFraction);
        FleetSimulation simulation = new FleetSimulation(fleet, catalog, settings, seed, start);
        List<SimulationStep> steps = new ArrayList<>();
        simulation.run(span, steps::add);
        return new FleetAccounts(fleet, simulation, catalog, List.copyOf(steps));
    }

    /** Samples in the whole span. */
    long samples() {
        return samples;
    }

    /** Samples the broker has acknowledged so far. */
    long samplesSent() {
        return samplesSent.get();
    }

    /**
     * Once {@code share} of the samples are sent, waits (three minutes at most) for {@code release}: called from a
     * publisher's pause, it holds the rest back until the test lets it go on.
     */
    void holdFrom(double share, CountDownLatch release) {
        if (samplesSent() < share * samples) {
            return;
        }
        try {
            release.await(3, TimeUnit.MINUTES);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Windows the samples fall in. */
    int windows() {
        return expected.size();
    }

    /** The end of the last round published whole, in simulated time: samples up to it are on the broker. */
    Instant publishedThrough() {
        return publishedThrough;
    }

    /** The windows the samples fall in that start at or before {@code start}. */
    Set<Window> windowsStartingBy(Instant start) {
        return expected.keySet().stream().filter(window -> !window.start().isAfter(start)).collect(Collectors.toSet());
    }

    /** The fleet's GPUs time-sliced among several jobs, as it started. */
    long sharedGpus() {
        return fleet.gpus().stream().filter(gpu -> gpu.job().shared()).count();
    }

    /** Price versions beyond the catalog: the spot price moves of the span. */
    int priceChanges() {
        return prices.size() - catalog.size();
    }

    long interruptions() {
        return simulation.interruptions();
    }

    /**
     * Every price version, the catalog's and the span's moves, before any sample: the engine's
     * price table is a global store read by its own thread, so a version sent just ahead of the
     * samples it prices could still be missed by them (see docs/architecture.md, limits).
     */
    void publishPrices(String bootstrap, String clientId) {
        try (KafkaProducer<String, PriceQuote> producer = Producers.forTopic(Topics.PRICES, bootstrap, clientId)) {
            new PriceFeed(producer).publish(prices);
        }
    }

    /**
     * The span's samples in simulated-time order, as agents send them (a GPU's samples in the
     * order they were taken, so that no window closes before its samples are in), in
     * {@code slices} flushed one after the other, {@code pause} apart.
     *
     * @throws IllegalStateException when the broker refused a sample for good
     */
    void publishTelemetry(String bootstrap, String clientId, int slices, Duration pause) throws InterruptedException {
        publishTelemetry(bootstrap, clientId, slices, () -> pause);
    }

    /** The same, asking {@code pause} before each pause: a caller may hurry the rest of the span along. */
    void publishTelemetry(String bootstrap, String clientId, int slices, Supplier<Duration> pause)
            throws InterruptedException {
        AtomicReference<Exception> failure = new AtomicReference<>();
        int roundsPerSlice = (steps.size() + slices - 1) / slices;
        try (KafkaProducer<byte[], byte[]> producer = Producers.forTopics(bootstrap, clientId)) {
            for (int round = 0; round < steps.size(); round++) {
                for (TelemetrySample sample : steps.get(round).telemetry()) {
                    producer.send(Producers.record(Topics.TELEMETRY, sample.time().toEpochMilli(), sample.gpuUuid(),
                            sample), (metadata, error) -> {
                                if (error != null) {
                                    failure.compareAndSet(null, error);
                                } else {
                                    samplesSent.incrementAndGet();
                                }
                            });
                }
                if ((round + 1) % roundsPerSlice == 0) {
                    producer.flush();
                    publishedThrough = steps.get(round).end();
                    // The fleet's pace between slices, not a wait for anything
                    Thread.sleep(pause.get().toMillis());
                }
            }
            producer.flush();
        }
        if (failure.get() != null) {
            throw new IllegalStateException("a sample was not published", failure.get());
        }
    }

    /**
     * How long a read-committed reader waits for what it lacks: a reader behind the open transaction of an engine
     * killed and not restarted on its state (a new state directory is a new producer, which does not abort it)
     * waits the engine's transaction timeout, then up to the broker's 10 s between its looks for timed-out
     * transactions. It bounds a failure only: a reader that has what it waits for returns at once. On a loaded
     * machine the windows still open at the end once came more than that and 20 s later; the engines' logs are
     * printed when it runs out.
     */
    private static final Duration READ_WAIT = CostEngineConfig.transactionTimeout(
            CostEngineConfig.DEFAULT_COMMIT_INTERVAL).plusSeconds(10).plus(Duration.ofMinutes(2));

    /**
     * Reads {@code gpu.usage.v1} as a downstream stage does (see {@link UsageLedger}) until every
     * window the samples fall in is there, or {@link #READ_WAIT} has passed. Call it while the
     * engine still runs, once it has committed every sample: the windows still open at the end
     * (within the grace period) are sent at its next update, a moment after its last commit.
     */
    Charged readCharged(String bootstrap, EngineRuns engines) {
        try (UsageLedger ledger = new UsageLedger(bootstrap)) {
            if (!ledger.readUntil(windows -> windows.containsAll(expected.keySet()), READ_WAIT)) {
                System.out.println("windows missing after " + READ_WAIT.toSeconds() + " s; the engines:\n"
                        + engines.describe());
            }
            return new Charged(ledger.windows(), ledger.records(), engines.end(Topics.TELEMETRY_DEAD_LETTERS.name()));
        }
    }

    /**
     * Asserts that no sample was refused, that the windows kept of {@code gpu.usage.v1} are
     * exactly the samples' windows, none holding more than its own samples, and that the totals
     * per GPU, per job, per team and per pool are the ground truth's, to 0.01%. A shared GPU's
     * window counts whole for its GPU and pool; its jobs are charged their parts of it
     * ({@link GpuUsage#jobParts()}), their teams likewise, and the rest, which no job took, its
     * node's team, and its pool and GPU as unallocated cost.
     */
    void assertChargedOnce(Charged charged) {
        Map<Window, GpuUsage> windows = charged.windows();
        assertThat(charged.deadLetters()).as("samples refused").isZero();
        assertThat(difference(expected.keySet(), windows.keySet())).as("windows missing").isEmpty();
        assertThat(difference(windows.keySet(), expected.keySet())).as("windows of no sample").isEmpty();
        assertThat(overcounted(windows)).isEmpty();

        GroundTruth truth = simulation.groundTruth();
        assertSameCost("GPU", costBy(windows, GpuUsage::gpuUuid), truth.byGpu(), Function.identity());
        assertSameCost("job", costByJob(windows.values()), truth.byJob(), this::jobKey);
        assertSameCost("team", costByTeam(windows.values()), teamTruth(), Function.identity());
        assertSameCost("pool", costBy(windows, usage -> usage.offer().key()), truth.byPool(), Function.identity());
        if (sharedGpus() > 0) {
            assertThat(unsplit(windows.values())).as("shared windows whose parts do not add up").isEmpty();
            Collection<GpuUsage> shared = windows.values().stream().filter(FleetAccounts::shared).toList();
            assertSameCost("unallocated of GPU", unallocatedBy(shared, GpuUsage::gpuUuid), truth.unallocatedByGpu(),
                    Function.identity());
            assertSameCost("unallocated of pool", unallocatedBy(shared, usage -> usage.offer().key()),
                    truth.unallocatedByPool(), Function.identity());
        }
    }

    /** The windows of shared GPUs in {@code charged}, and how many of them had unmonitored time. */
    static String sharedWindows(Charged charged) {
        List<GpuUsage> shared = charged.windows().values().stream().filter(FleetAccounts::shared).toList();
        long unmonitored = shared.stream().filter(usage -> usage.totals().unmonitoredSeconds() > 0).count();
        return shared.size() + " windows shared, " + unmonitored + " of them with unmonitored time";
    }

    /**
     * The largest relative difference from the ground truth of any GPU, job, team or pool total, or of a shared
     * GPU's or pool's unallocated cost, in {@code charged}: what the test holds to 0.01%, as it came out.
     */
    Map<String, Double> worstRelativeErrors(Charged charged) {
        Collection<GpuUsage> windows = charged.windows().values();
        Collection<GpuUsage> shared = windows.stream().filter(FleetAccounts::shared).toList();
        GroundTruth truth = simulation.groundTruth();
        Map<String, Double> worst = new TreeMap<>();
        worst.put("GPU", worstError(costBy(charged.windows(), GpuUsage::gpuUuid), truth.byGpu(), Function.identity()));
        worst.put("job", worstError(costByJob(windows), truth.byJob(), this::jobKey));
        worst.put("team", worstError(costByTeam(windows), teamTruth(), Function.identity()));
        worst.put("pool", worstError(costBy(charged.windows(), usage -> usage.offer().key()), truth.byPool(),
                Function.identity()));
        worst.put("unallocated of GPU", worstError(unallocatedBy(shared, GpuUsage::gpuUuid), truth.unallocatedByGpu(),
                Function.identity()));
        worst.put("unallocated of pool", worstError(unallocatedBy(shared, usage -> usage.offer().key()),
                truth.unallocatedByPool(), Function.identity()));
        worst.put("split of a shared window", shared.stream().mapToDouble(usage -> Math.abs(splitCost(usage)
                - usage.cost()) / usage.cost()).max().orElse(0));
        return worst;
    }

    /**
     * The job of each of the ground truth's ids as the usage topic tells it: a fleet job by the id its GPUs report
     * ({@link #jobKey(String, Offer)}), a job on a shared GPU by its own, which its part of a window names.
     */
    private String jobKey(String id) {
        SimulatedJob job = jobs.get(id);
        return job == null ? id : jobKey(job.reportedJobId(), job.offer());
    }

    /**
     * The ground truth per team: each job's cost to its team, and the time no job used on a pool's shared GPUs to
     * the team of their nodes (none, in the simulated fleet: a shared node is the platform's).
     */
    private Map<String, Tally> teamTruth() {
        GroundTruth truth = simulation.groundTruth();
        Map<String, String> sharedNodeTeams = new HashMap<>();
        fleet.jobs().stream().filter(SimulatedJob::shared).forEach(job -> sharedNodeTeams.merge(job.offer().key(),
                teamKey(job.team()), (one, other) -> {
                    assertThat(other).as("team of the shared nodes of %s", job.offer().key()).isEqualTo(one);
                    return one;
                }));
        Map<String, Tally> teams = new HashMap<>();
        truth.byJob().forEach((id, tally) -> teams.merge(truth.teams().get(id), tally, Tally::plus));
        truth.unallocatedByPool().forEach((pool, tally) -> teams.merge(sharedNodeTeams.get(pool), tally, Tally::plus));
        return teams;
    }

    private static boolean shared(GpuUsage usage) {
        return TelemetrySample.SHARED_JOB.equals(usage.jobId());
    }

    /**
     * Cost per job: a window of one job is its job's; a shared GPU's window is split among the jobs of its parts,
     * the rest no job's.
     */
    private static Map<String, Double> costByJob(Collection<GpuUsage> windows) {
        Map<String, Double> sums = new HashMap<>();
        for (GpuUsage usage : windows) {
            if (shared(usage)) {
                usage.jobParts().forEach(part -> sums.merge(part.jobId(), part.cost(), Double::sum));
            } else {
                sums.merge(jobKey(usage.jobId(), usage.offer()), usage.cost(), Double::sum);
            }
        }
        return sums;
    }

    /**
     * Cost per team: a window of one job is its node's team's; of a shared GPU's window, each part is its part's
     * team's, and what the parts leave of its cost its node's team's.
     */
    private static Map<String, Double> costByTeam(Collection<GpuUsage> windows) {
        Map<String, Double> sums = new HashMap<>();
        for (GpuUsage usage : windows) {
            double rest = usage.cost();
            if (shared(usage)) {
                for (JobPart part : usage.jobParts()) {
                    sums.merge(teamKey(part.team()), part.cost(), Double::sum);
                    rest -= part.cost();
                }
            }
            sums.merge(teamKey(usage.team()), rest, Double::sum);
        }
        return sums;
    }

    private static Map<String, Double> unallocatedBy(Collection<GpuUsage> windows, Function<GpuUsage, String> key) {
        Map<String, Double> sums = new HashMap<>();
        windows.forEach(usage -> sums.merge(key.apply(usage), usage.totals().unallocatedCost(), Double::sum));
        return sums;
    }

    /**
     * Shared windows whose job parts and unallocated cost do not add up to their cost (to 1e-9 of it): each is
     * charged once, split, nothing lost and nothing counted twice. Unmonitored cost is an estimate beside the
     * cost, not part of it, and no job's.
     */
    private static List<String> unsplit(Collection<GpuUsage> windows) {
        List<String> wrong = new ArrayList<>();
        for (GpuUsage usage : windows) {
            if (!shared(usage)) {
                continue;
            }
            if (usage.jobParts().isEmpty() || Math.abs(splitCost(usage) - usage.cost()) > 1e-9 * usage.cost()) {
                wrong.add(usage.gpuUuid() + " " + usage.windowStart() + ": cost " + usage.cost() + ", parts "
                        + usage.jobParts() + ", unallocated " + usage.totals().unallocatedCost() + ", unmonitored "
                        + usage.totals().unmonitoredCost());
            }
        }
        return wrong;
    }

    /** What a shared window's cost is split into: its job parts and its unallocated cost. */
    private static double splitCost(GpuUsage usage) {
        return usage.jobParts().stream().mapToDouble(JobPart::cost).sum() + usage.totals().unallocatedCost();
    }

    /**
     * Reads {@code gpu.rollups.v1} as {@link #readCharged} reads the windows, until every job,
     * team and pool minute the samples fall in holds as many samples as fall in it, or
     * {@link #READ_WAIT} has passed.
     */
    Map<String, UsageRollup> readRolledUp(String bootstrap) {
        Map<String, Long> minutes = expectedRollupMinutes();
        try (RollupLedger ledger = new RollupLedger(bootstrap)) {
            ledger.readUntil(rollups -> minutes.entrySet().stream().allMatch(minute ->
                    rollups.containsKey(minute.getKey())
                            && rollups.get(minute.getKey()).totals().samples() == minute.getValue()), READ_WAIT);
            return ledger.minutes();
        }
    }

    /**
     * Asserts that each job, team and pool minute of {@code gpu.rollups.v1} holds exactly the
     * samples that fall in it, no more (none counted twice across the engine's tasks) and no
     * fewer, and that their costs add up, per job, team and pool, to the ground truth, to 0.01%.
     */
    void assertRolledUpOnce(Map<String, UsageRollup> minutes) {
        Map<String, Long> expectedSamples = expectedRollupMinutes();
        Map<String, Long> samplesSeen = new HashMap<>();
        minutes.forEach((key, rollup) -> samplesSeen.put(key, rollup.totals().samples()));
        assertThat(samplesSeen).as("samples of each job, team and pool minute").isEqualTo(expectedSamples);

        GroundTruth truth = simulation.groundTruth();
        Map<String, SimulatedJob> jobs = fleet.jobs().stream()
                .collect(Collectors.toMap(SimulatedJob::id, Function.identity()));
        Map<UsageRollup.Dimension, Map<String, Double>> charged = new HashMap<>();
        minutes.values().forEach(rollup -> charged.computeIfAbsent(rollup.dimension(), dimension -> new HashMap<>())
                .merge(rollup.id(), rollup.totals().cost(), Double::sum));
        assertSameCost("rolled-up job", charged.get(UsageRollup.Dimension.JOB), truth.byJob(),
                id -> UsageRollup.idOf(UsageRollup.Dimension.JOB, jobs.get(id).reportedJobId(), null, null));
        assertSameCost("rolled-up team", charged.get(UsageRollup.Dimension.TEAM), truth.byJob(),
                id -> teamKey(jobs.get(id).team()));
        assertSameCost("rolled-up pool", charged.get(UsageRollup.Dimension.POOL), truth.byPool(),
                Function.identity());
    }

    /**
     * Samples per job, team and pool minute, keyed as {@link RollupLedger} keys them, worked out
     * from the samples alone: a sample counts in the minute that holds the middle of its interval.
     */
    private Map<String, Long> expectedRollupMinutes() {
        Map<String, Long> minutes = new HashMap<>();
        for (SimulationStep step : steps) {
            for (TelemetrySample sample : step.telemetry()) {
                Instant middle = sample.time().minusMillis(Math.round(sample.intervalSeconds() * 500));
                Instant minute = middle.truncatedTo(ChronoUnit.MINUTES);
                for (UsageRollup.Dimension dimension : UsageRollup.Dimension.GROUPS) {
                    String id = UsageRollup.idOf(dimension, sample.jobId(), sample.team(), sample.offer());
                    minutes.merge(RollupLedger.minuteKey(dimension, id, minute), 1L, Long::sum);
                }
            }
        }
        return minutes;
    }

    private static String teamKey(String team) {
        return team == null ? UsageRollup.NO_TEAM : team;
    }

    /**
     * What each window must hold, worked out from the samples alone: a sample belongs to the
     * one-minute window (aligned to the epoch) that holds the middle of its interval, and can cost
     * at most its GPU-time at the dearest price its offer had in the span.
     */
    private static Map<Window, Expected> expectedWindows(List<SimulationStep> steps, List<PriceQuote> prices) {
        Map<String, Double> dearestPerGpuHour = new HashMap<>();
        prices.forEach(quote -> dearestPerGpuHour.merge(quote.offer().key(), quote.pricePerGpuHour(), Math::max));
        Map<Window, Expected> expected = new HashMap<>();
        for (SimulationStep step : steps) {
            for (TelemetrySample sample : step.telemetry()) {
                Instant middle = sample.time().minusMillis(Math.round(sample.intervalSeconds() * 500));
                Window window = new Window(sample.gpuUuid(), middle.truncatedTo(ChronoUnit.MINUTES));
                double ceiling = dearestPerGpuHour.get(sample.offer().key()) * sample.chargedFraction()
                        * sample.intervalSeconds() / 3600;
                expected.merge(window, new Expected(1, sample.intervalSeconds(), ceiling), Expected::plus);
            }
        }
        return expected;
    }

    /** Windows whose total holds other samples, time or money than their own samples can account for. */
    private List<String> overcounted(Map<Window, GpuUsage> windows) {
        List<String> wrong = new ArrayList<>();
        windows.forEach((window, usage) -> {
            Expected own = expected.get(window);
            if (own == null) {
                return;
            }
            if (usage.samples() != own.samples() || Math.abs(usage.secondsObserved() - own.seconds()) > 1e-9
                    || usage.unpricedSeconds() != 0 || usage.cost() > own.ceiling() * (1 + 1e-12)) {
                wrong.add(window + ": " + usage.samples() + " samples, " + usage.secondsObserved() + " s, cost "
                        + usage.cost() + "; its samples: " + own);
            }
        });
        return wrong;
    }

    private static Set<Window> difference(Set<Window> these, Set<Window> those) {
        Set<Window> rest = new HashSet<>(these);
        rest.removeAll(those);
        return rest;
    }

    private static Map<String, Double> costBy(Map<Window, GpuUsage> windows, Function<GpuUsage, String> key) {
        Map<String, Double> sums = new HashMap<>();
        windows.values().forEach(usage -> sums.merge(key.apply(usage), usage.cost(), Double::sum));
        return sums;
    }

    private static void assertSameCost(String what, Map<String, Double> charged, Map<String, Tally> truth,
            Function<String, String> key) {
        Map<String, Double> expected = new HashMap<>();
        truth.forEach((id, tally) -> expected.merge(key.apply(id), tally.cost(), Double::sum));
        assertThat(charged.keySet()).as("%s keys", what).containsExactlyInAnyOrderElementsOf(expected.keySet());
        expected.forEach((id, cost) -> assertThat(charged.get(id)).as("cost of %s %s", what, id)
                .isCloseTo(cost, withinPercentage(PERCENT)));
    }

    /** The largest relative difference between {@code charged} and {@code truth}, keyed alike; NaN: a key missing. */
    private static double worstError(Map<String, Double> charged, Map<String, Tally> truth,
            Function<String, String> key) {
        Map<String, Double> expected = new HashMap<>();
        truth.forEach((id, tally) -> expected.merge(key.apply(id), tally.cost(), Double::sum));
        double worst = 0;
        for (Map.Entry<String, Double> entry : expected.entrySet()) {
            Double cost = charged.get(entry.getKey());
            if (cost == null) {
                return Double.NaN;
            }
            worst = Math.max(worst, Math.abs(cost - entry.getValue()) / entry.getValue());
        }
        return worst;
    }

    /**
     * A job as the usage topic can tell it: by its id, except that capacity running no job says
     * {@code unknown} on the wire, which is told apart by its pool.
     */
    private static String jobKey(String reportedJobId, Offer offer) {
        return reportedJobId == null || reportedJobId.equals(TelemetrySample.UNKNOWN_JOB)
                ? TelemetrySample.UNKNOWN_JOB + "|" + offer.key() : reportedJobId;
    }

    /**
     * What the engine made of the samples: the last record of each window a reader kept, how many
     * records it read (re-emissions counted), and how many samples went to the dead-letter topic.
     */
    record Charged(Map<Window, GpuUsage> windows, long records, long deadLetters) {
    }

    private record Expected(long samples, double seconds, double ceiling) {
        Expected plus(Expected other) {
            return new Expected(samples + other.samples, seconds + other.seconds, ceiling + other.ceiling);
        }
    }
}
