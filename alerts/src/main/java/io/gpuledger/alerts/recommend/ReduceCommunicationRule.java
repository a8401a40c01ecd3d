package io.gpuledger.alerts.recommend;

import io.gpuledger.model.Offer;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.Recommendation;
import io.gpuledger.model.RecommendationKind;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * REDUCE_COMMUNICATION: a job that spends a large share of each step waiting on collectives, with the cheaper
 * of a faster interconnect or changes to the job; the arithmetic is in docs/recommendations.md.
 */
public final class ReduceCommunicationRule {

    public static final double DEFAULT_THRESHOLD = 0.25;
    public static final double DEFAULT_WITHDRAW_RATIO = 0.20;
    public static final double DEFAULT_RECOVERABLE_SHARE = 0.3;
    /** Half an hour of closed minutes; raised at an overhead of 0.25, withdrawn under 0.20. */
    public static final RecommendationRules.Evidence DEFAULT_EVIDENCE =
            new RecommendationRules.Evidence(Duration.ofMinutes(30), DEFAULT_THRESHOLD, DEFAULT_WITHDRAW_RATIO);

    /** What a job can change in itself to expose less communication, in the order worth trying. */
    public static final List<String> JOB_CHANGES = List.of("overlap-communication-with-compute",
            "gradient-accumulation", "gradient-compression");

    /*
     * Confidence: the overhead is measured and sustained, so that the money goes there is sure;
     * what a fix recovers is not. A faster network's effect follows from the bandwidths (0.6);
     * changes to the job recover an assumed share (0.4).
     */
    static final double CONFIDENCE_INTERCONNECT = 0.6;
    static final double CONFIDENCE_JOB_CHANGES = 0.4;

    /** What moving to a faster network would do for the job. */
    private record Interconnect(PriceQuote quote, String gpuModel, double networkGbps, double networkRatio,
            double costPerHour) {
    }

    private final double threshold;
    private final double withdrawRatio;
    private final double recoverableShare;
    private final double minMonthlySaving;
    private final Duration ttl;

    /**
     * @param threshold        overhead ratio at or above which it is raised
     * @param withdrawRatio    overhead ratio under which a standing recommendation is withdrawn
     * @param recoverableShare share of the communication cost that changes to the job are taken to recover
     * @param minMonthlySaving the least saving worth recommending, in the job's currency
     */
    public ReduceCommunicationRule(double threshold, double withdrawRatio, double recoverableShare,
            double minMonthlySaving, Duration ttl) {
        this.threshold = threshold;
        this.withdrawRatio = withdrawRatio;
        this.recoverableShare = recoverableShare;
        this.minMonthlySaving = minMonthlySaving;
        this.ttl = ttl;
    }

    /** As {@link #evaluate(JobView, PriceBoard, GpuCatalog, Instant, boolean)}, for a job with nothing standing. */
    public Optional<Recommendation> evaluate(JobView job, PriceBoard board, GpuCatalog catalog, Instant now) {
        return evaluate(job, board, catalog, now, false);
    }

    /** @param held whether the job's recommendation stands: then its ratio needs only reach the withdrawal ratio */
    public Optional<Recommendation> evaluate(JobView job, PriceBoard board, GpuCatalog catalog, Instant now,
            boolean held) {
        Double ratio = job.communicationOverheadRatio();
        if (ratio == null || !(ratio >= (held ? withdrawRatio : threshold))) {
            return Optional.empty();
        }
        double communicationCost = ratio * job.costPerHour();
        Optional<Double> network = catalog.networkGbps(job.pool());
        Optional<Interconnect> faster = network.flatMap(gbps -> fasterInterconnect(job, gbps, board, catalog))
                .filter(option -> option.costPerHour() < job.costPerHour());
        double hourlySaving = faster.map(option -> job.costPerHour() - option.costPerHour())
                .orElse(communicationCost * recoverableShare);
        double monthlySaving = hourlySaving * job.hoursPerMonth();
        if (held ? !(monthlySaving > 0) : monthlySaving < minMonthlySaving) {
            return Optional.empty();
        }

        Map<String, Object> evidence = new LinkedHashMap<>();
        evidence.put("communicationOverheadRatio", ratio);
        evidence.put("threshold", threshold);
        evidence.put("withdrawRatio", withdrawRatio);
        evidence.put("costPerHour", job.costPerHour());
        evidence.put("communicationCostPerHour", communicationCost);
        evidence.put("hoursPerMonth", job.hoursPerMonth());
        evidence.put("currency", job.currency());
        network.ifPresent(gbps -> evidence.put("networkGbps", gbps));
        Map<String, Object> action = new LinkedHashMap<>();
        action.put("jobId", job.jobId());
        if (faster.isPresent()) {
            Interconnect option = faster.get();
            evidence.put("candidateNetworkGbps", option.networkGbps());
            evidence.put("estimatedRatioAfter", ratioAfter(ratio, option.networkRatio()));
            action.put("fix", "faster-interconnect");
            action.put("fromPool", job.pool().key());
            action.put("toPool", OfferFields.of(option.quote(), option.gpuModel()));
        } else {
            evidence.put("recoverableShare", recoverableShare);
            action.put("fix", "job-changes");
        }
        action.put("jobChanges", JOB_CHANGES);

        String how = faster.map(option -> String.format(Locale.ROOT, "moving to %s (%.0f Gbit/s)",
                option.quote().instanceType(), option.networkGbps()))
                .orElse("overlapping, accumulating or compressing gradients");
        String summary = String.format(Locale.ROOT,
                "Job %s spends %.0f%% of each step communicating (%.2f %s/h); %s saves %.2f %s a month",
                job.jobId(), ratio * 100, communicationCost, job.currency(), how, monthlySaving, job.currency());
        return Optional.of(Recommendation.open(RecommendationKind.REDUCE_COMMUNICATION,
                Recommendation.Target.job(job.jobId()), summary, action, null, monthlySaving, job.currency(),
                faster.isPresent() ? CONFIDENCE_INTERCONNECT : CONFIDENCE_JOB_CHANGES, now, now.plus(ttl), evidence));
    }

    /** The cheapest way to run the job on a faster network of the same provider, region and GPUs. */
    private static Optional<Interconnect> fasterInterconnect(JobView job, double currentGbps, PriceBoard board,
            GpuCatalog catalog) {
        Offer pool = job.pool();
        Optional<String> model = catalog.instance(pool).map(GpuCatalog.InstanceSpec::gpuModel)
                .or(() -> Optional.ofNullable(job.gpuModel()));
        double c = job.communicationOverheadRatio();
        Interconnect best = null;
        for (PriceQuote quote : board.all()) {
            Optional<Double> gbps = catalog.networkGbps(quote.offer());
            boolean comparable = model.isPresent() && quote.provider().equals(pool.provider())
                    && quote.region().equals(pool.region()) && quote.lifecycle() == pool.lifecycle()
                    && quote.currency().equals(job.currency())
                    && catalog.modelOf(quote).map(model.get()::equalsIgnoreCase).orElse(false)
                    && gbps.isPresent() && gbps.get() > currentGbps;
            if (!comparable) {
                continue;
            }
            double networkRatio = gbps.get() / currentGbps;
            double costPerHour = quote.pricePerGpuHour() * job.gpuEquivalents() * ((1 - c) + c / networkRatio);
            if (best == null || costPerHour < best.costPerHour()) {
                best = new Interconnect(quote, model.get(), gbps.get(), networkRatio, costPerHour);
            }
        }
        return Optional.ofNullable(best);
    }

    /** The overhead ratio once communication takes {@code 1 / networkRatio} of its time. */
    private static double ratioAfter(double ratio, double networkRatio) {
        double communication = ratio / networkRatio;
        return communication / ((1 - ratio) + communication);
    }
}
