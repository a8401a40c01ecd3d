package io.gpuledger.ingest.sim;

import io.gpuledger.model.CapacityEvent;
import io.gpuledger.model.JobProgress;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.TelemetrySample;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * A fleet running in simulated time. Each {@link #next()} call produces everything the fleet
 * publishes for one more interval, at once and without waiting: samples of every running GPU,
 * work reports of every node whose job reports work, spot interruption notices, spot price
 * changes, and, as a price feed does, confirmations of every price in force in the first round and
 * then once every {@link PriceQuote#CONFIRMATION_INTERVAL}. A notice comes
 * {@link SimulatedNotices two minutes or 30 seconds} before its instance stops reporting; a
 * replacement instance may take over the node after it. Rounds end at
 * {@code start + k × interval}, so the same fleet, settings, seed and start give the same records,
 * whether they are stepped through by a test or paced by the wall clock.
 *
 * <p>A shared GPU's round is drawn by its {@link TimeSlicedGpu}: which of its jobs are on it, and the time the
 * scheduler gives each; its sample carries their shares, and the ground truth charges each job its time. Its
 * inference replicas report the work they did in that time.
 *
 * <p>Every transcendental function it uses is {@link StrictMath}'s, so that a seed gives the same
 * records on every machine, not only on this one.
 *
 * <p>Not thread-safe: one caller steps it.
 */
public final class FleetSimulation {

    /** Keeps this run's random streams apart from the one the fleet was laid out with. */
    private static final long STREAM_SALT = 0x6A09E667F3BCC909L;

    private final Fleet fleet;
    private final SimulationSettings settings;
    private final long seed;
    private final Instant start;
    private final double intervalSeconds;
    /** Telemetry noise and job pacing. */
    private final SplittableRandom metricsRandom;
    /** Interruptions and price moves: apart from metrics, so that changing their rates leaves the rest as it was. */
    private final SplittableRandom marketRandom;
    /** Who uses the shared GPUs and how much: apart from the rest, so that a fleet with none draws as before. */
    private final SplittableRandom sharingRandom;
    private final double interruptionChance;
    private final double priceChangeChance;
    private final PriceVersions prices = new PriceVersions();
    private final GroundTruth truth = new GroundTruth();
    private final List<SimulatedInstance> running;
    private final Map<String, Instant> deadlines = new HashMap<>();
    private final List<Replacement> replacements = new ArrayList<>();
    private final Map<SimulatedJob, Pace> paces = new IdentityHashMap<>();
    private final Map<String, TimeSlicedGpu> timeSliced = new HashMap<>();
    private final List<SpotMarket> spotMarkets = new ArrayList<>();
    private int nextSerial;
    private long rounds;
    /** When prices are next confirmed: in the first round, then every confirmation interval. */
    private Instant nextConfirmation;
    private long interruptions;
    private long replaced;

    /**
     * @param catalog the price versions already published (the catalog): what the fleet is charged
     *                at, and where spot prices move from
     * @param start   the beginning of the first interval
     */
    public FleetSimulation(Fleet fleet, Collection<PriceQuote> catalog, SimulationSettings settings, long seed,
            Instant start) {
        this.fleet = fleet;
        this.settings = settings;
        this.seed = seed;
        this.start = start;
        this.intervalSeconds = settings.intervalSeconds();
        SplittableRandom root = new SplittableRandom(seed ^ STREAM_SALT);
        this.metricsRandom = root.split();
        this.marketRandom = root.split();
        this.sharingRandom = root.split();
        this.interruptionChance = settings.chancePerInterval(settings.spotInterruptionsPerInstanceHour());
        this.priceChangeChance = settings.chancePerInterval(settings.spotPriceChangesPerOfferHour());
        this.running = new ArrayList<>(fleet.instances());
        this.nextSerial = fleet.instances().stream().mapToInt(SimulatedInstance::serial).max().orElse(-1) + 1;
        catalog.forEach(prices::add);
        fleet.jobs().forEach(job -> paces.put(job, new Pace()));
        openSpotMarkets(catalog);
        this.nextConfirmation = start;
    }

    /** Everything published for the next interval; the simulated clock moves on by one interval. */
    public SimulationStep next() {
        rounds++;
        Instant end = start.plus(settings.interval().multipliedBy(rounds));
        Instant begin = end.minus(settings.interval());
        // The instant the cost engine prices a sample at: the middle of its interval, to the millisecond.
        Instant middle = end.minusMillis(Math.round(intervalSeconds * 500));

        retireInterrupted(end);
        launchReplacements(begin);
        paceJobs(middle);

        int gpus = 0;
        for (SimulatedInstance instance : running) {
            gpus += instance.gpus().size();
        }
        List<TelemetrySample> telemetry = new ArrayList<>(gpus);
        List<JobProgress> progress = new ArrayList<>();
        for (SimulatedInstance instance : running) {
            SimulatedJob job = instance.job();
            JobRound round = paces.get(job).round;
            PriceQuote price = prices.inForce(instance.offer(), middle);
            boolean hasPeers = instance.gpus().size() > 1;
            for (SimulatedGpu gpu : instance.gpus()) {
                if (job.shared()) {
                    SharedGpuRound slices = timeSliced.computeIfAbsent(gpu.uuid(),
                            uuid -> new TimeSlicedGpu(job.tenants(), settings))
                            .next(middle.toEpochMilli() / 1000.0, settings.interval().toMillis(), sharingRandom);
                    TelemetrySample sample = gpu.sharedSample(end, intervalSeconds, slices, hasPeers, sharingRandom);
                    telemetry.add(sample);
                    truth.chargeShared(gpu, sample, price, slices);
                    for (JobProgress report : gpu.sharedReports(end, intervalSeconds, slices)) {
                        progress.add(report);
                        truth.credit(report);
                    }
                    continue;
                }
                TelemetrySample sample = gpu.sample(end, intervalSeconds, round, hasPeers, metricsRandom);
                telemetry.add(sample);
                truth.charge(gpu, sample, price);
            }
            if (job.publishesProgress()) {
                JobProgress report = instance.report(round, end, intervalSeconds);
                progress.add(report);
                truth.credit(report);
            }
        }
        List<CapacityEvent> notices = interrupt(end);
        // Confirmed before they move: a version valid from this round's end is news, not yet to confirm.
        List<PriceQuote> confirmations = confirmPrices(end);
        List<PriceQuote> priceChanges = movePrices(end);
        return new SimulationStep(end, telemetry, progress, notices, priceChanges, confirmations);
    }

    /** Steps through {@code span} of simulated time, handing each step to {@code consumer}. */
    public void run(Duration span, Consumer<SimulationStep> consumer) {
        Instant until = now().plus(span);
        while (nextEnd().compareTo(until) <= 0) {
            consumer.accept(next());
        }
    }

    /** End of the last round produced; {@link #start()} before the first. */
    public Instant now() {
        return start.plus(settings.interval().multipliedBy(rounds));
    }

    /** When the next round ends. */
    public Instant nextEnd() {
        return start.plus(settings.interval().multipliedBy(rounds + 1));
    }

    public Instant start() {
        return start;
    }

    public Fleet fleet() {
        return fleet;
    }

    public SimulationSettings settings() {
        return settings;
    }

    /** Instances reporting now, in launch order. */
    public List<SimulatedInstance> running() {
        return List.copyOf(running);
    }

    public GroundTruth groundTruth() {
        return truth;
    }

    public long rounds() {
        return rounds;
    }

    /** Interruption notices given so far. */
    public long interruptions() {
        return interruptions;
    }

    /** Replacement instances launched so far. */
    public long replacements() {
        return replaced;
    }

    /** An instance reports the rounds that end by its deadline: the one it is in when taken back is lost. */
    private void retireInterrupted(Instant end) {
        for (Iterator<SimulatedInstance> it = running.iterator(); it.hasNext(); ) {
            SimulatedInstance instance = it.next();
            Instant deadline = deadlines.get(instance.instanceId());
            if (deadline != null && end.isAfter(deadline)) {
                it.remove();
                deadlines.remove(instance.instanceId());
                instance.gpus().forEach(gpu -> timeSliced.remove(gpu.uuid()));
            }
        }
    }

    /** A replacement reports from the first round that it runs from beginning to end. */
    private void launchReplacements(Instant begin) {
        for (Iterator<Replacement> it = replacements.iterator(); it.hasNext(); ) {
            Replacement replacement = it.next();
            if (!replacement.launchAt.isAfter(begin)) {
                it.remove();
                running.add(SimulatedInstance.launch(nextSerial++, seed, replacement.of.job(),
                        replacement.of.nodeRank()));
                replaced++;
            }
        }
    }

    /** One round per job, in the fleet's job order, so that every draw comes in the same sequence. */
    private void paceJobs(Instant middle) {
        double epochSeconds = middle.toEpochMilli() / 1000.0;
        for (SimulatedJob job : fleet.jobs()) {
            Pace pace = paces.get(job);
            if (job.idle() || job.shared()) {
                // Shared GPUs draw their tenants' use apart, in the order of their GPUs.
                pace.round = null;
                continue;
            }
            double secondsPerStep = job.stepSeconds() * (1 + (metricsRandom.nextDouble() - 0.5) * 0.06);
            double load = 1;
            if (job.workload() == Workload.INFERENCE) {
                double jitter = 1 + (metricsRandom.nextDouble() - 0.5) * 0.2;
                load = Math.max(0.1, Math.min(0.95, job.load(epochSeconds) * jitter));
            }
            double progress = pace.carry + intervalSeconds * load / secondsPerStep;
            long steps = (long) progress;
            pace.carry = progress - steps;
            pace.round = new JobRound(steps, secondsPerStep, load);
        }
    }

    private List<CapacityEvent> interrupt(Instant end) {
        List<CapacityEvent> notices = new ArrayList<>(1);
        for (SimulatedInstance instance : running) {
            if (instance.spot() && !deadlines.containsKey(instance.instanceId())
                    && marketRandom.nextDouble() < interruptionChance) {
                CapacityEvent notice = SimulatedNotices.interruption(instance, end);
                notices.add(notice);
                deadlines.put(instance.instanceId(), notice.deadline());
                interruptions++;
                if (settings.replaceInterrupted()) {
                    replacements.add(new Replacement(notice.deadline().plus(settings.replacementDelay()), instance));
                }
            }
        }
        return notices;
    }

    private List<PriceQuote> movePrices(Instant end) {
        List<PriceQuote> changes = new ArrayList<>(1);
        for (SpotMarket spot : spotMarkets) {
            if (marketRandom.nextDouble() < priceChangeChance) {
                PriceQuote quote = spot.move(end, gaussian(marketRandom) * settings.spotPriceVolatility());
                if (quote != null) {
                    prices.add(quote);
                    changes.add(quote);
                }
            }
        }
        return changes;
    }

    /**
     * The version in force of every offer, observed at {@code end}, when a confirmation is due;
     * none otherwise. Draws nothing at random, so the other records stay as they were.
     */
    private List<PriceQuote> confirmPrices(Instant end) {
        if (end.isBefore(nextConfirmation)) {
            return List.of();
        }
        nextConfirmation = end.plus(PriceQuote.CONFIRMATION_INTERVAL);
        return prices.allInForce(end).stream().map(quote -> quote.confirmedAt(end)).toList();
    }

    /** A market per spot offer of the catalog, in offer order, from the version in force at the start. */
    private void openSpotMarkets(Collection<PriceQuote> catalog) {
        Map<String, PriceQuote> latest = new TreeMap<>();
        catalog.stream()
                .filter(quote -> quote.lifecycle() == Lifecycle.SPOT)
                .sorted(Comparator.comparing(PriceQuote::validFrom))
                .forEach(quote -> latest.merge(quote.offer().key(), quote,
                        (kept, later) -> later.validFrom().isAfter(start) ? kept : later));
        latest.values().forEach(quote -> spotMarkets.add(new SpotMarket(quote)));
    }

    /** A standard normal draw (Marsaglia's polar method), computed the same way on every JVM. */
    private static double gaussian(SplittableRandom random) {
        double x;
        double y;
        double s;
        do {
            x = 2 * random.nextDouble() - 1;
            y = 2 * random.nextDouble() - 1;
            s = x * x + y * y;
        } while (s >= 1 || s == 0);
        return x * StrictMath.sqrt(-2 * StrictMath.log(s) / s);
    }

    private record Replacement(Instant launchAt, SimulatedInstance of) {
    }

    /** A job's progress between rounds: the fraction of a step begun in one interval and finished in the next. */
    private static final class Pace {
        private double carry;
        private JobRound round;
    }

    /**
     * One spot offer's price, moving by random log-returns and reflected back off 60% and 160% of
     * where it started, so that a long run neither wanders off to prices no market would quote nor
     * sticks at a bound.
     */
    private static final class SpotMarket {
        private final double floor;
        private final double ceiling;
        private PriceQuote current;

        private SpotMarket(PriceQuote opening) {
            this.current = opening;
            this.floor = opening.pricePerHour() * 0.6;
            this.ceiling = opening.pricePerHour() * 1.6;
        }

        /** The next version, valid from {@code at}; null when the move is too small to show in the quoted digits. */
        private PriceQuote move(Instant at, double logReturn) {
            double log = StrictMath.log(current.pricePerHour()) + logReturn;
            if (log > StrictMath.log(ceiling)) {
                log = 2 * StrictMath.log(ceiling) - log;
            } else if (log < StrictMath.log(floor)) {
                log = 2 * StrictMath.log(floor) - log;
            }
            double price = Math.max(floor, Math.min(ceiling, Math.round(StrictMath.exp(log) * 10_000) / 10_000.0));
            if (price == current.pricePerHour()) {
                return null;
            }
            current = PriceQuote.builder().offer(current.offer()).gpuModel(current.gpuModel())
                    .gpuCount(current.gpuCount()).pricePerHour(price).currency(current.currency()).validFrom(at)
                    .source("simulated-spot-market").build();
            return current;
        }
    }
}
