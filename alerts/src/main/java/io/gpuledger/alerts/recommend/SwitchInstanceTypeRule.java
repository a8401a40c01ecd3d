package io.gpuledger.alerts.recommend;

import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Offer;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.Recommendation;
import io.gpuledger.model.RecommendationKind;
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
 * SWITCH_INSTANCE_TYPE: a job whose work would cost less per unit on another instance type.
 *
 * <p>The job's own cost per million units is set against two kinds of candidate, bought the same
 * way (on demand against on demand, spot against spot: changing how capacity is bought is the
 * spot and reservation rules' business; a job on reserved capacity is left alone, as the
 * reservation is paid whether it runs there or not):
 * <ul>
 *   <li><b>observed</b>: another job with the same workload (its {@code JobTraits.workload}; when
 *       the job names none, any job counting the same unit) reporting a lower cost per million
 *       units on another instance type or region;</li>
 *   <li><b>estimated</b>: every priced offer of another type whose GPUs have the memory the job
 *       needs (its reported peak; without one, at least the memory of its current GPUs), at
 *       {@code price per GPU-hour / (units per GPU-hour now × speedup)}.</li>
 * </ul>
 *
 * <p>The speedup models a step as compute plus exposed communication, with the job's
 * communication-overhead ratio {@code c} (0 when not reported):
 * {@code speedup = 1 / ((1 − c) / r + c / b)}. Compute scales with {@code r}, the ratio of the
 * candidate's GPU to the current one: dense tensor TFLOPS, or memory bandwidth for a memory-bound
 * job (DRAM activity at least 0.5 while SM activity is under 0.5, by default). Communication time
 * scales with {@code 1 / bandwidth} of the network between instances: {@code b} is the candidate's
 * network over the current one, 1 where either is not published. A communication-bound job
 * ({@code c} at least 0.25 by default) is only sent to candidates whose network is known and at
 * least as fast as the current one. The model takes the job's communication as crossing that
 * network; for a job inside one instance (NVLink, which the catalog does not hold) the estimate
 * over-weights the network.
 *
 * <p>A candidate is recommended when it saves at least the minimum share (15% by default) of the
 * cost per unit and at least the minimum money a month. The monthly saving is that of doing the
 * job's current work rate for 720 hours at the candidate's cost per unit. Among candidates the one
 * with the highest confidence × monthly saving wins, so that an observed figure beats an estimate
 * of a similar saving.
 */
public final class SwitchInstanceTypeRule {

    public static final double DEFAULT_MIN_SAVING_RATIO = 0.15;
    public static final double DEFAULT_COMMUNICATION_BOUND_RATIO = 0.25;
    public static final double DEFAULT_MEMORY_BOUND_DRAM_ACTIVE = 0.5;
    public static final double DEFAULT_MEMORY_BOUND_SM_ACTIVE = 0.5;

    /*
     * Confidence is how much the candidate's cost per unit is to be believed: a job of the same
     * workload that pays it is a measurement (0.8); one that only counts the same unit may be a
     * different model entirely (0.6); an estimate from datasheet peaks, which real jobs reach only
     * in part and unevenly across GPUs, is a hint worth trying (0.5).
     */
    static final double CONFIDENCE_OBSERVED_WORKLOAD = 0.8;
    static final double CONFIDENCE_OBSERVED_UNIT = 0.6;
    static final double CONFIDENCE_ESTIMATED = 0.5;

    private static final double PER_MILLION = 1_000_000;

    private final double minSavingRatio;
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

    public SwitchInstanceTypeRule(double minSavingRatio, double minMonthlySaving, double communicationBoundRatio,
            double memoryBoundDramActive, double memoryBoundSmActive, Duration ttl) {
        this.minSavingRatio = minSavingRatio;
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

    /**
     * @param peers the current pictures of other jobs (the job itself among them is ignored)
     */
    public Optional<Recommendation> evaluate(JobView job, Collection<JobView> peers, PriceBoard board,
            GpuCatalog catalog, Instant now) {
        if (!job.reportsThroughput() || job.costPerMillionUnits() <= 0
                || job.pool().lifecycle() == Lifecycle.RESERVED) {
            return Optional.empty();
        }
        Observed observed = observed(job, peers, board, catalog);
        List<Candidate> worthIt = new ArrayList<>();
        observed.best().ifPresent(worthIt::add);
        estimated(job, board, catalog, now).stream()
                .filter(candidate -> worthIt(job, candidate.costPerMillionUnits())).forEach(worthIt::add);
        Optional<Candidate> best = worthIt.stream().max(Comparator
                .comparingDouble((Candidate candidate) -> candidate.confidence() * monthlySaving(job, candidate))
                .thenComparing(Comparator.comparingDouble(Candidate::costPerMillionUnits).reversed()));
        int candidatesWorthIt = worthIt.size() - (observed.best().isPresent() ? 1 : 0) + observed.worthIt();
        return best.map(candidate -> recommendation(job, candidate, candidatesWorthIt, now));
    }

    /** Whether a candidate at {@code costPerMillionUnits} saves enough, as a share and in money. */
    private boolean worthIt(JobView job, double costPerMillionUnits) {
        return 1 - costPerMillionUnits / job.costPerMillionUnits() >= minSavingRatio
                && monthlySaving(job, costPerMillionUnits) >= minMonthlySaving;
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

    private Observed observed(JobView job, Collection<JobView> peers, PriceBoard board, GpuCatalog catalog) {
        Optional<GpuCatalog.GpuSpec> currentGpu = job.workload() == null ? currentGpu(job, catalog) : Optional.empty();
        PeerIndex.Comparison comparison = index(peers).compare(job, cost -> worthIt(job, cost),
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
        if (peers != indexedPeers) {
            peerIndex = PeerIndex.of(peers);
            indexedPeers = peers;
        }
        return peerIndex;
    }

    private List<Candidate> estimated(JobView job, PriceBoard board, GpuCatalog catalog, Instant now) {
        Optional<GpuCatalog.GpuSpec> currentGpu = currentGpu(job, catalog);
        if (currentGpu.isEmpty()) {
            return List.of();
        }
        Double ratio = job.communicationOverheadRatio();
        double communication = ratio == null ? 0 : ratio;
        boolean communicationBound = ratio != null && ratio >= communicationBoundRatio;
        boolean memoryBound = job.dramActive() != null && job.dramActive() >= memoryBoundDramActive
                && job.smActive() < memoryBoundSmActive;
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
            double performance = memoryBound
                    ? gpu.get().memoryBandwidthBytesPerSecond() / currentGpu.get().memoryBandwidthBytesPerSecond()
                    : gpu.get().denseTensorTflops() / currentGpu.get().denseTensorTflops();
            double networkRatio = networkKnown ? network.get() / currentNetwork.get() : 1;
            double speedup = 1 / ((1 - communication) / performance + communication / networkRatio);
            double cost = price.get().pricePerGpuHour() / (job.unitsPerGpuHour() * speedup) * PER_MILLION;

            Map<String, Object> figures = new LinkedHashMap<>();
            figures.put("performanceModel", memoryBound ? "memory-bandwidth" : "tensor-tflops");
            figures.put("performanceRatio", performance);
            figures.put("communicationBound", communicationBound);
            figures.put("networkRatio", networkRatio);
            figures.put("estimatedSpeedup", speedup);
            figures.put("candidatePricePerGpuHour", price.get().pricePerGpuHour());
            figures.put("quoteCurrency", quote.currency());
            figures.put("exchangeRate", price.get().exchangeRate());
            found.add(new Candidate("estimated", cost, CONFIDENCE_ESTIMATED,
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

    /** Doing the job's current work for a month at the candidate's cost per unit instead of its own. */
    private static double monthlySaving(JobView job, Candidate candidate) {
        return monthlySaving(job, candidate.costPerMillionUnits());
    }

    private static double monthlySaving(JobView job, double costPerMillionUnits) {
        return (job.costPerMillionUnits() - costPerMillionUnits) / PER_MILLION * job.workUnitsPerHour()
                * Recommendation.HOURS_PER_MONTH;
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
        evidence.put("currentCostPerMillionUnits", job.costPerMillionUnits());
        evidence.put("candidateCostPerMillionUnits", candidate.costPerMillionUnits());
        evidence.put("savingRatio", savingRatio);
        evidence.put("minSavingRatio", minSavingRatio);
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
