// Over 400 lines: the candidate search, pricing by whole instances and the work model judged together.
package io.gpuledger.alerts.recommend;

import io.gpuledger.alerts.AlertSettings;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Offer;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.Recommendation;
import io.gpuledger.model.RecommendationAction;
import io.gpuledger.model.RecommendationAction.PricedOffer;
import io.gpuledger.model.RecommendationEvidence;
import io.gpuledger.model.RecommendationEvidence.SwitchInstanceType.Egress;
import io.gpuledger.model.RecommendationEvidence.SwitchInstanceType.Estimate;
import io.gpuledger.model.RecommendationEvidence.SwitchInstanceType.Sizing;
import io.gpuledger.model.RecommendationKind;
import io.gpuledger.model.WorkloadClass;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * SWITCH_INSTANCE_TYPE: a job that would cost less on another instance type, bought the same way,
 * where it can go (its provider and region unless the deployment allows others). A candidate is
 * priced in the unit the bill has, whole instances: the job's GPUs on the candidate's instances,
 * {@code ceil(GPUs / GPUs per instance)} of them. Work that grows with speed (training) is compared
 * per unit of work; serving is bounded by its demand, so a serving job is priced at the instances
 * that carry its observed peak with its headroom, and saves only what those cost less than its GPUs
 * now. A job on several GPUs whose communication is not measured is not moved to fewer GPUs per
 * instance than it has on one now, nor, spread over instances, to a slower network; where it is
 * measured, the candidate's communication time is scaled by the networks' bandwidths. Candidates,
 * the speedup model and the thresholds are as docs/recommendations.md describes them.
 */
public final class SwitchInstanceTypeRule implements JobRule {

    public static final double DEFAULT_COMMUNICATION_BOUND_RATIO = 0.25;
    public static final double DEFAULT_MEMORY_BOUND_DRAM_ACTIVE = 0.5;
    public static final double DEFAULT_MEMORY_BOUND_SM_ACTIVE = 0.5;

    /*
     * Confidence is how much the candidate's cost per unit is to be believed: a job of the same
     * workload that pays it is a measurement (0.8); the workload's speed on that GPU measured on the
     * fleet, at another offer's price, nearly one (0.7); one that only counts the same unit may be a
     * different model entirely (0.6); an estimate from a published benchmark of the job's class of
     * work, which its own model follows only roughly, is a hint worth trying (0.5); one from
     * datasheet peaks, which real jobs reach only in part and unevenly across GPUs, less so (0.4).
     */
    static final double CONFIDENCE_OBSERVED_WORKLOAD = 0.8;
    static final double CONFIDENCE_FLEET_MEASURED = 0.7;
    static final double CONFIDENCE_OBSERVED_UNIT = 0.6;
    static final double CONFIDENCE_ESTIMATED = 0.5;
    static final double CONFIDENCE_DATASHEET = 0.4;

    private static final double PER_MILLION = 1_000_000;
    private static final double BYTES_PER_GB = 1e9;

    private final double minSavingRatio;
    private final double withdrawSavingRatio;
    private final double minMonthlySaving;
    private final Reach reach;
    private final double servingHeadroom;
    private final Duration ttl;

    /**
     * The index of the last peers compared with, kept while the same snapshot comes: the job book
     * hands out one snapshot of the peers for seconds at a time ({@link JobBook#PEERS_FRESHNESS}).
     */
    private Collection<JobView> indexedPeers;
    private PeerIndex peerIndex;
    private MeasuredThroughput measuredThroughput;

    /**
     * Reads its thresholds and where a job may go from {@code switch-instance-type.*}; the least saving a month,
     * the serving headroom and how long a record lives from the recommendations' settings.
     */
    public SwitchInstanceTypeRule(AlertSettings.Recommendation recommendation) {
        AlertSettings.SwitchInstanceType settings = recommendation.switchInstanceType();
        this.minSavingRatio = settings.minSavingRatio();
        this.withdrawSavingRatio = settings.withdrawSavingRatio();
        this.minMonthlySaving = recommendation.minMonthlySaving();
        this.reach = new Reach(settings.otherRegions(), settings.otherProviders(), settings.egressPricePerGb());
        this.servingHeadroom = recommendation.servingHeadroom();
        this.ttl = recommendation.ttl();
    }

    /**
     * Where the job could run, and what it would cost there.
     *
     * @param costPerMillionUnits what its work would cost there (for serving: what the instances carrying its
     *                            demand cost, over its work now)
     * @param instances           whole instances it would take there
     * @param gpus                GPUs on them it would use
     * @param monthlySaving       what the move saves a month, the data sent across a region included
     */
    private record Candidate(String basis, double costPerMillionUnits, double confidence, PricedOffer toPool,
            int instances, int gpus, double monthlySaving,
            RecommendationEvidence.SwitchInstanceType.Candidate figures) {
    }

    /** Nothing where the job may not move: a switch is a move. */
    @Override
    public Optional<Recommendation> judge(JobView job, Situation situation) {
        if (!situation.mayMoveJob()) {
            return Optional.empty();
        }
        return evaluate(job, situation.peers().get(), situation.board(), situation.catalog(), situation.now(),
                situation.standing().isPresent());
    }

    /** As {@link #evaluate(JobView, Collection, PriceBoard, GpuCatalog, Instant, boolean)}, nothing standing. */
    public Optional<Recommendation> evaluate(JobView job, Collection<JobView> peers, PriceBoard board,
            GpuCatalog catalog, Instant now) {
        return evaluate(job, peers, board, catalog, now, false);
    }

    /**
     * @param peers the current pictures of other jobs (the job itself among them is ignored)
     * @param held  whether the job's recommendation stands: then a candidate needs only the withdrawal share
     */
    public Optional<Recommendation> evaluate(JobView job, Collection<JobView> peers, PriceBoard board,
            GpuCatalog catalog, Instant now, boolean held) {
        if (!job.reportsThroughput() || job.costPerMillionUnits() <= 0
                || job.pool().lifecycle() == Lifecycle.RESERVED) {
            return Optional.empty();
        }
        List<Candidate> worthIt = new ArrayList<>();
        int observedWorthIt = 0;
        if (!job.traitsOrNone().isServing()) {
            // A serving job's peers do what their demand asks, which says nothing of what their GPUs could.
            Observed observed = observed(job, peers, board, catalog, now, held);
            observed.best().filter(candidate -> worthIt(job, candidate, held)).ifPresent(worthIt::add);
            observedWorthIt = observed.worthIt();
        }
        estimated(job, board, catalog, measured(peers), now).stream()
                .filter(candidate -> worthIt(job, candidate, held)).forEach(worthIt::add);
        Optional<Candidate> best = worthIt.stream().max(Comparator
                .comparingDouble((Candidate candidate) -> candidate.confidence() * candidate.monthlySaving())
                .thenComparing(Comparator.comparingDouble(Candidate::costPerMillionUnits).reversed()));
        int candidatesWorthIt = (int) worthIt.stream().filter(c -> c.basis().equals("estimated")).count()
                + observedWorthIt;
        return best.map(candidate -> recommendation(job, candidate, candidatesWorthIt, now));
    }

    /**
     * Whether a candidate saves enough, as a share and in money; for a standing recommendation
     * ({@code held}), whether it still saves the withdrawal share.
     */
    private boolean worthIt(JobView job, Candidate candidate, boolean held) {
        double share = savingRatio(job, candidate);
        return held ? share >= withdrawSavingRatio && candidate.monthlySaving() > 0
                : share >= minSavingRatio && candidate.monthlySaving() >= minMonthlySaving;
    }

    private static double savingRatio(JobView job, Candidate candidate) {
        return 1 - candidate.costPerMillionUnits() / job.costPerMillionUnits();
    }

    /**
     * What other jobs show: the cheapest peer by what it pays per unit (where the job may go), as a
     * candidate repriced in whole instances for the job's GPUs, and how many peers pay less than the
     * job. A job may have thousands of peers and is judged at each of its records, so they are looked
     * up in an index ({@link PeerIndex}) rather than each tried in turn.
     */
    private record Observed(Optional<Candidate> best, int worthIt) {
    }

    private Observed observed(JobView job, Collection<JobView> peers, PriceBoard board, GpuCatalog catalog,
            Instant now, boolean held) {
        Optional<GpuCatalog.GpuSpec> currentGpu = job.workload() == null ? currentGpu(job, catalog) : Optional.empty();
        double threshold = held ? withdrawSavingRatio : minSavingRatio;
        PeerIndex.Comparison comparison = index(peers).compare(job,
                cost -> 1 - cost / job.costPerMillionUnits() >= threshold, reach,
                peer -> fits(job, currentGpu, catalog.instance(peer.pool()).map(GpuCatalog.InstanceSpec::gpuModel)
                        .or(() -> Optional.ofNullable(peer.gpuModel())).flatMap(catalog::gpu)));
        if (comparison.cheapest().isEmpty()) {
            return new Observed(Optional.empty(), 0);
        }
        JobView cheapest = comparison.cheapest().get();
        Optional<Integer> perInstance = catalog.gpusPerInstance(cheapest.pool(), board);
        if (perInstance.isEmpty()) {
            return new Observed(Optional.empty(), comparison.worthIt());
        }
        if (!together(job, catalog, board).map(needs -> needs.keptBy(perInstance.get(),
                catalog.networkGbps(cheapest.pool()))).orElse(true)) {
            return new Observed(Optional.empty(), comparison.worthIt());
        }
        // What an instance of the peer's offer costs: its price, or what the peer pays a GPU where it has none.
        double instancePrice = board.price(cheapest.pool(), job.currency(), now).map(PriceBoard.Price::pricePerHour)
                .orElse(cheapest.costPerHour() / cheapest.gpuEquivalents() * perInstance.get());
        int gpus = wholeGpus(job);
        int instances = instances(gpus, perInstance.get());
        double unitsPerHour = cheapest.unitsPerGpuHour() * job.gpuEquivalents();
        double cost = instances * instancePrice / unitsPerHour * PER_MILLION;
        var compared = new RecommendationEvidence.SwitchInstanceType.Observed(cheapest.jobId(), cheapest.workload(),
                cheapest.windowEnd(), cheapest.costPerMillionUnits());
        PricedOffer toPool = poolFields(cheapest.pool(), cheapest.gpuModel(), board);
        Optional<Egress> egress = egress(job, cheapest.pool());
        return new Observed(Optional.of(new Candidate("observed", cost,
                job.workload() != null ? CONFIDENCE_OBSERVED_WORKLOAD : CONFIDENCE_OBSERVED_UNIT, toPool, instances,
                gpus, perUnitSaving(job, cost) - costOf(egress),
                new RecommendationEvidence.SwitchInstanceType.Candidate(compared, null, egress.orElse(null), null))),
                comparison.worthIt());
    }

    private synchronized PeerIndex index(Collection<JobView> peers) {
        indexed(peers);
        return peerIndex;
    }

    private synchronized MeasuredThroughput measured(Collection<JobView> peers) {
        indexed(peers);
        return measuredThroughput;
    }

    private void indexed(Collection<JobView> peers) {
        if (peers != indexedPeers) {
            peerIndex = PeerIndex.of(peers);
            measuredThroughput = MeasuredThroughput.of(peers);
            indexedPeers = peers;
        }
    }

    /** The class of work the job is judged as, and what said so: its traits, its telemetry or the default. */
    private record ClassOfWork(WorkloadClass workloadClass, String from) {
    }

    private static ClassOfWork classOfWork(JobView job) {
        WorkloadClass named = job.traitsOrNone().workloadClass();
        if (named != null) {
            return new ClassOfWork(named, "traits");
        }
        boolean memoryBound = job.dramActive() != null && job.dramActive() >= DEFAULT_MEMORY_BOUND_DRAM_ACTIVE
                && job.smActive() < DEFAULT_MEMORY_BOUND_SM_ACTIVE;
        return memoryBound ? new ClassOfWork(WorkloadClass.MEMORY_BOUND, "telemetry")
                : new ClassOfWork(WorkloadClass.TRAINING, "default");
    }

    /**
     * How much faster the candidate's GPU runs the job than its own, where that figure comes from, and
     * whether it already holds the job's communication (a measurement does); {@code fleet} is the
     * measurement, null where the ratio is not the fleet's.
     */
    private record Performance(double ratio, String source, boolean wholeSpeedup, double confidence,
            MeasuredThroughput.Ratio fleet) {
    }

    private static Performance performance(JobView job, ClassOfWork work, GpuCatalog.GpuSpec current,
            GpuCatalog.GpuSpec candidate, MeasuredThroughput measured) {
        if (current.model().equalsIgnoreCase(candidate.model())) {
            return new Performance(1, "same-gpu-model", false, CONFIDENCE_ESTIMATED, null);
        }
        // What serving jobs do per GPU is their demand, not their GPUs' speed: no fleet measurement for them.
        Optional<MeasuredThroughput.Ratio> fleet = job.traitsOrNone().isServing() ? Optional.empty()
                : measured.ratio(job, candidate.model());
        if (fleet.isPresent()) {
            return new Performance(fleet.get().ratio(), "fleet-measured", true, CONFIDENCE_FLEET_MEASURED,
                    fleet.get());
        }
        Optional<Double> currentFigure = current.figure(work.workloadClass());
        Optional<Double> candidateFigure = candidate.figure(work.workloadClass());
        if (currentFigure.isPresent() && candidateFigure.isPresent()) {
            return new Performance(candidateFigure.get() / currentFigure.get(), "table:" + work.workloadClass().wire(),
                    false, CONFIDENCE_ESTIMATED, null);
        }
        return new Performance(candidate.denseTensorTflops() / current.denseTensorTflops(), "datasheet:tensor-tflops",
                false, CONFIDENCE_DATASHEET, null);
    }

    private List<Candidate> estimated(JobView job, PriceBoard board, GpuCatalog catalog, MeasuredThroughput measured,
            Instant now) {
        Optional<GpuCatalog.GpuSpec> currentGpu = currentGpu(job, catalog);
        if (currentGpu.isEmpty()) {
            return List.of();
        }
        Double ratio = job.communicationOverheadRatio();
        double communication = ratio == null ? 0 : ratio;
        boolean communicationBound = ratio != null && ratio >= DEFAULT_COMMUNICATION_BOUND_RATIO;
        boolean serving = job.traitsOrNone().isServing();
        if (serving && !job.peak().known()) {
            // Sized by the peak of its look-back: no candidate until it is known.
            return List.of();
        }
        ClassOfWork work = classOfWork(job);
        Optional<Double> currentNetwork = catalog.networkGbps(job.pool());
        Optional<Together> together = together(job, catalog, board);
        List<Candidate> found = new ArrayList<>();
        for (PriceQuote quote : board.all()) {
            Optional<GpuCatalog.GpuSpec> gpu = catalog.gpuOf(quote);
            boolean comparable = quote.lifecycle() == job.pool().lifecycle() && !samePlace(quote.offer(), job.pool())
                    && reach.allows(job.pool(), quote.offer()) && fits(job, currentGpu, gpu);
            // Priced in the job's currency at the rate in force; a currency without a rate is left out.
            Optional<PriceBoard.Price> price = comparable ? board.priceIn(quote, job.currency(), now)
                    : Optional.empty();
            if (price.isEmpty()) {
                continue;
            }
            Optional<Double> network = catalog.networkGbps(quote.offer());
            boolean networkKnown = currentNetwork.isPresent() && network.isPresent();
            boolean networkAsFast = networkKnown && network.get() >= currentNetwork.get();
            if (communicationBound && !networkAsFast) {
                continue;
            }
            if (!together.map(needs -> needs.keptBy(quote.gpuCount(), network)).orElse(true)) {
                continue;
            }
            Performance performance = performance(job, work, currentGpu.get(), gpu.get(), measured);
            double networkRatio = networkKnown ? network.get() / currentNetwork.get() : 1;
            double speedup = performance.wholeSpeedup() ? performance.ratio()
                    : 1 / ((1 - communication) / performance.ratio() + communication / networkRatio);
            MeasuredThroughput.Ratio fleet = performance.fleet();
            var estimate = new Estimate(work.workloadClass().wire(), work.from(), performance.source(),
                    performance.ratio(), fleet == null ? null : fleet.candidateJobs(),
                    fleet == null ? null : fleet.currentJobs(), communicationBound, networkRatio, speedup,
                    price.get().pricePerHour(), price.get().pricePerGpuHour(), quote.currency(),
                    price.get().exchangeRate());
            Optional<Egress> egress = egress(job, quote.offer());
            Optional<Candidate> candidate = serving
                    ? serving(job, quote, price.get(), speedup, performance.confidence(), gpu.get(), estimate, egress)
                    : growing(job, quote, price.get(), speedup, performance.confidence(), gpu.get(), estimate, egress);
            candidate.ifPresent(found::add);
        }
        return found;
    }

    /**
     * Work that grows with speed: the job's GPUs on whole instances of the candidate, doing its work
     * {@code speedup} times as fast; compared per unit.
     */
    private static Optional<Candidate> growing(JobView job, PriceQuote quote, PriceBoard.Price price, double speedup,
            double confidence, GpuCatalog.GpuSpec gpu, Estimate estimate, Optional<Egress> egress) {
        int gpus = wholeGpus(job);
        int instances = instances(gpus, quote.gpuCount());
        double cost = instances * price.pricePerHour() / (job.workUnitsPerHour() * speedup) * PER_MILLION;
        return Optional.of(new Candidate("estimated", cost, confidence, PricedOffer.of(quote, gpu.model()), instances,
                gpus, perUnitSaving(job, cost) - costOf(egress),
                new RecommendationEvidence.SwitchInstanceType.Candidate(null, estimate, egress.orElse(null), null)));
    }

    /**
     * Serving: the same demand on the candidate. Its GPUs now are taken to carry the peak demand of its
     * look-back with its headroom to spare, each able to serve {@code 1 + headroom} times what it served
     * at the peak; a candidate's GPU serves {@code speedup} times that. It takes the GPUs that carry the
     * peak with the same headroom, on whole instances, and saves what those cost less than its GPUs now,
     * never a share of throughput no request asks for.
     */
    private Optional<Candidate> serving(JobView job, PriceQuote quote, PriceBoard.Price price, double speedup,
            double confidence, GpuCatalog.GpuSpec gpu, Estimate estimate, Optional<Egress> egress) {
        JobHours.Peak peak = job.peak();
        if (!peak.known()) {
            return Optional.empty();
        }
        Double said = job.traitsOrNone().headroom();
        double headroom = said != null ? said : servingHeadroom;
        double capacityPerGpu = peak.unitsPerGpuHour() * (1 + headroom) * speedup;
        int gpus = (int) Math.max(1, Math.ceil(peak.unitsPerHour() * (1 + headroom) / capacityPerGpu - 1e-9));
        int instances = instances(gpus, quote.gpuCount());
        double costPerHour = instances * price.pricePerHour();
        var sizing = new Sizing(peak.unitsPerHour(), peak.unitsPerGpuHour(), headroom,
                said != null ? "traits" : "default", capacityPerGpu, costPerHour);
        double monthly = (job.costPerHour() - costPerHour) * job.hoursPerMonth() - costOf(egress);
        return Optional.of(new Candidate("estimated", costPerHour / job.workUnitsPerHour() * PER_MILLION, confidence,
                PricedOffer.of(quote, gpu.model()), instances, gpus, monthly,
                new RecommendationEvidence.SwitchInstanceType.Candidate(null, estimate, egress.orElse(null), sizing)));
    }

    /**
     * What moving the job to {@code to} sends across a region or provider a month, priced where the job
     * says its storage traffic; empty for a move within its region.
     */
    private Optional<Egress> egress(JobView job, Offer to) {
        Reach.Move move = Reach.move(job.pool(), to);
        if (move == Reach.Move.NONE) {
            return Optional.empty();
        }
        String fromRegion = job.pool().provider() + "|" + job.pool().region();
        String toRegion = to.provider() + "|" + to.region();
        Double bytesPerHour = job.traitsOrNone().storageBytesPerHour();
        if (bytesPerHour == null) {
            return Optional.of(Egress.unknown(move.wire(), fromRegion, toRegion));
        }
        double gbPerMonth = bytesPerHour / BYTES_PER_GB * job.hoursPerMonth();
        return Optional.of(new Egress(move.wire(), fromRegion, toRegion, gbPerMonth,
                gbPerMonth * reach.egressPricePerGb(), true));
    }

    /** What the egress of a move costs a month: 0 within a region, or where the job does not say its traffic. */
    private static double costOf(Optional<Egress> egress) {
        return egress.map(Egress::egressCostPerMonth).orElse(0.0);
    }

    /** The candidate's GPUs hold the job's reported peak, or without a report, as much as its GPUs now. */
    private static boolean fits(JobView job, Optional<GpuCatalog.GpuSpec> current,
            Optional<GpuCatalog.GpuSpec> candidate) {
        if (candidate.isEmpty()) {
            return false;
        }
        Double peak = job.traitsOrNone().peakMemoryBytes();
        if (peak != null) {
            return peak <= candidate.get().memoryBytes();
        }
        return current.isPresent() && candidate.get().memoryBytes() >= current.get().memoryBytes();
    }

    private static Optional<GpuCatalog.GpuSpec> currentGpu(JobView job, GpuCatalog catalog) {
        return catalog.instance(job.pool()).map(GpuCatalog.InstanceSpec::gpuModel)
                .or(() -> Optional.ofNullable(job.gpuModel()))
                .flatMap(catalog::gpu);
    }

    /** Moving within the same instance type of the same region is not switching type. */
    private static boolean samePlace(Offer a, Offer b) {
        return a.provider().equals(b.provider()) && a.region().equals(b.region())
                && a.instanceType().equalsIgnoreCase(b.instanceType());
    }

    private static PricedOffer poolFields(Offer pool, String gpuModel, PriceBoard board) {
        return board.price(pool).map(quote -> PricedOffer.of(quote, gpuModel))
                .orElseGet(() -> PricedOffer.unpriced(pool, gpuModel));
    }

    /**
     * What a job on more than one GPU whose communication is not measured needs of a candidate to keep
     * its GPUs as close: at least {@code gpusPerInstance} GPUs per instance (as many as it has on one
     * instance now; all of them, for a job on one instance), and for a job spread over instances a
     * network known to be at least as fast as {@code network}. More of an unmeasured communication
     * crossing a network, or a slower one, costs what no figure here shows.
     */
    private record Together(int gpusPerInstance, boolean spread, Optional<Double> network) {

        boolean keptBy(int candidateGpusPerInstance, Optional<Double> candidateNetwork) {
            return candidateGpusPerInstance >= gpusPerInstance && (!spread || network.isPresent()
                    && candidateNetwork.isPresent() && candidateNetwork.get() >= network.get());
        }
    }

    /** What the job needs to keep its GPUs together; empty when it measures its communication or has one GPU. */
    private static Optional<Together> together(JobView job, GpuCatalog catalog, PriceBoard board) {
        int gpus = wholeGpus(job);
        if (job.communicationOverheadRatio() != null || gpus <= 1) {
            return Optional.empty();
        }
        Optional<Integer> perInstanceNow = catalog.gpusPerInstance(job.pool(), board);
        return Optional.of(new Together(perInstanceNow.map(per -> Math.min(per, gpus)).orElse(gpus),
                perInstanceNow.map(per -> WholeInstances.spread(job, per)).orElse(false),
                catalog.networkGbps(job.pool())));
    }

    /** Whole GPUs the job needs: its GPU equivalents rounded up (seven 1/7 slices are one GPU). */
    private static int wholeGpus(JobView job) {
        return WholeInstances.gpus(job.gpuEquivalents());
    }

    private static int instances(int gpus, int gpusPerInstance) {
        return WholeInstances.of(gpus, gpusPerInstance);
    }

    /**
     * Doing the job's current work at {@code costPerMillionUnits} instead of its own, for the hours of
     * a month it runs ({@link JobView#hoursPerMonth()}).
     */
    private static double perUnitSaving(JobView job, double costPerMillionUnits) {
        return (job.costPerMillionUnits() - costPerMillionUnits) / PER_MILLION * job.workUnitsPerHour()
                * job.hoursPerMonth();
    }

    private Recommendation recommendation(JobView job, Candidate candidate, int candidatesWorthIt, Instant now) {
        double saving = candidate.monthlySaving();
        double savingRatio = savingRatio(job, candidate);
        var evidence = new RecommendationEvidence.SwitchInstanceType(null, candidate.basis(), job.unit(),
                job.workload(), job.traitsOrNone().isServing(), job.workUnitsPerHour(), job.hoursPerMonth(),
                job.costPerHour(), job.costPerMillionUnits(), candidate.costPerMillionUnits(), candidate.instances(),
                savingRatio, minSavingRatio, withdrawSavingRatio, job.communicationOverheadRatio(), job.smActive(),
                job.dramActive(), candidatesWorthIt, job.currency(), candidate.figures(), null);

        var action = new RecommendationAction.SwitchInstanceType(job.jobId(), job.gpus(), job.pool().key(),
                candidate.toPool(), candidate.instances(), candidate.gpus());

        String summary = String.format(Locale.ROOT,
                "Job %s pays %.4f %s per 1M %s on %s; on %d %s it would pay %.4f (%s), %.0f%% less: %.2f %s a month",
                job.jobId(), job.costPerMillionUnits(), job.currency(), job.unit(), job.pool().instanceType(),
                candidate.instances(), candidate.toPool().instanceType(), candidate.costPerMillionUnits(),
                candidate.basis(), savingRatio * 100, saving, job.currency());
        return Recommendation.builder()
                .open(RecommendationKind.SWITCH_INSTANCE_TYPE, Recommendation.Target.job(job.jobId()), now)
                .summary(summary).action(action).estimatedMonthlySaving(saving).currency(job.currency())
                .confidence(candidate.confidence()).expiresAt(now.plus(ttl)).evidence(evidence).build();
    }
}
