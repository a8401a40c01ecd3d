package io.gpuledger.alerts.recommend;

import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Offer;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.Recommendation;
import io.gpuledger.model.RecommendationKind;
import io.gpuledger.model.WorkloadClass;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * SWITCH_INSTANCE_TYPE: a job whose work would cost less per unit on another instance type, bought the same way.
 * Candidates, the speedup model and the thresholds are as docs/recommendations.md describes them.
 */
public final class SwitchInstanceTypeRule {

    public static final double DEFAULT_MIN_SAVING_RATIO = 0.15;
    public static final double DEFAULT_WITHDRAW_SAVING_RATIO = 0.10;
    /** An hour of closed minutes; raised at a 15% saving per unit, withdrawn under 10%. */
    public static final RecommendationRules.Evidence DEFAULT_EVIDENCE = new RecommendationRules.Evidence(
            Duration.ofHours(1), DEFAULT_MIN_SAVING_RATIO, DEFAULT_WITHDRAW_SAVING_RATIO);
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

    private final double minSavingRatio;
    private final double withdrawSavingRatio;
    private final double minMonthlySaving;
    private final double communicationBoundRatio;
    private final double memoryBoundDramActive;
    private final double memoryBoundSmActive;
    private final Duration ttl;

    /**
     * The index of the last peers compared with, kept while the same snapshot comes: the job book
     * hands out one snapshot of the peers for seconds at a time ({@link JobBook#PEERS_FRESHNESS}).
     */
    private Collection<JobView> indexedPeers;
    private PeerIndex peerIndex;
    private MeasuredThroughput measuredThroughput;

    /**
     * @param minSavingRatio      share of the cost per unit a candidate must save to be recommended
     * @param withdrawSavingRatio share under which a standing recommendation is withdrawn
     */
    public SwitchInstanceTypeRule(double minSavingRatio, double withdrawSavingRatio, double minMonthlySaving,
            double communicationBoundRatio, double memoryBoundDramActive, double memoryBoundSmActive, Duration ttl) {
        this.minSavingRatio = minSavingRatio;
        this.withdrawSavingRatio = withdrawSavingRatio;
        this.minMonthlySaving = minMonthlySaving;
        this.communicationBoundRatio = communicationBoundRatio;
        this.memoryBoundDramActive = memoryBoundDramActive;
        this.memoryBoundSmActive = memoryBoundSmActive;
        this.ttl = ttl;
    }

    /** Where the job's work could cost less, and what it would cost there. */
    private record Candidate(String basis, double costPerMillionUnits, double confidence, Map<String, Object> toPool,
            Map<String, Object> figures) {
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
        Observed observed = observed(job, peers, board, catalog, held);
        List<Candidate> worthIt = new ArrayList<>();
        observed.best().ifPresent(worthIt::add);
        estimated(job, board, catalog, measured(peers), now).stream()
                .filter(candidate -> worthIt(job, candidate.costPerMillionUnits(), held)).forEach(worthIt::add);
        Optional<Candidate> best = worthIt.stream().max(Comparator
                .comparingDouble((Candidate candidate) -> candidate.confidence() * monthlySaving(job, candidate))
                .thenComparing(Comparator.comparingDouble(Candidate::costPerMillionUnits).reversed()));
        int candidatesWorthIt = worthIt.size() - (observed.best().isPresent() ? 1 : 0) + observed.worthIt();
        return best.map(candidate -> recommendation(job, candidate, candidatesWorthIt, now));
    }

    /**
     * Whether a candidate at {@code costPerMillionUnits} saves enough, as a share and in money; for
     * a standing recommendation ({@code held}), whether it still saves the withdrawal share.
     */
    private boolean worthIt(JobView job, double costPerMillionUnits, boolean held) {
        double share = 1 - costPerMillionUnits / job.costPerMillionUnits();
        double saving = monthlySaving(job, costPerMillionUnits);
        return held ? share >= withdrawSavingRatio && saving > 0
                : share >= minSavingRatio && saving >= minMonthlySaving;
    }

    /**
     * What other jobs show: the cheapest peer worth switching to, as a candidate, and how many
     * peers are worth it. Every observed candidate of a job has the same confidence (its peers
     * all share its workload, or it names none), so the cheapest is the best; only that one is
     * worked out in full. A job may have thousands of peers and is judged at each of its records,
     * so they are looked up in an index ({@link PeerIndex}) rather than each tried in turn.
     */
    private record Observed(Optional<Candidate> best, int worthIt) {
    }

    private Observed observed(JobView job, Collection<JobView> peers, PriceBoard board, GpuCatalog catalog,
            boolean held) {
        Optional<GpuCatalog.GpuSpec> currentGpu = job.workload() == null ? currentGpu(job, catalog) : Optional.empty();
        PeerIndex.Comparison comparison = index(peers).compare(job, cost -> worthIt(job, cost, held),
                peer -> fits(job, currentGpu, catalog.instance(peer.pool()).map(GpuCatalog.InstanceSpec::gpuModel)
                        .or(() -> Optional.ofNullable(peer.gpuModel())).flatMap(catalog::gpu)));
        if (comparison.cheapest().isEmpty()) {
            return new Observed(Optional.empty(), 0);
        }
        JobView cheapest = comparison.cheapest().get();
        int worthIt = comparison.worthIt();
        Map<String, Object> figures = new LinkedHashMap<>();
        figures.put("comparedJobId", cheapest.jobId());
        if (cheapest.workload() != null) {
            figures.put("comparedWorkload", cheapest.workload());
        }
        figures.put("comparedWindowEnd", cheapest.windowEnd().toString());
        return new Observed(Optional.of(new Candidate("observed", cheapest.costPerMillionUnits(),
                job.workload() != null ? CONFIDENCE_OBSERVED_WORKLOAD : CONFIDENCE_OBSERVED_UNIT,
                poolFields(cheapest.pool(), cheapest.gpuModel(), board), figures)), worthIt);
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

    private ClassOfWork classOfWork(JobView job) {
        WorkloadClass named = job.traitsOrNone().workloadClass();
        if (named != null) {
            return new ClassOfWork(named, "traits");
        }
        boolean memoryBound = job.dramActive() != null && job.dramActive() >= memoryBoundDramActive
                && job.smActive() < memoryBoundSmActive;
        return memoryBound ? new ClassOfWork(WorkloadClass.MEMORY_BOUND, "telemetry")
                : new ClassOfWork(WorkloadClass.TRAINING, "default");
    }

    /**
     * How much faster the candidate's GPU runs the job than its own, where that figure comes from, and
     * whether it already holds the job's communication (a measurement does).
     */
    private record Performance(double ratio, String source, boolean wholeSpeedup, double confidence,
            Map<String, Object> figures) {
    }

    private static Performance performance(JobView job, ClassOfWork work, GpuCatalog.GpuSpec current,
            GpuCatalog.GpuSpec candidate, MeasuredThroughput measured) {
        if (current.model().equalsIgnoreCase(candidate.model())) {
            return new Performance(1, "same-gpu-model", false, CONFIDENCE_ESTIMATED, Map.of());
        }
        Optional<MeasuredThroughput.Ratio> fleet = measured.ratio(job, candidate.model());
        if (fleet.isPresent()) {
            Map<String, Object> figures = new LinkedHashMap<>();
            figures.put("measuredCandidateJobs", fleet.get().candidateJobs());
            figures.put("measuredCurrentJobs", fleet.get().currentJobs());
            return new Performance(fleet.get().ratio(), "fleet-measured", true, CONFIDENCE_FLEET_MEASURED, figures);
        }
        Optional<Double> currentFigure = current.figure(work.workloadClass());
        Optional<Double> candidateFigure = candidate.figure(work.workloadClass());
        if (currentFigure.isPresent() && candidateFigure.isPresent()) {
            return new Performance(candidateFigure.get() / currentFigure.get(), "table:" + work.workloadClass().wire(),
                    false, CONFIDENCE_ESTIMATED, Map.of());
        }
        return new Performance(candidate.denseTensorTflops() / current.denseTensorTflops(), "datasheet:tensor-tflops",
                false, CONFIDENCE_DATASHEET, Map.of());
    }

    private List<Candidate> estimated(JobView job, PriceBoard board, GpuCatalog catalog, MeasuredThroughput measured,
            Instant now) {
        Optional<GpuCatalog.GpuSpec> currentGpu = currentGpu(job, catalog);
        if (currentGpu.isEmpty()) {
            return List.of();
        }
        Double ratio = job.communicationOverheadRatio();
        double communication = ratio == null ? 0 : ratio;
        boolean communicationBound = ratio != null && ratio >= communicationBoundRatio;
        ClassOfWork work = classOfWork(job);
        Optional<Double> currentNetwork = catalog.networkGbps(job.pool());
        List<Candidate> found = new ArrayList<>();
        for (PriceQuote quote : board.all()) {
            Optional<GpuCatalog.GpuSpec> gpu = catalog.gpuOf(quote);
            boolean comparable = quote.lifecycle() == job.pool().lifecycle() && !samePlace(quote.offer(), job.pool())
                    && fits(job, currentGpu, gpu);
            // Priced in the job's currency at the rate in force; a currency without a rate is left out.
            Optional<PriceBoard.Price> price = comparable ? board.priceIn(quote, job.currency(), now)
                    : Optional.empty();
            if (price.isEmpty()) {
                continue;
            }
            Optional<Double> network = catalog.networkGbps(quote.offer());
            boolean networkKnown = currentNetwork.isPresent() && network.isPresent();
            if (communicationBound && !(networkKnown && network.get() >= currentNetwork.get())) {
                continue;
            }
            Performance performance = performance(job, work, currentGpu.get(), gpu.get(), measured);
            double networkRatio = networkKnown ? network.get() / currentNetwork.get() : 1;
            double speedup = performance.wholeSpeedup() ? performance.ratio()
                    : 1 / ((1 - communication) / performance.ratio() + communication / networkRatio);
            double cost = price.get().pricePerGpuHour() / (job.unitsPerGpuHour() * speedup) * PER_MILLION;

            Map<String, Object> figures = new LinkedHashMap<>();
            figures.put("workloadClass", work.workloadClass().wire());
            figures.put("workloadClassFrom", work.from());
            figures.put("performanceSource", performance.source());
            figures.put("performanceRatio", performance.ratio());
            figures.putAll(performance.figures());
            figures.put("communicationBound", communicationBound);
            figures.put("networkRatio", networkRatio);
            figures.put("estimatedSpeedup", speedup);
            figures.put("candidatePricePerGpuHour", price.get().pricePerGpuHour());
            figures.put("quoteCurrency", quote.currency());
            figures.put("exchangeRate", price.get().exchangeRate());
            found.add(new Candidate("estimated", cost, performance.confidence(),
                    OfferFields.of(quote, gpu.get().model()), figures));
        }
        return found;
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

    private static Map<String, Object> poolFields(Offer pool, String gpuModel, PriceBoard board) {
        return board.price(pool).map(quote -> OfferFields.of(quote, gpuModel))
                .orElseGet(() -> OfferFields.of(pool, gpuModel));
    }

    /**
     * Doing the job's current work at the candidate's cost per unit instead of its own, for the hours
     * of a month it runs ({@link JobView#hoursPerMonth()}).
     */
    private static double monthlySaving(JobView job, Candidate candidate) {
        return monthlySaving(job, candidate.costPerMillionUnits());
    }

    private static double monthlySaving(JobView job, double costPerMillionUnits) {
        return (job.costPerMillionUnits() - costPerMillionUnits) / PER_MILLION * job.workUnitsPerHour()
                * job.hoursPerMonth();
    }

    private Recommendation recommendation(JobView job, Candidate candidate, int candidatesWorthIt, Instant now) {
        double saving = monthlySaving(job, candidate);
        double savingRatio = 1 - candidate.costPerMillionUnits() / job.costPerMillionUnits();
        Map<String, Object> evidence = new LinkedHashMap<>();
        evidence.put("basis", candidate.basis());
        evidence.put("unit", job.unit());
        if (job.workload() != null) {
            evidence.put("workload", job.workload());
        }
        evidence.put("workUnitsPerHour", job.workUnitsPerHour());
        evidence.put("hoursPerMonth", job.hoursPerMonth());
        evidence.put("currentCostPerMillionUnits", job.costPerMillionUnits());
        evidence.put("candidateCostPerMillionUnits", candidate.costPerMillionUnits());
        evidence.put("savingRatio", savingRatio);
        evidence.put("minSavingRatio", minSavingRatio);
        evidence.put("withdrawSavingRatio", withdrawSavingRatio);
        if (job.communicationOverheadRatio() != null) {
            evidence.put("communicationOverheadRatio", job.communicationOverheadRatio());
        }
        evidence.put("smActive", job.smActive());
        if (job.dramActive() != null) {
            evidence.put("dramActive", job.dramActive());
        }
        evidence.put("candidatesWorthIt", candidatesWorthIt);
        evidence.put("currency", job.currency());
        evidence.putAll(candidate.figures());

        Map<String, Object> action = new LinkedHashMap<>();
        action.put("jobId", job.jobId());
        action.put("gpus", job.gpus());
        action.put("fromPool", job.pool().key());
        action.put("toPool", candidate.toPool());

        String summary = String.format(Locale.ROOT,
                "Job %s pays %.4f %s per 1M %s on %s; on %s it would pay %.4f (%s), %.0f%% less: %.2f %s a month",
                job.jobId(), job.costPerMillionUnits(), job.currency(), job.unit(), job.pool().instanceType(),
                candidate.toPool().get("instanceType"), candidate.costPerMillionUnits(), candidate.basis(),
                savingRatio * 100, saving, job.currency());
        return Recommendation.open(RecommendationKind.SWITCH_INSTANCE_TYPE, Recommendation.Target.job(job.jobId()),
                summary, action, null, saving, job.currency(), candidate.confidence(), now, now.plus(ttl), evidence);
    }
}
