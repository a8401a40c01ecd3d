package io.gpuledger.alerts.recommend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.assertj.core.api.Assertions.within;

import io.gpuledger.alerts.TestSettings;
import io.gpuledger.model.CapacityEvent;
import io.gpuledger.model.CapacityEventKind;
import io.gpuledger.model.EnrichedCapacityEvent;
import io.gpuledger.model.JobShare;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.PlacedGpu;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.Recommendation;
import io.gpuledger.model.RecommendationAction;
import io.gpuledger.model.RecommendationAction.JobToMove;
import io.gpuledger.model.RecommendationEvidence;
import io.gpuledger.model.RecommendationKind;
import io.gpuledger.model.TelemetrySample;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

class EvacuateRuleTest {

    private static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");
    private static final Instant DEADLINE = NOW.plusSeconds(120);
    private static final GpuCatalog CATALOG = GpuCatalog.defaults();
    private final EvacuateRule rule = new EvacuateRule(
            TestSettings.recommendation("gpuledger.recommendation.ttl", "10m"));

    @ParameterizedTest(name = "{0}: evacuate {1}")
    @CsvSource({
            "SPOT_INTERRUPTION,        true",
            "PREEMPTION,               true",
            "TERMINATION,              true",
            "REBALANCE_RECOMMENDATION, false",
            "MAINTENANCE,              false",
            "INSTANCE_STOPPING,        false"})
    void shouldEvacuateOnlyWhenTheCapacityIsLost(CapacityEventKind kind, boolean evacuates) {
        // Given a notice of this kind for a spot g4dn.xlarge running one job
        EnrichedCapacityEvent notice = placed(event(kind, "g4dn.xlarge", Lifecycle.SPOT, DEADLINE), "job-a");

        // When the rule sees it
        Optional<Recommendation> recommendation = rule.evaluate(notice, board(), CATALOG, NOW);

        // Then only a loss of capacity asks for an evacuation
        assertThat(recommendation.isPresent()).isEqualTo(evacuates);
    }

    @Test
    void shouldNotAskToEvacuateAnInstanceWhoseDeadlineHasPassed() {
        // Given a notice read one second after its deadline (a replay, a reader that was down)
        EnrichedCapacityEvent late = placed(event(CapacityEventKind.SPOT_INTERRUPTION, "g4dn.xlarge",
                Lifecycle.SPOT, NOW.minusSeconds(1)), "job-a");

        // Then there is nothing left to evacuate; a deadline still ahead, by a second, is acted on
        assertThat(rule.evaluate(late, board(), CATALOG, NOW)).isEmpty();
        EnrichedCapacityEvent onTime = placed(event(CapacityEventKind.SPOT_INTERRUPTION, "g4dn.xlarge",
                Lifecycle.SPOT, NOW.plusSeconds(1)), "job-a");
        assertThat(rule.evaluate(onTime, board(), CATALOG, NOW)).isPresent();
    }

    @Test
    void shouldNameTheJobsTheDeadlineAndTheCostAtRisk() {
        // Given a spot interruption of a g4dn.12xlarge (4 x T4) running job-a on 3 GPUs and job-b on 1,
        // each GPU priced 0.30 USD/h at spot
        EnrichedCapacityEvent notice = placed(event(CapacityEventKind.SPOT_INTERRUPTION, "g4dn.12xlarge",
                Lifecycle.SPOT, DEADLINE), "job-a", "job-a", "job-a", "job-b");

        // When the rule sees it
        Recommendation recommendation = rule.evaluate(notice, board(), CATALOG, NOW).orElseThrow();

        // Then it targets the instance, names both jobs, and expires at the cloud's deadline
        assertThat(recommendation.id()).isEqualTo("evacuate:instance:i-1");
        assertThat(recommendation.kind()).isEqualTo(RecommendationKind.EVACUATE);
        assertThat(recommendation.deadline()).isEqualTo(DEADLINE);
        assertThat(recommendation.expiresAt()).isEqualTo(DEADLINE);
        assertThat(action(recommendation).deadline()).isEqualTo(DEADLINE);
        assertThat(action(recommendation).jobsKnown()).isTrue();
        assertThat(action(recommendation).jobs()).extracting(JobToMove::jobId, JobToMove::gpus)
                .containsExactly(tuple("job-a", 3), tuple("job-b", 1));
        // job-a: 3 x 0.30 = 0.90 USD/h, as evidence
        var evidence = (RecommendationEvidence.Evacuate) recommendation.evidence();
        assertThat(evidence.jobs().get(0).costPerHour()).isCloseTo(0.9, within(1e-9));
        // 4 GPUs x 0.30 = 1.20 USD/h at risk; nothing is saved by moving
        assertThat(evidence.costAtRiskPerHour()).isCloseTo(1.2, within(1e-9));
        assertThat(evidence.secondsToDeadline()).isEqualTo(120.0);
        assertThat(recommendation.estimatedMonthlySaving()).isZero();
        assertThat(recommendation.confidence()).isEqualTo(0.95);
        assertThat(recommendation.summary()).contains("i-1", "2 job(s) on 4 GPU(s)", "g4dn.12xlarge on-demand");
    }

    static Stream<Arguments> replacements() {
        List<String> allTypes = List.of("g4dn.xlarge", "g4dn.2xlarge", "g4dn.12xlarge", "g4dn.metal");
        return Stream.of(
                // lost instance, its lifecycle, types priced on demand, expected replacement
                // on-demand of the same type (0.526) beats a cheaper other type (g4dn.2xlarge, 0.50)
                Arguments.of("g4dn.xlarge", Lifecycle.SPOT, allTypes, "aws|us-east-1|g4dn.xlarge|on-demand"),
                // same type not priced: the cheapest fitting on-demand type, 0.50 < 3.912 < 7.824
                Arguments.of("g4dn.xlarge", Lifecycle.SPOT, List.of("g4dn.metal", "g4dn.12xlarge", "g4dn.2xlarge"),
                        "aws|us-east-1|g4dn.2xlarge|on-demand"),
                // 4 GPUs needed: only g4dn.12xlarge (4) and g4dn.metal (8) fit; same type first
                Arguments.of("g4dn.12xlarge", Lifecycle.SPOT, allTypes, "aws|us-east-1|g4dn.12xlarge|on-demand"),
                // the 1-GPU types are cheaper but too small
                Arguments.of("g4dn.12xlarge", Lifecycle.SPOT, List.of("g4dn.xlarge", "g4dn.2xlarge", "g4dn.metal"),
                        "aws|us-east-1|g4dn.metal|on-demand"),
                // an on-demand instance being deleted is replaced by another of its kind
                Arguments.of("g4dn.xlarge", Lifecycle.ON_DEMAND, allTypes, "aws|us-east-1|g4dn.xlarge|on-demand"));
    }

    @ParameterizedTest(name = "{0} {1}, on demand {2} -> {3}")
    @MethodSource("replacements")
    void shouldSuggestTheBestOnDemandPoolWithTheSameGpusAndNeverASpotPool(String lostType, Lifecycle lifecycle,
            List<String> onDemandTypes, String expected) {
        // Given T4 offers in us-east-1: every type on spot at 0.15 (cheapest of all), some on demand
        PriceBoard board = board(onDemandTypes);
        EnrichedCapacityEvent notice = placed(event(CapacityEventKind.PREEMPTION, lostType, lifecycle, DEADLINE),
                "job-a");

        // When the rule picks a replacement
        Recommendation recommendation = rule.evaluate(notice, board, CATALOG, NOW).orElseThrow();

        // Then it is the expected on-demand pool
        RecommendationAction.PricedOffer pool = action(recommendation).replacementPool();
        assertThat(pool.offerKey()).isEqualTo(expected);
        assertThat(pool.lifecycle()).isEqualTo(Lifecycle.ON_DEMAND);
        assertThat(pool.gpuModel()).isEqualTo("T4-16GB");
    }

    @ParameterizedTest(name = "{0}: confidence {1}")
    @CsvSource({"CURRENT, 0.95", "OUTDATED, 0.75", "UNKNOWN, 0.6"})
    void shouldStillEvacuateAnInstanceWhosePlacementIsNotKnownWithLowerConfidence(String status, double confidence) {
        // Given a preemption whose instance's GPUs are listed, gone quiet, or never seen
        CapacityEvent event = event(CapacityEventKind.PREEMPTION, "g4dn.xlarge", Lifecycle.SPOT, null);
        EnrichedCapacityEvent notice = switch (status) {
            case "CURRENT" -> placed(event, "job-a");
            case "OUTDATED" -> EnrichedCapacityEvent.placed(event, NOW.minusSeconds(600), List.of());
            default -> EnrichedCapacityEvent.unplaced(event);
        };

        // When the rule sees it
        Recommendation recommendation = rule.evaluate(notice, board(), CATALOG, NOW).orElseThrow();

        // Then it still asks to evacuate, with the confidence of what is known; no deadline: now + ttl
        assertThat(recommendation.confidence()).isCloseTo(confidence, within(1e-9));
        assertThat(action(recommendation).jobsKnown()).isEqualTo(status.equals("CURRENT"));
        assertThat(action(recommendation).replacementPool()).isNotNull();
        assertThat(recommendation.deadline()).isNull();
        assertThat(recommendation.expiresAt()).isEqualTo(NOW.plus(Duration.ofMinutes(10)));
    }

    @Test
    void shouldSaySoWhenNoReplacementIsKnown() {
        // Given an interruption of an instance type the catalog does not know, with no GPUs listed
        EnrichedCapacityEvent notice = EnrichedCapacityEvent.unplaced(
                event(CapacityEventKind.SPOT_INTERRUPTION, "x9.huge", Lifecycle.SPOT, DEADLINE));

        // When the rule sees it
        Recommendation recommendation = rule.evaluate(notice, board(), CATALOG, NOW).orElseThrow();

        // Then it asks to evacuate without a made-up replacement
        assertThat(action(recommendation).replacementPool()).isNull();
        assertThat(((RecommendationEvidence.Evacuate) recommendation.evidence()).replacementCandidates()).isZero();
        assertThat(recommendation.summary()).contains("no priced on-demand replacement");
    }

    @Test
    void shouldCountAGpuThatSeveralJobsShareOnceInWhatIsLost() {
        // Given an interruption of an instance type the catalog does not know whose one T4, at 0.30 USD/h, three
        // jobs share
        PlacedGpu shared = new PlacedGpu("GPU-0", 0, "T4-16GB", TelemetrySample.SHARED_JOB, 0.3, "USD",
                NOW.minusSeconds(30), List.of(new JobShare("replica-a", 0.4), new JobShare("replica-b", 0.3),
                        new JobShare("notebook", 0.2)));
        EnrichedCapacityEvent notice = EnrichedCapacityEvent.placed(
                event(CapacityEventKind.SPOT_INTERRUPTION, "x9.huge", Lifecycle.SPOT, DEADLINE), NOW.minusSeconds(30),
                List.of(shared));

        // When the rule sees it
        Recommendation recommendation = rule.evaluate(notice, board(), CATALOG, NOW).orElseThrow();

        // Then one GPU is lost, not one per job, and its replacement is the cheapest one-T4 offer on demand
        assertThat(((RecommendationEvidence.Evacuate) recommendation.evidence()).gpusPerInstance()).isEqualTo(1);
        assertThat(action(recommendation).jobs()).hasSize(3);
        assertThat(action(recommendation).replacementPool().offerKey()).contains("g4dn.2xlarge");
    }

    private static PriceBoard board() {
        return board(List.of("g4dn.xlarge", "g4dn.2xlarge", "g4dn.12xlarge", "g4dn.metal"));
    }

    /**
     * T4 offers in us-east-1: every type on spot at 0.15, the {@code onDemandTypes} on demand
     * (g4dn.2xlarge at a made-up 0.50, below g4dn.xlarge); a cheaper T4 elsewhere, an A10G here.
     */
    private static PriceBoard board(List<String> onDemandTypes) {
        PriceBoard board = new PriceBoard();
        Map<String, Double> onDemand = Map.of("g4dn.xlarge", 0.526, "g4dn.2xlarge", 0.50, "g4dn.12xlarge", 3.912,
                "g4dn.metal", 7.824);
        onDemand.forEach((type, price) -> {
            if (onDemandTypes.contains(type)) {
                board.update(quote(type, Lifecycle.ON_DEMAND, price));
            }
            board.update(quote(type, Lifecycle.SPOT, 0.15));
        });
        board.update(new PriceQuote("aws", "us-west-2", "g4dn.xlarge", Lifecycle.ON_DEMAND, "T4-16GB", 1, 0.1,
                "USD", NOW.minusSeconds(3600), "test"));
        board.update(new PriceQuote("aws", "us-east-1", "g5.xlarge", Lifecycle.ON_DEMAND, "A10G-24GB", 1, 0.2,
                "USD", NOW.minusSeconds(3600), "test"));
        return board;
    }

    private static PriceQuote quote(String type, Lifecycle lifecycle, double price) {
        int gpus = CATALOG.instance("aws", type).orElseThrow().gpusPerInstance();
        return new PriceQuote("aws", "us-east-1", type, lifecycle, null, gpus, price, "USD",
                NOW.minusSeconds(3600), "test");
    }

    private static CapacityEvent event(CapacityEventKind kind, String type, Lifecycle lifecycle, Instant deadline) {
        return new CapacityEvent(1, "aws:i-1:" + kind, "aws", "us-east-1", "i-1", type, "node-1", lifecycle, kind,
                "terminate", NOW.minusSeconds(1), deadline, "imds", null);
    }

    /** The notice with one GPU per job named, each at 0.30 USD/h. */
    private static EnrichedCapacityEvent placed(CapacityEvent event, String... jobOfGpu) {
        List<PlacedGpu> gpus = new ArrayList<>();
        for (int i = 0; i < jobOfGpu.length; i++) {
            gpus.add(new PlacedGpu("GPU-" + i, i, "T4-16GB", jobOfGpu[i], 0.3, "USD", NOW.minusSeconds(30)));
        }
        return EnrichedCapacityEvent.placed(event, NOW.minusSeconds(30), gpus);
    }

    private static RecommendationAction.Evacuate action(Recommendation recommendation) {
        return (RecommendationAction.Evacuate) recommendation.action();
    }
}
