// Over 400 lines: the simulated fleet, its clock, its bill and the effect of each decision are one model, read
// top to bottom.
package io.gpuledger.bench.backtest;

import io.gpuledger.alerts.recommend.GpuCatalog;
import io.gpuledger.bench.backtest.OfferPrices.OfferPrice;
import io.gpuledger.model.CapacityEvent;
import io.gpuledger.model.CapacityEventKind;
import io.gpuledger.model.EnrichedCapacityEvent;
import io.gpuledger.model.GpuUsage;
import io.gpuledger.model.JobEconomics;
import io.gpuledger.model.JobProgress;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Offer;
import io.gpuledger.model.PlacedGpu;
import io.gpuledger.model.Placement;
import io.gpuledger.model.Recommendation;
import io.gpuledger.model.RecommendationEvidence;
import io.gpuledger.model.RecommendationKind;
import io.gpuledger.model.RecommendationStatus;
import io.gpuledger.model.TelemetrySample;
import io.gpuledger.model.UsageRollup;
import io.gpuledger.model.UsageTotals;
import io.gpuledger.model.WorkloadClass;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A month (or any number of days) of a synthetic fleet in a world of its own ({@link BacktestWorld}),
 * minute by minute on a simulated clock: each closed minute's usage windows (every GPU of every
 * instance), job roll-ups and economics, each closed hour's pool roll-ups, the jobs' work reports
 * and the spot notices go to the recommendation rules ({@link RuleDriver}) as the cost engine and
 * the agents would send them; what the rules publish goes to a {@link Hook}, which may change the
 * fleet (move a job, release instances, buy reservations, checkpoint before a reclaim) as
 * automation would. Every change is a {@link Ledger.Decision} whose saving the backtest works out
 * for itself from the world's bill: instances billed whole, the world's GPU speeds, interruption
 * rates, capacity waits, network and serving headroom, set against the bill without the decision.
 *
 * <p>Deterministic: the same fleet, seed and days give the same report.
 */
final class Backtest {

    /** What automation does with what the rules publish, at the end of each minute. */
    interface Hook {
        void after(Backtest backtest, List<Recommendation> news, Instant now);
    }

    /** The alert service reads a closed minute a few seconds after it closes. */
    private static final Duration READ_DELAY = Duration.ofSeconds(5);
    private static final Duration MINUTE = Duration.ofMinutes(1);
    private static final double IDLE_SM = 0.01;

    private final BacktestWorld world;
    private final List<FleetJob> jobs;
    private final List<Notebook> notebooks;
    private final OfferPrices prices;
    private final GpuCatalog catalog = GpuCatalog.defaults();
    private final Instant start;
    private final Instant end;
    private final Instant restartAt;
    private final RuleDriver rules;
    private final Ledger ledger = new Ledger();
    private int interrupted;

    /** What decisions do to each job, by its name; releases of notebooks and spare capacity; reservations. */
    private final Map<String, List<JobEffect>> jobEffects = new HashMap<>();
    private final Map<String, Ledger.Decision> released = new HashMap<>();
    private final Map<Offer, List<Reservation>> reservations = new LinkedHashMap<>();
    /** GPU-seconds of each pool in the hour under way, and each on-demand pool's instances in use hour by hour. */
    private final Map<Offer, Double> poolHour = new LinkedHashMap<>();
    private final Map<Offer, List<Double>> poolHistory = new HashMap<>();
    /** The GPUs each job served with at the start: what its serving capacity was sized on. */
    private final Map<String, Integer> servingGpus = new HashMap<>();

    /**
     * @param restartAt when the alert service restarts, reading its records back (null: never)
     */
    Backtest(List<FleetJob> jobs, List<Notebook> notebooks, OfferPrices prices, BacktestWorld world, Instant start,
            int days, Instant restartAt) {
        this.jobs = List.copyOf(jobs);
        this.notebooks = List.copyOf(notebooks);
        this.prices = prices;
        this.world = world;
        this.start = start;
        this.end = start.plus(Duration.ofDays(days));
        this.restartAt = restartAt;
        this.rules = new RuleDriver(start, catalog);
        for (FleetJob job : jobs) {
            if (job.endToDay > 0) {
                job.end = world.endBetween(start, job.endFromDay, job.endToDay);
            }
            if (job.serving()) {
                servingGpus.put(job.name, job.instances * prices.require(job.offer).gpusPerInstance());
            }
        }
    }

    Ledger run(Hook hook) {
        sendPrices();
        Map<String, Boolean> ran = new HashMap<>();
        for (Instant minute = start; minute.isBefore(end); minute = minute.plus(MINUTE)) {
            Instant closed = minute.plus(MINUTE);
            Instant now = closed.plus(READ_DELAY);
            if (minute.equals(restartAt)) {
                rules.restart(now);
                sendPrices();
            }
            for (FleetJob job : jobs) {
                boolean runs = job.runsAt(minute) && !released.containsKey(job.name);
                if (runs) {
                    runJob(job, minute, now);
                } else if (job.end != null && !minute.isBefore(job.end) && ran.getOrDefault(job.name, false)) {
                    // It ended for good: what was decided for it saves nothing more, as its bill does.
                    for (JobEffect effect : jobEffects.getOrDefault(job.name, List.of())) {
                        effect.decision().ended(minute);
                    }
                    jobEffects.remove(job.name);
                }
                ran.put(job.name, runs || ran.getOrDefault(job.name, false));
                Ledger.Decision release = released.get(job.name);
                if (release != null && release.live()) {
                    release.saved(job.instances * prices.require(job.offer).usdPerHour() / 60);
                }
            }
            for (Notebook notebook : notebooks) {
                runNotebook(notebook, minute, now);
            }
            if (closed.getEpochSecond() % 3600 == 0) {
                closeHour(closed, now);
            }
            // Decisions taken before this minute claim it, as they saved in it; those taken at its end do not.
            ledger.minute();
            rules.sweep(now);
            List<Recommendation> news = rules.news();
            news.stream().filter(r -> r.status() == RecommendationStatus.OPEN).forEach(ledger::made);
            hook.after(this, news, now);
        }
        reservations.forEach((pool, held) -> held.forEach(reservation -> reservation.beyondTheRun(
                poolHistory.getOrDefault(pool, List.of()), world.drift(pool))));
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
     * Moves the job from {@code from} to {@code to} (another instance type, spot, or a faster network)
     * on {@code toInstances} instances, as {@code recommendation} says. A job that is no longer on
     * {@code from} (another recommendation moved it meanwhile) is not moved: the advice was worked out
     * for a job that is not there. A serving job takes as many instances as the world needs to carry
     * its peak with its headroom, if more than named.
     */
    boolean move(String jobId, Offer from, Offer to, int toInstances, Recommendation recommendation, Instant now) {
        Optional<FleetJob> found = job(jobId);
        Optional<OfferPrice> target = prices.of(to);
        if (found.isEmpty() || target.isEmpty() || !found.get().offer.equals(from) || from.equals(to)) {
            return false;
        }
        FleetJob job = found.get();
        OfferPrice current = prices.require(job.offer);
        Ledger.Decision decision = follow(recommendation, jobId + " -> " + toInstances + " x " + to.key(), now);
        JobEffect effect;
        if (recommendation.kind() == RecommendationKind.MOVE_TO_SPOT) {
            effect = new SpotEffect(decision, job.instances * current.usdPerHour());
        } else if (job.serving()) {
            effect = new ServingSwitchEffect(decision, job.instances * current.usdPerHour());
        } else {
            double unitsPerHour = trainingRate(job, job.offer, job.gpuModel) * job.usedGpus;
            effect = new TrainingSwitchEffect(decision, unitsPerHour, job.instances * current.usdPerHour()
                    / unitsPerHour);
        }
        // The job's earlier moves are over: their before-and-after no longer describe it.
        List<JobEffect> effects = jobEffects.computeIfAbsent(job.name, id -> new ArrayList<>());
        effects.forEach(earlier -> earlier.decision().ended(now));
        effects.clear();
        effects.add(effect);
        job.offer = to;
        job.gpuModel = target.get().gpuModel();
        job.instances = job.serving() ? Math.max(toInstances, servingInstancesNeeded(job)) : toInstances;
        job.replaced();
        job.stalledUntil = Instant.MIN;
        job.waitingUntil = Instant.MIN;
        job.reclaimAt = null;
        rules.progress(progress(job, now), now);
        return true;
    }

    /**
     * Releases what a reclaim names: a notebook's instance until its user's next session, instances a
     * job does not need (it runs on {@code keepInstances}), or an instance no job holds.
     */
    boolean release(Recommendation recommendation, String jobId, String instanceId, int keepInstances, Instant now) {
        if (jobId != null) {
            for (Notebook notebook : notebooks) {
                if (notebook.id.equals(jobId) && notebook.held) {
                    notebook.held = false;
                    released.put(notebook.id, follow(recommendation, "release " + notebook.instanceId(), now));
                    return true;
                }
            }
            Optional<FleetJob> found = job(jobId);
            if (found.isEmpty() || found.get().instances <= keepInstances || keepInstances < 1) {
                return false;
            }
            FleetJob job = found.get();
            int freed = job.instances - keepInstances;
            Ledger.Decision decision = follow(recommendation, "shrink " + job.name + " to " + keepInstances, now);
            jobEffects.computeIfAbsent(job.name, id -> new ArrayList<>())
                    .add(new ReleaseEffect(decision, freed * prices.require(job.offer).usdPerHour()));
            job.instances = keepInstances;
            job.placement++;
            return true;
        }
        for (FleetJob spare : jobs) {
            if (spare.id == null && !released.containsKey(spare.name) && spare.holds(instanceId)) {
                released.put(spare.name, follow(recommendation, "release " + instanceId, now));
                return true;
            }
        }
        return false;
    }

    /** Buys reservations of {@code count} instances of the on-demand pool, on top of those bought before. */
    boolean reserve(Offer pool, int count, Recommendation recommendation, Instant now) {
        Optional<OfferPrice> onDemand = prices.of(pool);
        if (onDemand.isEmpty() || pool.lifecycle() != Lifecycle.ON_DEMAND || count < 1) {
            return false;
        }
        List<Reservation> held = reservations.computeIfAbsent(pool, p -> new ArrayList<>());
        int already = held.stream().mapToInt(Reservation::to).max().orElse(0);
        Ledger.Decision decision = ledger.follow(RecommendationKind.RESERVE_CAPACITY,
                recommendation.id() + "#" + already, pool.key() + " instances " + (already + 1) + ".."
                        + (already + count), now);
        long termHours = OfferPrices.ONE_YEAR.hours();
        decision.claimOnce(usd(recommendation) * termHours / Recommendation.HOURS_PER_MONTH);
        held.add(new Reservation(decision, already, already + count, onDemand.get().usdPerHour(),
                prices.as(pool, Lifecycle.RESERVED).usdPerHour(), termHours));
        return true;
    }

    /**
     * Checkpoints the job before the cloud takes its instance back, as an evacuation says: the work
     * since its last checkpoint is kept.
     */
    boolean checkpoint(String jobId, Recommendation evacuation, Instant now) {
        Optional<FleetJob> found = job(jobId);
        if (found.isEmpty() || found.get().reclaimAt == null) {
            return false;
        }
        FleetJob job = found.get();
        Ledger.Decision decision = follow(evacuation, "checkpoint " + jobId + " before " + job.reclaimAt, now);
        Double atRisk = evacuation.evidence() instanceof RecommendationEvidence.Evacuate evidence
                ? evidence.expectedWorkAtRisk() : null;
        decision.claimOnce(atRisk != null ? OfferPrices.toUsd(atRisk, currency(evacuation)) : 0);
        decision.saved(job.minutesSinceAnyCheckpoint / 60.0 * job.instances * prices.require(job.offer).usdPerHour());
        job.minutesSinceAnyCheckpoint = 0;
        return true;
    }

    /** Tells the rules the automation took a recommendation on. */
    void acknowledge(String id, Instant now) {
        rules.acknowledge(id, now);
    }

    private Ledger.Decision follow(Recommendation recommendation, String what, Instant now) {
        Ledger.Decision decision = ledger.follow(recommendation.kind(), recommendation.id(), what, now);
        decision.monthlyClaim(usd(recommendation));
        return decision;
    }

    /** A standing decision's record seen again: its claim in force from now on. */
    void refreshed(Recommendation recommendation) {
        if (Ledger.horizon(recommendation.kind()) == Ledger.Horizon.STANDING) {
            ledger.decision(recommendation.id()).filter(Ledger.Decision::live)
                    .ifPresent(decision -> decision.monthlyClaim(usd(recommendation)));
        }
    }

    private static double usd(Recommendation recommendation) {
        return OfferPrices.toUsd(recommendation.estimatedMonthlySaving(), currency(recommendation));
    }

    private static String currency(Recommendation recommendation) {
        return recommendation.currency() == null ? "USD" : recommendation.currency();
    }

    // ---- one minute ---------------------------------------------------------------------------

    private void runJob(FleetJob job, Instant minute, Instant now) {
        if (job.serving()) {
            // Its autoscaler keeps the instances that carry its peak with its headroom, whatever was released.
            job.instances = Math.max(job.instances, servingInstancesNeeded(job));
        }
        OfferPrice price = prices.require(job.offer);
        int per = price.gpusPerInstance();
        boolean onSpot = job.offer.lifecycle() == Lifecycle.SPOT;
        double lostHours = 0;
        if (onSpot && job.reclaimAt != null && !minute.isBefore(job.reclaimAt)) {
            // Taken back: the work since the last checkpoint is lost, all instances wait for the lost one.
            interrupted++;
            lostHours = job.minutesSinceCheckpoint / 60.0;
            job.replaced();
            job.reclaimAt = null;
            int[] waitAndRestart = world.waitAndRestartMinutes();
            job.waitingUntil = minute.plus(Duration.ofMinutes(waitAndRestart[0]));
            job.stalledUntil = job.waitingUntil.plus(Duration.ofMinutes(waitAndRestart[1]));
        }
        boolean waiting = minute.isBefore(job.waitingUntil);
        boolean working = !minute.isBefore(job.stalledUntil);
        int running = waiting ? job.instances - 1 : job.instances;
        if (onSpot && working && job.reclaimAt == null && world.interrupted(minute, job.offer, job.instances)) {
            // Noticed at the end of this minute, taken back two minutes later.
            job.reclaimAt = minute.plus(MINUTE.multipliedBy(1 + BacktestWorld.NOTICE_MINUTES));
            notice(job, minute.plus(MINUTE), now);
        }
        double units = 0;
        double servingActivity = 0;
        if (job.serving()) {
            double demand = job.demandPerHour(minute);
            units = working ? demand / 60 * world.noise() : 0;
            servingActivity = Math.min(1, demand / (running * per * servingCapacityPerGpu(job, job.gpuModel)))
                    * world.fullActivity;
        } else if (job.reportsWork() && working) {
            units = trainingRate(job, job.offer, job.gpuModel) * Math.min(job.usedGpus, running * per) / 60
                    * world.noise();
        }
        Double checkpoint = job.traits == null ? null : job.traits.checkpointIntervalSeconds();
        if (working && checkpoint != null) {
            job.minutesSinceCheckpoint++;
            job.minutesSinceAnyCheckpoint++;
            if (job.minutesSinceCheckpoint * 60 >= checkpoint) {
                job.checkpointed();
            }
        }
        double costUsd = running * price.usdPerHour() / 60;

        // What the cost engine sends: every GPU's closed window, the job's roll-up and economics.
        Instant closed = minute.plus(MINUTE);
        double gpuPrice = price.usdPerGpuHour();
        // A minute of a busy GPU and one of an idle GPU (the same for serving): made once, sent for each GPU.
        UsageTotals busyTotals = null;
        UsageTotals idleTotals = null;
        UsageTotals all = UsageTotals.ZERO;
        for (int instance = 0; instance < running; instance++) {
            String host = job.host(instance);
            String instanceId = job.instanceId(instance);
            for (int gpu = 0; gpu < per; gpu++) {
                boolean busy = job.serving() || working && instance * per + gpu < job.usedGpus;
                UsageTotals totals;
                if (busy) {
                    busyTotals = busyTotals != null ? busyTotals
                            : gpuMinute(job, closed, job.serving() ? servingActivity : job.smActive, gpuPrice);
                    totals = busyTotals;
                } else {
                    idleTotals = idleTotals != null ? idleTotals : gpuMinute(job, closed, IDLE_SM, gpuPrice);
                    totals = idleTotals;
                }
                all = all.plus(totals);
                rules.window(window(job.gpuUuid(instance, gpu), gpu, job.gpuModel, host, instanceId, job.offer,
                        job.id, job.team, minute, closed, totals), now);
            }
        }
        poolHour.merge(job.offer, all.gpuSeconds(), Double::sum);
        if (job.id != null && running > 0) {
            UsageRollup rollup = new UsageRollup(UsageRollup.Dimension.JOB, job.id, minute, closed, "USD",
                    running * per, (double) running * per, all);
            rules.rollup(rollup, now);
            if (minute.getEpochSecond() % 3600 == 0 || minute.equals(start)) {
                rules.progress(progress(job, now), now);
            }
            rules.economics(economics(job, rollup, units), now);
        }
        for (JobEffect effect : jobEffects.getOrDefault(job.name, List.of())) {
            effect.minute(working, units, costUsd, lostHours);
        }
    }

    private void runNotebook(Notebook notebook, Instant minute, Instant now) {
        boolean session = notebook.inSession(minute);
        OfferPrice price = prices.require(notebook.offer);
        if (!notebook.held) {
            if (!session) {
                released.get(notebook.id).saved(price.usdPerHour() / 60);
                return;
            }
            // The user is back: a new instance; the release stands as a decision for its next night.
            notebook.held = true;
            notebook.placement++;
        }
        Instant closed = minute.plus(MINUTE);
        UsageTotals totals = UsageTotals.ZERO.add(sample(notebook.gpuUuid(), notebook.host(), notebook.offer,
                notebook.gpuModel, notebook.id, notebook.team, closed, session ? 0.45 : IDLE_SM),
                price.usdPerGpuHour());
        rules.window(window(notebook.gpuUuid(), 0, notebook.gpuModel, notebook.host(), notebook.instanceId(),
                notebook.offer, notebook.id, notebook.team, minute, closed, totals), now);
        poolHour.merge(notebook.offer, totals.gpuSeconds(), Double::sum);
    }

    /** The capacity notice of one instance of a spot job, as the agent and the engine's join send it. */
    private void notice(FleetJob job, Instant noticedAt, Instant now) {
        OfferPrice price = prices.require(job.offer);
        String eventId = CapacityEvent.idOf(job.offer.provider(), job.instanceId(0),
                CapacityEventKind.SPOT_INTERRUPTION, job.reclaimAt.toString());
        CapacityEvent event = CapacityEvent.builder().eventId(eventId)
                .provider(job.offer.provider()).region(job.offer.region()).instanceId(job.instanceId(0))
                .instanceType(job.offer.instanceType()).host(job.host(0)).lifecycle(Lifecycle.SPOT)
                .kind(CapacityEventKind.SPOT_INTERRUPTION).action("terminate").noticedAt(noticedAt)
                .deadline(job.reclaimAt).source("backtest").build();
        List<PlacedGpu> gpus = new ArrayList<>();
        for (int gpu = 0; gpu < price.gpusPerInstance(); gpu++) {
            gpus.add(new PlacedGpu(job.gpuUuid(0, gpu), gpu, job.gpuModel, job.id, price.usdPerGpuHour(), "USD",
                    noticedAt));
        }
        rules.capacity(EnrichedCapacityEvent.placed(event, noticedAt, gpus), now);
    }

    private void closeHour(Instant closed, Instant now) {
        Instant hourStart = closed.minus(Duration.ofHours(1));
        for (Map.Entry<Offer, Double> pool : poolHour.entrySet()) {
            double gpuSeconds = pool.getValue();
            if (gpuSeconds > 0) {
                OfferPrice price = prices.require(pool.getKey());
                UsageTotals oneGpuMinute = UsageTotals.ZERO.add(sample("GPU-pool", "pool", pool.getKey(),
                        price.gpuModel(), null, null, closed, 0.5), price.usdPerGpuHour());
                long gpuMinutes = Math.round(gpuSeconds / 60);
                double gpus = gpuSeconds / 3600;
                rules.rollup(new UsageRollup(UsageRollup.Dimension.POOL, pool.getKey().key(), hourStart, closed, "USD",
                        (long) Math.ceil(gpus), gpus, times(oneGpuMinute, gpuMinutes)), now);
            }
        }
        for (OfferPrice price : prices.all()) {
            if (price.offer().lifecycle() == Lifecycle.ON_DEMAND) {
                double inUse = poolHour.getOrDefault(price.offer(), 0.0) / 3600 / price.gpusPerInstance();
                poolHistory.computeIfAbsent(price.offer(), pool -> new ArrayList<>()).add(inUse);
                for (Reservation reservation : reservations.getOrDefault(price.offer(), List.of())) {
                    reservation.hour(inUse);
                }
            }
        }
        poolHour.clear();
    }

    private void sendPrices() {
        prices.quotes(start.minus(Duration.ofDays(1))).forEach(rules::price);
    }

    private Optional<FleetJob> job(String jobId) {
        return jobs.stream().filter(job -> jobId.equals(job.id)).findFirst();
    }

    // ---- the world's truth ------------------------------------------------------------------

    /**
     * Units a GPU-hour of the job's training does on {@code model} in {@code offer}: its rate on its
     * first GPUs, their compute scaled by the GPUs' speed, their communication by the network's
     * bandwidth but for the share that is latency.
     */
    private double trainingRate(FleetJob job, Offer offer, String model) {
        double speed = world.speed.ratio(job.workloadClass, job.baseModel, model);
        return job.baseRate / step(job, offer, speed);
    }

    /** A step's time on {@code offer} at {@code speed}, as a share of its time on the job's first offer. */
    private double step(FleetJob job, Offer offer, double speed) {
        double c = job.communication == null ? 0 : job.communication;
        return (1 - c) / speed + c * communicationScale(job.baseOffer, offer);
    }

    private double communicationScale(Offer from, Offer to) {
        Optional<Double> before = catalog.networkGbps(from);
        Optional<Double> after = catalog.networkGbps(to);
        double bandwidth = before.isPresent() && after.isPresent() ? before.get() / after.get() : 1;
        return world.latencyShare + (1 - world.latencyShare) * bandwidth;
    }

    /** What one GPU of {@code model} serves an hour: its first GPUs carried the peak with the world's headroom. */
    private double servingCapacityPerGpu(FleetJob job, String model) {
        return job.baseRate * (1 + world.servingHeadroom) / servingGpus.get(job.name)
                * world.speed.ratio(WorkloadClass.INFERENCE, job.baseModel, model);
    }

    /**
     * Instances of the job's offer that carry its peak with the spare the world keeps: the one it was built
     * with where it started, its autoscaler's own once it moved.
     */
    private int servingInstancesNeeded(FleetJob job) {
        double perInstance = servingCapacityPerGpu(job, job.gpuModel) * prices.require(job.offer).gpusPerInstance();
        double headroom = job.offer.equals(job.baseOffer) ? world.servingHeadroom : world.targetHeadroom;
        return (int) Math.ceil(job.baseRate * (1 + headroom) / perInstance - 1e-9);
    }

    // ---- records as the cost engine and the job reporter write them ---------------------------

    /** A closed minute of one GPU of the job at {@code smActive}, charged {@code gpuPrice} an hour. */
    private static UsageTotals gpuMinute(FleetJob job, Instant closed, double smActive, double gpuPrice) {
        return UsageTotals.ZERO.add(sample(job.gpuUuid(0, 0), job.host(0), job.offer, job.gpuModel, job.id, job.team,
                closed, smActive), gpuPrice);
    }

    /** A GPU's closed one-minute window, as the cost engine sends it. */
    private static GpuUsage window(String gpuUuid, int gpuIndex, String gpuModel, String host, String instanceId,
            Offer offer, String jobId, String team, Instant minute, Instant closed, UsageTotals totals) {
        return GpuUsage.builder().gpu(gpuUuid, gpuIndex, gpuModel)
                .placement(new Placement(host, instanceId, offer.instanceType(), offer.provider(), offer.region(),
                        offer.lifecycle()))
                .job(jobId, team).window(minute, closed).currency("USD").totals(totals).closed(true).build();
    }

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

    private JobEconomics economics(FleetJob job, UsageRollup rollup, double units) {
        UsageTotals totals = rollup.totals();
        JobEconomics.Builder economics = JobEconomics.builder().jobId(job.id).windowStart(rollup.windowStart())
                .windowEnd(rollup.windowEnd()).currency("USD").gpus(rollup.gpus()).gpuSeconds(totals.gpuSeconds())
                .cost(totals.cost()).costPerHour(totals.cost() * 60);
        if (!job.reportsWork()) {
            return economics.build();
        }
        Map<String, Double> perMillion = units > 0 ? Map.of(job.unit, totals.cost() / units * 1_000_000) : Map.of();
        Double communication = null;
        if (job.communication != null) {
            double step = step(job, job.offer, world.speed.ratio(job.workloadClass, job.baseModel, job.gpuModel));
            communication = job.communication * communicationScale(job.baseOffer, job.offer) / step;
        }
        return economics.throughputReported(true).workUnits(Map.of(job.unit, units)).costPerMillionUnits(perMillion)
                .unitsPerGpuSecond(Map.of(job.unit, units / Math.max(1, totals.gpuSeconds())))
                .communicationOverheadRatio(communication).build();
    }

    private static JobProgress progress(FleetJob job, Instant now) {
        return JobProgress.builder().jobId(job.id).team(job.team).host(job.host(0)).instanceId(job.instanceId(0))
                .gpuUuids(List.of(job.gpuUuid(0, 0))).time(now).intervalSeconds(60).unit(job.unit).traits(job.traits)
                .build();
    }

    // ---- what each decision saves: the world's own bill ---------------------------------------

    /** A decision on a job, credited each minute the job runs. */
    private interface JobEffect {
        Ledger.Decision decision();

        /**
         * @param working   whether the job worked this minute (not waiting or restarting after an interruption)
         * @param units     the work it did this minute
         * @param costUsd   what it paid this minute
         * @param lostHours the hours of work an interruption in this minute threw away (since the last
         *                  regular checkpoint: what an evacuation kept is the evacuation's), 0 when none
         */
        void minute(boolean working, double units, double costUsd, double lostHours);
    }

    /**
     * Another instance type for work that grows: the work the job did an hour at the decision (its volume, as
     * the claim counts it), at the true cost per unit before less the true cost per unit now.
     */
    private record TrainingSwitchEffect(Ledger.Decision decision, double unitsPerHourBefore,
            double usdPerUnitBefore) implements JobEffect {

        @Override
        public void minute(boolean working, double units, double costUsd, double lostHours) {
            if (units > 0) {
                decision.saved(unitsPerHourBefore / 60 * (usdPerUnitBefore - costUsd / units));
            }
        }
    }

    /** Another instance type for serving: the same demand carried, its instances before less those now. */
    private record ServingSwitchEffect(Ledger.Decision decision, double usdPerHourBefore) implements JobEffect {

        @Override
        public void minute(boolean working, double units, double costUsd, double lostHours) {
            decision.saved(usdPerHourBefore / 60 - costUsd);
        }
    }

    /** Instances released from a job that runs on: their price, each minute it runs. */
    private record ReleaseEffect(Ledger.Decision decision, double usdPerHour) implements JobEffect {

        @Override
        public void minute(boolean working, double units, double costUsd, double lostHours) {
            decision.saved(usdPerHour / 60);
        }
    }

    /**
     * Spot instead of on demand: the on-demand cost of the work the job kept, less everything spot was
     * paid (the hours whose work an interruption threw away, the waits and restarts included); the
     * time that cost is its delay.
     */
    private static final class SpotEffect implements JobEffect {
        private final Ledger.Decision decision;
        private final double onDemandUsdPerHour;
        private double keptHours;
        private double paidUsd;
        private double credited;

        SpotEffect(Ledger.Decision decision, double onDemandUsdPerHour) {
            this.decision = decision;
            this.onDemandUsdPerHour = onDemandUsdPerHour;
        }

        @Override
        public Ledger.Decision decision() {
            return decision;
        }

        @Override
        public void minute(boolean working, double units, double costUsd, double lostHours) {
            keptHours += (working ? 1 / 60.0 : 0) - lostHours;
            paidUsd += costUsd;
            double saved = keptHours * onDemandUsdPerHour - paidUsd;
            decision.saved(saved - credited);
            decision.delayed((working ? 0 : 1 / 60.0) + lostHours);
            credited = saved;
        }
    }

    /**
     * Reserved instances {@code from + 1} to {@code to} of a pool for a year: each hour, the on-demand price
     * of the pool's instances in use that they cover, less the reservation, paid whether used or not. The
     * run's hours as they were; the rest of the term, the pool's last week again and again, drifting
     * linearly to the world's drift by the term's end.
     */
    private static final class Reservation {
        private final Ledger.Decision decision;
        private final int from;
        private final int to;
        private final double onDemandUsdPerHour;
        private final double reservedUsdPerHour;
        private final long termHours;
        private long hours;

        Reservation(Ledger.Decision decision, int from, int to, double onDemandUsdPerHour, double reservedUsdPerHour,
                long termHours) {
            this.decision = decision;
            this.from = from;
            this.to = to;
            this.onDemandUsdPerHour = onDemandUsdPerHour;
            this.reservedUsdPerHour = reservedUsdPerHour;
            this.termHours = termHours;
        }

        int to() {
            return to;
        }

        void hour(double inUse) {
            if (hours < termHours) {
                double covered = Math.min(inUse, to) - Math.min(inUse, from);
                decision.saved(onDemandUsdPerHour * covered - reservedUsdPerHour * (to - from));
                hours++;
            }
        }

        void beyondTheRun(List<Double> history, double drift) {
            List<Double> lastWeek = history.subList(Math.max(0, history.size() - 168), history.size());
            long left = termHours - hours;
            for (long h = 0; h < left && !lastWeek.isEmpty(); h++) {
                double scale = 1 + (drift - 1) * (double) (hours + 1) / termHours;
                hour(lastWeek.get((int) (h % lastWeek.size())) * scale);
            }
        }
    }
}
