package io.gpuledger.alerts.recommend;

import io.gpuledger.alerts.AlertSettings;
import io.gpuledger.model.CapacityEvent;
import io.gpuledger.model.CapacityEventKind;
import io.gpuledger.model.EnrichedCapacityEvent;
import io.gpuledger.model.JobTraits;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.PlacedGpu;
import io.gpuledger.model.PlacedJob;
import io.gpuledger.model.PlacementStatus;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.Recommendation;
import io.gpuledger.model.RecommendationAction;
import io.gpuledger.model.RecommendationAction.PricedOffer;
import io.gpuledger.model.RecommendationEvidence;
import io.gpuledger.model.RecommendationKind;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * EVACUATE: the cloud is taking an instance back (spot interruption, preemption, deletion), so
 * the jobs on it must move before the deadline. The recommendation names the jobs with their
 * GPUs, the deadline, and a replacement pool to move them to.
 *
 * <p>The replacement is an <em>on-demand</em> offer of the same provider and region with the same
 * GPU model and at least as many GPUs per instance: the same instance type when it is priced (the
 * jobs fit it as they fitted the lost one), else the cheapest such type. Spot pools are not
 * suggested: a reclaim comes with a shortage of that spot capacity, and a move made under a
 * deadline of seconds should land on capacity that cannot be taken back again. Reserved offers
 * are not suggested either: a reservation is a commitment for a term, not capacity to be had now.
 *
 * <p>Acting saves no monthly amount (it avoids losing work), so the saving is 0; what is at stake
 * goes into the evidence: {@code costAtRiskPerHour}, and for each job that says how often it
 * checkpoints, the work a checkpoint before the deadline keeps, on average half an interval of the
 * whole job (a synchronous job loses the work of all its instances when one goes):
 * {@code expectedWorkAtRisk}. The action marks those jobs ({@code checkpoints}): checkpoint them
 * first, then drain.
 */
public final class EvacuateRule {

    /*
     * Confidence is how sure the rule is that these jobs must move now. The notice is the cloud's
     * own word, so the interruption is taken as certain; what varies is how well we know what runs
     * there: listed GPUs reported within the last minutes (CURRENT) 0.95, the instance was known
     * but its GPUs have gone quiet (OUTDATED) 0.75, nothing known of it (UNKNOWN) 0.6.
     */
    static final double CONFIDENCE_CURRENT = 0.95;
    static final double CONFIDENCE_OUTDATED = 0.75;
    static final double CONFIDENCE_UNKNOWN = 0.6;

    private final Duration ttl;

    /** Its record stands as long as {@code recommendation.ttl} when the cloud gives no deadline. */
    public EvacuateRule(AlertSettings.Recommendation recommendation) {
        this.ttl = recommendation.ttl();
    }

    /**
     * Whether a notice means the instance's capacity is lost to its jobs: spot interruption,
     * preemption and deletion. A rebalance recommendation is a risk, not a loss, maintenance
     * gives the instance back, and an instance its agent says is stopping is being shut down on
     * purpose, its jobs with it.
     */
    public static boolean isLossOfCapacity(CapacityEventKind kind) {
        return kind == CapacityEventKind.SPOT_INTERRUPTION || kind == CapacityEventKind.PREEMPTION
                || kind == CapacityEventKind.TERMINATION;
    }

    /** As {@link #evaluate(EnrichedCapacityEvent, PriceBoard, GpuCatalog, JobBook, Instant)}, no job known. */
    public Optional<Recommendation> evaluate(EnrichedCapacityEvent enriched, PriceBoard board, GpuCatalog catalog,
            Instant now) {
        return evaluate(enriched, board, catalog, null, now);
    }

    /** @param jobs what is known of the jobs: how often they checkpoint and what they cost; null when nothing */
    public Optional<Recommendation> evaluate(EnrichedCapacityEvent enriched, PriceBoard board, GpuCatalog catalog,
            JobBook jobs, Instant now) {
        CapacityEvent event = enriched.event();
        if (!isLossOfCapacity(event.kind())) {
            return Optional.empty();
        }
        if (event.deadline() != null && !event.deadline().isAfter(now)) {
            // Read after its deadline (a replay, a reader that was down): the instance is gone, and
            // an order to evacuate it would only mislead automation.
            return Optional.empty();
        }
        String lostModel = lostGpuModel(enriched, catalog);
        int lostGpus = lostGpuCount(enriched, catalog);
        List<PriceQuote> candidates = replacements(event, lostModel, lostGpus, board, catalog);
        Optional<PriceQuote> replacement = candidates.stream().findFirst();

        // What to move is the action; what each job costs is evidence. The quick join and the cost
        // engine's may see a job's cost a window apart, and that must not make a second record.
        Map<String, JobAtRisk> atRisk = atRisk(enriched.jobs(), jobs);
        var action = new RecommendationAction.Evacuate(event.instanceId(), event.deadline(),
                enriched.placementStatus() == PlacementStatus.CURRENT,
                enriched.jobs().stream().map(job -> new RecommendationAction.JobToMove(job.jobId(), job.gpus(),
                        atRisk.containsKey(job.jobId()))).toList(),
                replacement.map(quote -> PricedOffer.of(quote, lostModel)).orElse(null));

        var evidence = new RecommendationEvidence.Evacuate(event.eventId(), event.kind().name(), event.action(),
                event.noticedAt(), event.deadline(),
                event.deadline() == null ? null : Duration.between(now, event.deadline()).toMillis() / 1000.0,
                enriched.placementStatus().name(), jobCosts(enriched.jobs(), atRisk),
                atRisk.isEmpty() ? null : atRisk.values().stream().mapToDouble(JobAtRisk::expectedWork).sum(),
                enriched.placementUpdatedAt(), enriched.costPerHour(), enriched.currency(), enriched.unpricedGpus(),
                enriched.gpus().size(), lostModel, lostGpus, candidates.size());

        Recommendation.Target target = Recommendation.Target.instance(event);
        Instant expiresAt = event.deadline() != null ? event.deadline() : now.plus(ttl);
        return Optional.of(Recommendation.builder().open(RecommendationKind.EVACUATE, target, now)
                .summary(summary(enriched, replacement.orElse(null), lostModel)).action(action)
                .deadline(event.deadline()).currency(enriched.currency())
                .confidence(confidence(enriched.placementStatus())).expiresAt(expiresAt).evidence(evidence).build());
    }

    static double confidence(PlacementStatus status) {
        return switch (status) {
            case CURRENT -> CONFIDENCE_CURRENT;
            case OUTDATED -> CONFIDENCE_OUTDATED;
            case UNKNOWN -> CONFIDENCE_UNKNOWN;
        };
    }

    /** Priced on-demand offers that can take the lost instance's jobs, the best first. */
    private static List<PriceQuote> replacements(CapacityEvent event, String lostModel, int lostGpus,
            PriceBoard board, GpuCatalog catalog) {
        if (lostModel == null || event.region() == null) {
            return List.of();
        }
        Comparator<PriceQuote> sameTypeFirst = Comparator.comparing(
                quote -> !quote.instanceType().equalsIgnoreCase(String.valueOf(event.instanceType())));
        return board.all().stream()
                .filter(quote -> quote.lifecycle() == Lifecycle.ON_DEMAND)
                .filter(quote -> quote.provider().equals(event.provider()) && quote.region().equals(event.region()))
                .filter(quote -> quote.gpuCount() >= lostGpus)
                .filter(quote -> catalog.modelOf(quote).map(lostModel::equalsIgnoreCase).orElse(false))
                .sorted(sameTypeFirst.thenComparingDouble(PriceQuote::pricePerHour))
                .toList();
    }

    /** The model of the lost GPUs: the catalog's for the instance type, else what the GPUs reported. */
    private static String lostGpuModel(EnrichedCapacityEvent enriched, GpuCatalog catalog) {
        CapacityEvent event = enriched.event();
        return catalog.instance(event.provider(), event.instanceType()).map(GpuCatalog.InstanceSpec::gpuModel)
                .or(() -> enriched.gpus().stream().map(PlacedGpu::gpuModel).filter(model -> model != null).findFirst())
                .orElse(null);
    }

    /**
     * The GPUs of the lost instance: the catalog's for the type, else those listed (else as many as are known to run
     * jobs; a GPU several jobs share counts in each of them, so only where no GPU is listed).
     */
    private static int lostGpuCount(EnrichedCapacityEvent enriched, GpuCatalog catalog) {
        CapacityEvent event = enriched.event();
        int listed = !enriched.gpus().isEmpty() ? enriched.gpus().size()
                : enriched.jobs().stream().mapToInt(PlacedJob::gpus).sum();
        return catalog.instance(event.provider(), event.instanceType())
                .map(GpuCatalog.InstanceSpec::gpusPerInstance)
                .orElse(Math.max(1, listed));
    }

    /**
     * What a checkpoint before the deadline keeps of a job that says how often it checkpoints: half an
     * interval, on average, of what the whole job spends an hour.
     */
    private record JobAtRisk(double checkpointIntervalSeconds, double jobCostPerHour) {

        double expectedWork() {
            return checkpointIntervalSeconds / 2 / 3600 * jobCostPerHour;
        }
    }

    /**
     * The jobs whose checkpoint interval is known, by id, with what the whole job spends an hour: its own rate where
     * it is followed, at least what it spends on the lost instance (all that is known of a job seen only on shared
     * GPUs, whose windows place no job).
     */
    private static Map<String, JobAtRisk> atRisk(List<PlacedJob> placed, JobBook book) {
        Map<String, JobAtRisk> atRisk = new LinkedHashMap<>();
        if (book == null) {
            return atRisk;
        }
        for (PlacedJob job : placed) {
            Optional<JobView> view = book.view(job.jobId(), Duration.ofMinutes(1));
            JobTraits traits = view.map(JobView::traitsOrNone).orElseGet(() -> book.traits(job.jobId()));
            Double interval = traits.checkpointIntervalSeconds();
            if (interval != null && traits.isInterruptible()) {
                double jobCostPerHour = view.map(JobView::costPerHour).orElse(0.0);
                atRisk.put(job.jobId(), new JobAtRisk(interval, Math.max(jobCostPerHour, job.costPerHour())));
            }
        }
        return atRisk;
    }

    private static List<RecommendationEvidence.JobCost> jobCosts(List<PlacedJob> placed,
            Map<String, JobAtRisk> atRisk) {
        List<RecommendationEvidence.JobCost> jobs = new ArrayList<>();
        for (PlacedJob job : placed) {
            var cost = RecommendationEvidence.JobCost.of(job.jobId(), job.gpus(), job.costPerHour());
            JobAtRisk risk = atRisk.get(job.jobId());
            jobs.add(risk == null ? cost
                    : cost.checkpointing(risk.checkpointIntervalSeconds(), risk.jobCostPerHour(), risk.expectedWork()));
        }
        return jobs;
    }

    private static String summary(EnrichedCapacityEvent enriched, PriceQuote replacement, String lostModel) {
        CapacityEvent event = enriched.event();
        String what = event.kind().name().toLowerCase(Locale.ROOT).replace('_', ' ');
        String by = event.deadline() == null ? "now" : "by " + event.deadline();
        String jobs = enriched.placementStatus() == PlacementStatus.CURRENT
                ? "move " + enriched.jobs().size() + " job(s) on " + enriched.gpus().size() + " GPU(s)"
                : "move its jobs (not known: placement " + enriched.placementStatus().name().toLowerCase(Locale.ROOT)
                        + ")";
        String to = replacement == null
                ? "; no priced on-demand replacement" + (lostModel == null ? " known" : " with " + lostModel + " known")
                : String.format(Locale.ROOT, " to %s on-demand at %.2f %s/h", replacement.instanceType(),
                        replacement.pricePerHour(), replacement.currency());
        return String.format(Locale.ROOT, "%s %s of %s (%s, %s): %s %s%s", event.provider(), what,
                event.instanceId(), event.instanceType() == null ? "type unknown" : event.instanceType(),
                event.region() == null ? "region unknown" : event.region(), jobs, by, to);
    }
}
