package io.gpuledger.alerts.recommend;

import io.gpuledger.alerts.AlertSettings;
import io.gpuledger.model.Offer;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.Recommendation;
import io.gpuledger.model.RecommendationAction.PricedOffer;
import io.gpuledger.model.RecommendationAction.ReduceCommunication;
import io.gpuledger.model.RecommendationEvidence;
import io.gpuledger.model.RecommendationKind;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * REDUCE_COMMUNICATION: a job that spends a large share of each step waiting on collectives. It
 * states what is measured: the exposed communication time and what it costs a month. It claims a
 * saving only for a remedy with a basis: a faster interconnect for the same GPUs in the job's
 * provider and region, priced like a switch (whole instances, the communication time scaled by the
 * networks' bandwidths). Changes to the job itself (overlapping, accumulating, compressing) are
 * named, but their effect is not known until the job measures it, so they claim nothing. The
 * arithmetic is in docs/recommendations.md.
 */
public final class ReduceCommunicationRule implements JobRule {

    /** What a job can change in itself to expose less communication, in the order worth trying. */
    public static final List<String> JOB_CHANGES = List.of("overlap-communication-with-compute",
            "gradient-accumulation", "gradient-compression");

    /*
     * Confidence: the overhead is measured and sustained, so that the money goes there is sure;
     * what a fix recovers is not. A faster network's effect follows from the bandwidths (0.6);
     * changes to the job are advice with no figure behind it (0.4).
     */
    static final double CONFIDENCE_INTERCONNECT = 0.6;
    static final double CONFIDENCE_JOB_CHANGES = 0.4;

    /** What moving to a faster network would do for the job. */
    private record Interconnect(PriceQuote quote, String gpuModel, double networkGbps, double networkRatio,
            int instances, double costPerHour, double costOfTheSameWorkPerHour, double exchangeRate) {
    }

    private final double threshold;
    private final double withdrawRatio;
    private final double minMonthlySaving;
    private final Duration ttl;

    /**
     * Reads the overhead ratios it is raised at and withdrawn under from {@code reduce-communication.*}; the
     * least saving a month (for a remedy that claims one) or cost of communication (for advice) worth raising,
     * and how long a record lives, from the recommendations' settings.
     */
    public ReduceCommunicationRule(AlertSettings.Recommendation recommendation) {
        this.threshold = recommendation.reduceCommunication().minRatio();
        this.withdrawRatio = recommendation.reduceCommunication().withdrawRatio();
        this.minMonthlySaving = recommendation.minMonthlySaving();
        this.ttl = recommendation.ttl();
    }

    /** Where the job may not move, only the changes it can make in itself. */
    @Override
    public Optional<Recommendation> judge(JobView job, Situation situation) {
        return evaluate(job, situation.board(), situation.catalog(), situation.now(),
                situation.standing().isPresent(), situation.mayMoveJob());
    }

    /** As {@link #evaluate(JobView, PriceBoard, GpuCatalog, Instant, boolean, boolean)}, nothing standing, any fix. */
    public Optional<Recommendation> evaluate(JobView job, PriceBoard board, GpuCatalog catalog, Instant now) {
        return evaluate(job, board, catalog, now, false, true);
    }

    /**
     * @param held       whether the job's recommendation stands: then its ratio needs only reach the withdrawal ratio
     * @param mayMoveJob whether a fix that moves the job may be named: not when another recommendation
     *                   already moves it elsewhere (a job is told one place to go)
     */
    public Optional<Recommendation> evaluate(JobView job, PriceBoard board, GpuCatalog catalog, Instant now,
            boolean held, boolean mayMoveJob) {
        Double ratio = job.communicationOverheadRatio();
        if (ratio == null || !(ratio >= (held ? withdrawRatio : threshold))) {
            return Optional.empty();
        }
        double communicationCostPerHour = ratio * job.costPerHour();
        double communicationCostPerMonth = communicationCostPerHour * job.hoursPerMonth();
        Optional<Double> network = catalog.networkGbps(job.pool());
        // A network between instances shortens only communication that crosses it: a job on one instance
        // communicates within it.
        boolean acrossInstances = catalog.gpusPerInstance(job.pool(), board)
                .map(per -> WholeInstances.spread(job, per)).orElse(false);
        Optional<Interconnect> faster = !mayMoveJob || !acrossInstances ? Optional.empty()
                : network.flatMap(gbps -> fasterInterconnect(job, gbps, board, catalog, now))
                        .filter(option -> option.costOfTheSameWorkPerHour() < job.costPerHour());
        double monthlySaving = faster.map(option -> (job.costPerHour() - option.costOfTheSameWorkPerHour())
                * job.hoursPerMonth()).orElse(0.0);
        if (faster.isPresent() && (held ? !(monthlySaving > 0) : monthlySaving < minMonthlySaving)) {
            faster = Optional.empty();
            monthlySaving = 0;
        }
        if (faster.isEmpty() && !held && communicationCostPerMonth < minMonthlySaving) {
            return Optional.empty();
        }

        ReduceCommunication action;
        RecommendationEvidence.ReduceCommunication.Interconnect interconnect = null;
        if (faster.isPresent()) {
            Interconnect option = faster.get();
            interconnect = new RecommendationEvidence.ReduceCommunication.Interconnect(option.networkGbps(),
                    option.networkRatio(), ratioAfter(ratio, option.networkRatio()), option.costPerHour(),
                    option.costOfTheSameWorkPerHour(), option.quote().currency(), option.exchangeRate());
            action = ReduceCommunication.interconnect(job.jobId(), job.pool().key(),
                    PricedOffer.of(option.quote(), option.gpuModel()), option.instances(),
                    JOB_CHANGES);
        } else {
            action = ReduceCommunication.jobChanges(job.jobId(), JOB_CHANGES);
        }
        var evidence = new RecommendationEvidence.ReduceCommunication(null, ratio, threshold, withdrawRatio,
                job.costPerHour(), communicationCostPerHour, ratio * job.hoursPerMonth(), communicationCostPerMonth,
                job.hoursPerMonth(), job.currency(), network.orElse(null),
                faster.isPresent() ? RecommendationEvidence.ReduceCommunication.BASIS_NETWORK
                        : RecommendationEvidence.ReduceCommunication.BASIS_NONE, interconnect, null);

        double saving = monthlySaving;
        String summary = faster.map(option -> String.format(Locale.ROOT,
                "Job %s spends %.0f%% of each step communicating (%.2f %s a month); on %d %s (%.0f Gbit/s) the same"
                        + " work costs %.2f %s a month less",
                job.jobId(), ratio * 100, communicationCostPerMonth, job.currency(), option.instances(),
                option.quote().instanceType(), option.networkGbps(), saving, job.currency()))
                .orElse(String.format(Locale.ROOT, "Job %s spends %.0f%% of each step communicating, %.2f %s a month;"
                        + " overlapping, accumulating or compressing gradients may recover part of it (not estimated)",
                        job.jobId(), ratio * 100, communicationCostPerMonth, job.currency()));
        return Optional.of(Recommendation.builder()
                .open(RecommendationKind.REDUCE_COMMUNICATION, Recommendation.Target.job(job.jobId()), now)
                .summary(summary).action(action).estimatedMonthlySaving(monthlySaving).currency(job.currency())
                .confidence(faster.isPresent() ? CONFIDENCE_INTERCONNECT : CONFIDENCE_JOB_CHANGES)
                .expiresAt(now.plus(ttl)).evidence(evidence).build());
    }

    /**
     * The cheapest way to run the job's GPUs on a faster network of the same provider, region, lifecycle
     * and GPU model, priced in whole instances in the job's currency.
     */
    private static Optional<Interconnect> fasterInterconnect(JobView job, double currentGbps, PriceBoard board,
            GpuCatalog catalog, Instant now) {
        Offer pool = job.pool();
        Optional<String> model = catalog.instance(pool).map(GpuCatalog.InstanceSpec::gpuModel)
                .or(() -> Optional.ofNullable(job.gpuModel()));
        if (model.isEmpty()) {
            return Optional.empty();
        }
        double c = job.communicationOverheadRatio();
        int gpus = WholeInstances.gpus(job.gpuEquivalents());
        Interconnect best = null;
        for (PriceQuote quote : board.all()) {
            if (!quote.provider().equals(pool.provider()) || !quote.region().equals(pool.region())
                    || quote.lifecycle() != pool.lifecycle()) {
                continue;
            }
            Optional<Double> gbps = catalog.networkGbps(quote.offer());
            boolean comparable = catalog.modelOf(quote).map(model.get()::equalsIgnoreCase).orElse(false)
                    && gbps.isPresent() && gbps.get() > currentGbps;
            Optional<PriceBoard.Price> price = comparable ? board.priceIn(quote, job.currency(), now)
                    : Optional.empty();
            if (price.isEmpty()) {
                continue;
            }
            double networkRatio = gbps.get() / currentGbps;
            int instances = WholeInstances.of(gpus, quote.gpuCount());
            double costPerHour = instances * price.get().pricePerHour();
            // The same work in less time: its steps take (1 − c) + c / b of what they take now.
            double sameWork = costPerHour * ((1 - c) + c / networkRatio);
            if (best == null || sameWork < best.costOfTheSameWorkPerHour()) {
                best = new Interconnect(quote, model.get(), gbps.get(), networkRatio, instances, costPerHour, sameWork,
                        price.get().exchangeRate());
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
