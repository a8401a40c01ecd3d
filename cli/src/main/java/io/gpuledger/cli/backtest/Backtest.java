// Over 400 lines: the simulated fleet, its clock and the ledger of decisions are one model, read top to bottom.
package io.gpuledger.cli.backtest;

import io.gpuledger.cli.backtest.OfferPrices.OfferPrice;
import io.gpuledger.model.GpuUsage;
import io.gpuledger.model.JobEconomics;
import io.gpuledger.model.JobProgress;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Offer;
import io.gpuledger.model.Recommendation;
import io.gpuledger.model.RecommendationKind;
import io.gpuledger.model.RecommendationStatus;
import io.gpuledger.model.TelemetrySample;
import io.gpuledger.model.UsageRollup;
import io.gpuledger.model.UsageTotals;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;

/**
 * A month (or any number of days) of a synthetic fleet, minute by minute on a simulated clock: each
 * closed minute's usage windows, job roll-ups and job economics, each closed hour's pool roll-ups,
 * and the jobs' work reports go to the recommendation rules ({@link RuleDriver}) as the cost engine
 * would send them; what the rules publish goes to a {@link Hook}, which may change the fleet (move a
 * job, buy a reservation, release a GPU) as automation would. Every change is a {@link Ledger.Decision}
 * whose saving the backtest works out for itself, minute by minute, from the prices and each GPU
 * model's true speed ({@link TrueSpeed}): the money the fleet pays with the decision against what it
 * would have paid for the same work without it.
 *
 * <p>Deterministic: the same fleet, seed and days give the same report.
 */
final class Backtest {

    /** What automation does with what the rules publish, at the end of each minute. */
    interface Hook {
        void after(Backtest backtest, List<Recommendation> news, Instant now);
    }

    /** Whether a spot job on {@code instances} instances loses one in the minute that starts at {@code minute}. */
    interface Interruptions {
        boolean interrupted(Instant minute, int instances, Random random);
    }

    /**
     * Chance per instance-hour that a spot instance is taken back: the world's truth, not the rules'
     * setting. The rules' default rate (one in 20 hours), but for each instance: a synchronous job on
     * 32 instances is stopped 32 times as often as a job on one.
     */
    static final double SPOT_INTERRUPTIONS_PER_INSTANCE_HOUR = 0.05;

    /** Each instance taken back independently, at {@link #SPOT_INTERRUPTIONS_PER_INSTANCE_HOUR}. */
    static final Interruptions RANDOM_INTERRUPTIONS = (minute, instances, random) ->
            random.nextDouble() >= Math.pow(1 - SPOT_INTERRUPTIONS_PER_INSTANCE_HOUR / 60, instances);
    /** New capacity, start and checkpoint load after an interruption, paid with no work done. */
    static final Duration SPOT_RESTART = Duration.ofMinutes(10);
    /** The alert service reads a closed minute a few seconds after it closes. */
    private static final Duration READ_DELAY = Duration.ofSeconds(5);

    private final List<FleetJob> jobs;
    private final List<Notebook> notebooks;
    private final OfferPrices prices;
    private final TrueSpeed speed;
    private final Random random;
    private final Interruptions interruptions;
    private final Instant start;
    private final Instant end;
    private final RuleDriver rules;
    private final Ledger ledger;
    private int interrupted;

    /** Effects of decisions on each job, on each notebook, and the reservations of each pool. */
    private final Map<String, List<JobEffect>> jobEffects = new HashMap<>();
    private final Map<String, ReclaimEffect> released = new HashMap<>();
    private final Map<Offer, List<ReserveEffect>> reservations = new LinkedHashMap<>();
    /** GPU-seconds and the most GPUs of each pool in the hour under way. */
    private final Map<Offer, double[]> poolHour = new LinkedHashMap<>();

    Backtest(List<FleetJob> jobs, List<Notebook> notebooks, OfferPrices prices, TrueSpeed speed, long seed,
            Interruptions interruptions, Instant start, int days) {
        this.jobs = List.copyOf(jobs);
        this.notebooks = List.copyOf(notebooks);
        this.prices = prices;
        this.speed = speed;
        this.random = new Random(seed);
        this.interruptions = interruptions;
        this.start = start;
        this.end = start.plus(Duration.ofDays(days));
        this.rules = new RuleDriver(start);
        this.ledger = new Ledger(end);
    }

    Ledger run(Hook hook) {
        prices.quotes(start.minus(Duration.ofDays(1))).forEach(rules::price);
        for (Instant minute = start; minute.isBefore(end); minute = minute.plus(Duration.ofMinutes(1))) {
            Instant closed = minute.plus(Duration.ofMinutes(1));
            Instant now = closed.plus(READ_DELAY);
            for (FleetJob job : jobs) {
                if (job.runsAt(minute)) {
                    runJob(job, minute, now);
                }
            }
            for (Notebook notebook : notebooks) {
                runNotebook(notebook, minute, now);
            }
            if (closed.getEpochSecond() % 3600 == 0) {
                closeHour(closed, now);
            }
            rules.sweep(now);
            List<Recommendation> news = rules.news();
            news.stream().filter(r -> r.status() == RecommendationStatus.OPEN).forEach(ledger::made);
            hook.after(this, news, now);
        }
        return ledger;
    }

    Instant end() {
        return end;
    }

    /** Spot interruptions of the run so far. */
    int interruptions() {
        return interrupted;
    }

    // ---- what automation can do --------------------------------------------------------------

    /**
     * Moves the job from {@code from} to {@code to} (another instance type, or spot), claiming
     * {@code claimedMonthlyUsd}. A job that is no longer on {@code from} (another recommendation
     * moved it meanwhile) is not moved: the claim was worked out for a job that is not there.
     */
    boolean move(String jobId, Offer from, Offer to, RecommendationKind kind, String recommendationId,
            double claimedMonthlyUsd, Instant now) {
        Optional<FleetJob> found = job(jobId);
        Optional<OfferPrice> target = prices.of(to);
        if (found.isEmpty() || target.isEmpty() || !found.get().offer.equals(from) || found.get().offer.equals(to)) {
            return false;
        }
        FleetJob job = found.get();
        OfferPrice current = prices.require(job.offer);
        Ledger.Decision decision = ledger.follow(kind, recommendationId, jobId + " -> " + to.key(), claimedMonthlyUsd,
                now);
        JobEffect effect;
        if (kind == RecommendationKind.MOVE_TO_SPOT) {
            int instances = instances(job.gpus, current.gpusPerInstance());
            effect = new SpotEffect(decision, instances, current.usdPerHour(), target.get().usdPerHour());
        } else {
            double unitsPerHour = job.unitsPerGpuHour(speed) * job.gpus;
            double before = current.usdPerGpuHour() / job.unitsPerGpuHour(speed);
            double after = target.get().usdPerGpuHour() / (job.baseUnitsPerGpuHour
                    * speed.ratio(job.workloadClass, job.baseModel, target.get().gpuModel()));
            effect = new SwitchEffect(decision, unitsPerHour, before, after);
        }
        // The job's earlier moves are over: their before-and-after no longer describe it.
        List<JobEffect> effects = jobEffects.computeIfAbsent(jobId, id -> new ArrayList<>());
        effects.forEach(earlier -> earlier.decision().ended(now));
        effects.clear();
        effects.add(effect);
        job.offer = to;
        job.gpuModel = target.get().gpuModel();
        job.placement++;
        job.minutesSinceCheckpoint = 0;
        job.stalledUntil = Instant.MIN;
        rules.progress(progress(job, now), now);
        return true;
    }

    /** Buys reservations so that {@code instances} of the on-demand pool are reserved in all. */
    boolean reserve(Offer pool, int instances, String recommendationId, double claimedMonthlyUsd, Instant now) {
        Optional<OfferPrice> onDemand = prices.of(pool);
        if (onDemand.isEmpty() || pool.lifecycle() != Lifecycle.ON_DEMAND) {
            return false;
        }
        List<ReserveEffect> held = reservations.computeIfAbsent(pool, p -> new ArrayList<>());
        int already = held.stream().mapToInt(ReserveEffect::to).max().orElse(0);
        if (instances <= already) {
            return false;
        }
        // A larger reservation claims the whole pool's saving; the part of it for the added instances is the new claim.
        double claimed = claimedMonthlyUsd * (instances - already) / instances;
        Ledger.Decision decision = ledger.follow(RecommendationKind.RESERVE_CAPACITY, recommendationId,
                pool.key() + " instances " + (already + 1) + ".." + instances, claimed, now);
        held.add(new ReserveEffect(decision, already, instances, onDemand.get().usdPerHour(),
                prices.as(pool, Lifecycle.RESERVED).usdPerHour(), onDemand.get().gpusPerInstance()));
        return true;
    }

    /** Releases a notebook's GPU until its user's next session. */
    boolean reclaim(String gpuUuid, String recommendationId, double claimedMonthlyUsd, Instant now) {
        for (Notebook notebook : notebooks) {
            if (notebook.held && notebook.gpuUuid().equals(gpuUuid)) {
                notebook.held = false;
                Ledger.Decision decision = ledger.follow(RecommendationKind.RECLAIM_IDLE, recommendationId,
                        notebook.id + " " + gpuUuid, claimedMonthlyUsd, now);
                released.put(notebook.id, new ReclaimEffect(decision, prices.require(notebook.offer).usdPerGpuHour()));
                return true;
            }
        }
        return false;
    }

    /** Tells the rules the automation took a recommendation on. */
    void acknowledge(String id, Instant now) {
        rules.acknowledge(id, now);
    }

    // ---- one minute ---------------------------------------------------------------------------

    private void runJob(FleetJob job, Instant minute, Instant now) {
        OfferPrice price = prices.require(job.offer);
        Instant closed = minute.plus(Duration.ofMinutes(1));
        boolean onSpot = job.offer.lifecycle() == Lifecycle.SPOT;
        double lostHours = 0;
        boolean working = !minute.isBefore(job.stalledUntil);
        if (onSpot && working && interruptions.interrupted(minute, instances(job.gpus, price.gpusPerInstance()),
                random)) {
            interrupted++;
            // It resumes from its last checkpoint: what it did since is lost.
            lostHours = job.minutesSinceCheckpoint / 60.0;
            job.minutesSinceCheckpoint = 0;
            job.stalledUntil = minute.plus(SPOT_RESTART);
            working = false;
        }
        if (working && job.traits.checkpointIntervalSeconds() != null) {
            job.minutesSinceCheckpoint++;
            if (job.minutesSinceCheckpoint * 60 >= job.traits.checkpointIntervalSeconds()) {
                job.minutesSinceCheckpoint = 0;
            }
        }
        double units = working ? job.unitsPerGpuHour(speed) * job.gpus / 60 * (1 + 0.02 * random.nextGaussian()) : 0;
        double usdPerGpuHour = price.usdPerGpuHour();
        double sm = working ? job.smActive : 0.2;

        UsageTotals oneGpu = UsageTotals.ZERO.add(sample(job.gpuUuid(0), job.host(), job.offer, job.gpuModel, job.id,
                job.team, closed, sm), usdPerGpuHour);
        UsageTotals all = times(oneGpu, job.gpus);
        rules.window(new GpuUsage(job.gpuUuid(0), 0, job.gpuModel, job.host(), "i-" + job.host(),
                job.offer.instanceType(), job.offer.provider(), job.offer.region(), job.offer.lifecycle(), job.id,
                job.team, minute, closed, "USD", oneGpu, true, 1.0), now);
        UsageRollup rollup = new UsageRollup(UsageRollup.Dimension.JOB, job.id, minute, closed, "USD", job.gpus,
                (double) job.gpus, all);
        rules.rollup(rollup, now);
        if (minute.getEpochSecond() % 3600 == 0 || minute.equals(start)) {
            rules.progress(progress(job, now), now);
        }
        rules.economics(economics(job, rollup, units), now);
        addToPoolHour(job.offer, all.gpuSeconds(), job.gpus);

        for (JobEffect effect : jobEffects.getOrDefault(job.id, List.of())) {
            effect.minute(working, lostHours);
        }
    }

    private void runNotebook(Notebook notebook, Instant minute, Instant now) {
        boolean session = notebook.inSession(minute);
        if (!notebook.held) {
            if (!session) {
                released.get(notebook.id).minute();
                return;
            }
            // The user is back: a new instance, and the reclaim's saving, and its claim, end.
            released.remove(notebook.id).decision().ended(minute);
            notebook.held = true;
            notebook.placement++;
        }
        Instant closed = minute.plus(Duration.ofMinutes(1));
        OfferPrice price = prices.require(notebook.offer);
        String host = notebook.id + "-" + notebook.placement;
        UsageTotals totals = UsageTotals.ZERO.add(sample(notebook.gpuUuid(), host, notebook.offer, notebook.gpuModel,
                notebook.id, notebook.team, closed, session ? 0.45 : 0.01), price.usdPerGpuHour());
        rules.window(new GpuUsage(notebook.gpuUuid(), 0, notebook.gpuModel, host, "i-" + host,
                notebook.offer.instanceType(), notebook.offer.provider(), notebook.offer.region(),
                notebook.offer.lifecycle(), notebook.id, notebook.team, minute, closed, "USD", totals, true, 1.0), now);
        addToPoolHour(notebook.offer, totals.gpuSeconds(), 1);
    }

    private void closeHour(Instant closed, Instant now) {
        Instant hourStart = closed.minus(Duration.ofHours(1));
        for (Map.Entry<Offer, double[]> pool : poolHour.entrySet()) {
            double gpuSeconds = pool.getValue()[0];
            int mostGpus = (int) pool.getValue()[1];
            if (gpuSeconds > 0) {
                OfferPrice price = prices.require(pool.getKey());
                UsageTotals oneGpuMinute = UsageTotals.ZERO.add(sample("GPU-pool", "pool", pool.getKey(),
                        price.gpuModel(), null, null, closed, 0.5), price.usdPerGpuHour());
                rules.rollup(new UsageRollup(UsageRollup.Dimension.POOL, pool.getKey().key(), hourStart, closed, "USD",
                        mostGpus, (double) mostGpus, times(oneGpuMinute, Math.round(gpuSeconds / 60))), now);
            }
        }
        for (Map.Entry<Offer, List<ReserveEffect>> pool : reservations.entrySet()) {
            double[] hour = poolHour.get(pool.getKey());
            double gpuSeconds = hour == null ? 0 : hour[0];
            for (ReserveEffect effect : pool.getValue()) {
                effect.hour(gpuSeconds);
            }
        }
        poolHour.clear();
    }

    private void addToPoolHour(Offer pool, double gpuSeconds, int gpus) {
        double[] hour = poolHour.computeIfAbsent(pool, p -> new double[2]);
        hour[0] += gpuSeconds;
        hour[1] = Math.max(hour[1], gpus);
    }

    private Optional<FleetJob> job(String jobId) {
        return jobs.stream().filter(job -> job.id.equals(jobId)).findFirst();
    }

    static int instances(int gpus, int gpusPerInstance) {
        return (gpus + gpusPerInstance - 1) / gpusPerInstance;
    }

    // ---- records as the cost engine and the job reporter write them ---------------------------

    private static TelemetrySample sample(String gpuUuid, String host, Offer offer, String gpuModel, String jobId,
            String team, Instant time, double smActive) {
        return TelemetrySample.builder().gpuUuid(gpuUuid).gpuIndex(0).gpuModel(gpuModel).host(host)
                .instanceId("i-" + host).instanceType(offer.instanceType()).provider(offer.provider())
                .region(offer.region()).lifecycle(offer.lifecycle()).jobId(jobId).team(team).time(time)
                .intervalSeconds(60).smActive(smActive).dramActive(0.3).build();
    }

    /** {@code n} GPUs' (or minutes') worth of the same totals, added up by doubling. */
    static UsageTotals times(UsageTotals totals, long n) {
        UsageTotals sum = UsageTotals.ZERO;
        UsageTotals power = totals;
        for (long left = n; left > 0; left >>= 1) {
            if ((left & 1) == 1) {
                sum = sum.plus(power);
            }
            power = power.plus(power);
        }
        return sum;
    }

    private static JobEconomics economics(FleetJob job, UsageRollup rollup, double units) {
        UsageTotals totals = rollup.totals();
        Map<String, Double> perMillion = units > 0 ? Map.of(job.unit, totals.cost() / units * 1_000_000) : Map.of();
        return new JobEconomics(job.id, rollup.windowStart(), rollup.windowEnd(), "USD", job.gpus,
                totals.gpuSeconds(), 0, totals.cost(), totals.cost() * 60, true, Map.of(job.unit, units), perMillion,
                Map.of(job.unit, units / totals.gpuSeconds()), job.communicationOverheadRatio, 0);
    }

    private static JobProgress progress(FleetJob job, Instant now) {
        return new JobProgress(job.id, job.team, job.host(), "i-" + job.host(), List.of(job.gpuUuid(0)), now, 60, 0,
                job.unit, 0, null, null, null, job.traits);
    }

    // ---- what each decision saves: the backtest's own repricing ------------------------------

    /** A decision on a job, credited each minute the job runs. */
    private interface JobEffect {
        Ledger.Decision decision();

        /**
         * @param working   whether the job worked this minute (not restarting after an interruption)
         * @param lostHours the hours of work an interruption in this minute threw away, 0 when none
         */
        void minute(boolean working, double lostHours);
    }

    /**
     * Another instance type: the job's work rate at the decision (its volume, as the claim counts it),
     * at the true cost per unit before less the true cost per unit after.
     */
    private record SwitchEffect(Ledger.Decision decision, double unitsPerHour, double usdPerUnitBefore,
            double usdPerUnitAfter) implements JobEffect {

        @Override
        public void minute(boolean working, double lostHours) {
            decision.saved(unitsPerHour / 60 * (usdPerUnitBefore - usdPerUnitAfter));
        }
    }

    /**
     * Spot instead of on demand, for the work the job did at the decision (its volume, as the claim
     * counts it and as a switch is repriced): an hour of it on demand cost the instances' on-demand
     * hour; on spot, the job pays spot every minute, keeps nothing in a minute spent restarting, and
     * loses the work since its last checkpoint at each interruption. The work it lost is made up at
     * whichever costs less per unit: spot as it turned out (spot paid over work kept), or on demand.
     * So a job that keeps all its work saves on demand less spot; one that keeps too little for spot
     * to be the cheaper way saves what it kept, at on demand, less all it paid for spot, which is
     * negative when it kept less than spot's share of on demand.
     */
    private static final class SpotEffect implements JobEffect {
        private final Ledger.Decision decision;
        private final int instances;
        private final double onDemandUsdPerHour;
        private final double spotUsdPerHour;
        /** Hours of the job's work since the decision, and the hours of it spot kept. */
        private double hours;
        private double kept;
        private double credited;

        SpotEffect(Ledger.Decision decision, int instances, double onDemandUsdPerHour, double spotUsdPerHour) {
            this.decision = decision;
            this.instances = instances;
            this.onDemandUsdPerHour = onDemandUsdPerHour;
            this.spotUsdPerHour = spotUsdPerHour;
        }

        @Override
        public Ledger.Decision decision() {
            return decision;
        }

        @Override
        public void minute(boolean working, double lostHours) {
            hours += 1 / 60.0;
            kept += (working ? 1 / 60.0 : 0) - lostHours;
            double spotPerKeptHour = kept > 0 ? spotUsdPerHour * hours / kept : Double.POSITIVE_INFINITY;
            double madeUpPerHour = Math.min(onDemandUsdPerHour, spotPerKeptHour);
            double saved = instances * (onDemandUsdPerHour * hours - spotUsdPerHour * hours
                    - (hours - kept) * madeUpPerHour);
            decision.saved(saved - credited);
            credited = saved;
        }
    }

    /**
     * Reserved instances {@code from + 1} to {@code to} of a pool: each hour, the on-demand price of
     * the pool's instances in use that they cover, less the reservation, paid whether used or not.
     */
    private record ReserveEffect(Ledger.Decision decision, int from, int to, double onDemandUsdPerHour,
            double reservedUsdPerHour, int gpusPerInstance) {

        void hour(double gpuSeconds) {
            double inUse = gpuSeconds / 3600 / gpusPerInstance;
            double covered = Math.min(inUse, to) - Math.min(inUse, from);
            decision.saved(onDemandUsdPerHour * covered - reservedUsdPerHour * (to - from));
        }
    }

    /** A released notebook GPU: its price each minute until its user's next session. */
    private record ReclaimEffect(Ledger.Decision decision, double usdPerGpuHour) {

        void minute() {
            decision.saved(usdPerGpuHour / 60);
        }
    }
}
