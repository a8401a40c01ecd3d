package io.gpuledger.alerts.recommend;

import static io.gpuledger.alerts.recommend.JobViewBuilder.job;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gpuledger.alerts.TestSettings;
import io.gpuledger.model.JobTraits;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Offer;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.Recommendation;
import io.gpuledger.model.RecommendationAction;
import io.gpuledger.model.RecommendationEvidence;
import io.gpuledger.model.WorkloadClass;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

class SwitchInstanceTypeRuleTest {

    private static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");
    private static final double GIB = 1024.0 * 1024 * 1024;
    private static final GpuCatalog CATALOG = GpuCatalog.defaults();
    private static final Offer P4D = onDemand("aws", "us-east-1", "p4d.24xlarge");
    private static final Offer P4DE = onDemand("aws", "us-east-1", "p4de.24xlarge");
    private static final Offer A2 = onDemand("gcp", "us-central1", "a2-highgpu-8g");
    private static final Offer G5 = onDemand("aws", "us-east-1", "g5.xlarge");
    private static final Offer G6 = onDemand("aws", "us-east-1", "g6.xlarge");
    private static final Reach ANYWHERE = new Reach(true, true, Reach.DEFAULT_EGRESS_PRICE_PER_GB);
    private final SwitchInstanceTypeRule rule = rule(0);

    /**
     * The p4d job: 8 x A100-40GB at 32.77/h doing 10M tokens an hour, 3.277 per 1M tokens,
     * 1.25M tokens per GPU-hour; busy computing (SM 0.8, DRAM 0.3).
     */
    private static JobViewBuilder p4dJob() {
        return job("job-1", P4D, "A100-40GB", 8, 32.77).work("tokens", 10_000_000);
    }

    static Stream<Arguments> estimates() {
        return Stream.of(
                // case, job, board (offer, price per instance-hour), chosen type (null: none), monthly saving,
                // confidence, where the speed ratio came from
                // The job names no class and computes (SM 0.8, DRAM 0.3): training. H100 / A100 by their
                // ResNet-50 training figures = 7006 / 3398 = 2.061801; p5 at 50: 6.25 per GPU-hour /
                // (1.25M x 2.061801) = 2.425064 per 1M; 1 - 2.425064 / 3.277 = 26.0% >= 15%;
                // (3.277 - 2.425064) x 10 x 720 = 6133.94
                Arguments.of("faster GPUs, cheaper per token", p4dJob().build(),
                        Map.of(onDemand("aws", "us-east-1", "p5.48xlarge"), 50.0), "p5.48xlarge", 6133.94, 0.5,
                        "table:training"),
                // at 80: 10 / (1.25 x 2.061801) = 3.880103 per 1M, dearer than 3.277 (the TFLOPS ratio 3.17
                // would have said 2.522 per 1M, 23% less)
                Arguments.of("H100 trains 2.06x an A100, not 3.17x", p4dJob().build(),
                        Map.of(onDemand("aws", "us-east-1", "p5.48xlarge"), 80.0), null, 0.0, null, null),
                // no ratio reported: a2-highgpu-8g, same A100-40GB, 24/8 = 3 per GPU-hour / 1.25M = 2.4 per 1M
                // (3.277 - 2.4) x 10 x 720 = 6314.40; p5 at list (12.29 / 2.577251 = 4.768645) is dearer
                Arguments.of("same GPUs elsewhere, cheaper", p4dJob().build(),
                        Map.of(A2, 24.0, onDemand("aws", "us-east-1", "p5.48xlarge"), 98.32), "a2-highgpu-8g",
                        6314.40, 0.5, "same-gpu-model"),
                // ratio 0.2 (not communication-bound) still weighs the network: a2 has 100 Gbit/s against 400,
                // speedup 1 / (0.8 / 1 + 0.2 / 0.25) = 0.625, 3 / (1.25M x 0.625) = 3.84 per 1M: dearer.
                // p5 at 60 (3200 Gbit/s, b = 8): speedup 1 / (0.8 / 2.061801 + 0.2 / 8) = 2.421247,
                // 7.5 / (1.25 x 2.421247) = 2.478062; (3.277 - 2.478062) x 10 x 720 = 5752.36
                Arguments.of("network weighed by the overhead ratio", p4dJob().communication(0.2).build(),
                        Map.of(A2, 24.0, onDemand("aws", "us-east-1", "p5.48xlarge"), 60.0), "p5.48xlarge",
                        5752.36, 0.5, "table:training"),
                // ratio 0.4, communication-bound: a2 at 8 (1 per GPU-hour) would estimate
                // 1 / (1.25 x 1 / (0.6 + 0.4 / 0.25)) = 1.76 per 1M, but its network is slower: not a candidate.
                // p5 at 60: speedup 1 / (0.6 / 2.061801 + 0.4 / 8) = 2.932485, 7.5 / (1.25 x 2.932485) = 2.046046
                // (3.277 - 2.046046) x 10 x 720 = 8862.87
                Arguments.of("communication-bound kept on a faster network", p4dJob().communication(0.4).build(),
                        Map.of(A2, 8.0, onDemand("aws", "us-east-1", "p5.48xlarge"), 60.0), "p5.48xlarge",
                        8862.87, 0.5, "table:training"),
                // p4de job (A100-80GB, 40.97/h, 4.097 per 1M) without a memory report: 40 GB GPUs do not qualify
                Arguments.of("no memory report: no smaller GPUs", p4deJob(null), Map.of(P4D, 32.77), null, 0.0,
                        null, null),
                // with a 30 GiB peak: p4d, the same training figure (3398 / 3398), 32.77 / 8 / 1.25M = 3.277
                // per 1M; (4.097 - 3.277) x 7200 = 5904
                Arguments.of("reported peak fits a smaller GPU", p4deJob(30 * GIB), Map.of(P4D, 32.77),
                        "p4d.24xlarge", 5904.0, 0.5, "table:training"),
                Arguments.of("reported peak does not fit", p4deJob(50 * GIB), Map.of(P4D, 32.77), null, 0.0, null,
                        null),
                // memory-bound L4 job (0.8048/h, 1M units/h): A10G has 600 / 300 = 2x the bandwidth,
                // 1.006 / 2 = 0.503 per 1M against 0.8048: 37.5% less; (0.8048 - 0.503) x 720 = 217.296
                Arguments.of("memory-bound to more bandwidth", g6Job(0.3, 0.7), Map.of(G5, 1.006), "g5.xlarge",
                        217.296, 0.5, "table:memory-bound"),
                // the same job computing: no training figure for either, so the datasheet: A10G has 70 / 121
                // of the TFLOPS, 1.006 / 0.578512 = 1.739 per 1M: dearer
                Arguments.of("compute-bound not to fewer TFLOPS", g6Job(0.9, 0.3), Map.of(G5, 1.006), null, 0.0,
                        null, null),
                // compute-bound A10G job (1.006/h): L4 has 121 / 70 = 1.728571x, 0.8048 / 1.728571 = 0.465587
                // per 1M; (1.006 - 0.465587) x 720 = 389.0975, from datasheet peaks: confidence 0.4
                Arguments.of("compute-bound to more TFLOPS", g5Job(0.9, 0.3), Map.of(G6, 0.8048), "g6.xlarge",
                        389.0975, 0.4, "datasheet:tensor-tflops"),
                // the same job memory-bound: L4 has half the bandwidth, 0.8048 / 0.5 = 1.6096 per 1M: dearer
                Arguments.of("memory-bound not to less bandwidth", g5Job(0.3, 0.7), Map.of(G6, 0.8048), null, 0.0,
                        null, null),
                // V100 serving on spot, a steady 2,800 images/s = 10.08M an hour at 0.918/h. T4 / V100 at
                // INT8 = 6112 / 4388 = 1.392890: one T4 carries the peak with 30% to spare (10.08M x 1.3 /
                // (10.08M x 1.392890) = 0.93 of one), so the T4 spot offer at 0.45 serves the same requests
                // for (0.918 - 0.45) x 720 = 336.96 a month less. By TFLOPS (65 / 125 = 0.52) it would take
                // ceil(1.3 / 0.52) = 3 T4s, 1.35/h: dearer.
                Arguments.of("inference: T4 out-serves a V100", p3InferenceJob(WorkloadClass.INFERENCE),
                        Map.of(spot("aws", "us-east-1", "g4dn.2xlarge"), 0.45), "g4dn.2xlarge", 336.96, 0.5,
                        "table:inference"),
                // the same job saying it trains: no T4 training figure, the datasheet's 0.52 says stay
                Arguments.of("training: a T4 does not replace a V100", p3InferenceJob(WorkloadClass.TRAINING),
                        Map.of(spot("aws", "us-east-1", "g4dn.2xlarge"), 0.45), null, 0.0, null, null));
    }

    @ParameterizedTest(name = "{0}: {3} {4}")
    @MethodSource("estimates")
    void shouldEstimateTheCostPerUnitOnOtherInstanceTypes(String name, JobView job, Map<Offer, Double> prices,
            String expectedType, double expectedSaving, Double expectedConfidence, String expectedSource) {
        // Given the job and the prices on the board, no other job to compare with
        PriceBoard board = board(prices);

        // When the rule judges it
        Optional<Recommendation> recommendation = rule.evaluate(job, List.of(job), board, CATALOG, NOW);

        // Then the best estimated candidate is chosen, with the saving of a month of the job's work
        if (expectedType == null) {
            assertThat(recommendation).isEmpty();
            return;
        }
        Recommendation found = recommendation.orElseThrow();
        assertThat(toPool(found).instanceType()).isEqualTo(expectedType);
        assertThat(found.estimatedMonthlySaving()).isCloseTo(expectedSaving, within(0.01));
        assertThat(evidence(found).basis()).isEqualTo("estimated");
        assertThat(estimate(found).performanceSource()).isEqualTo(expectedSource);
        assertThat(found.confidence()).isEqualTo(expectedConfidence);
    }

    @Test
    void shouldJudgeAnInferenceJobByTheInferenceFigureAndSaySo() {
        // Given the V100 inference job of the table above and the T4 spot offer at 0.45
        PriceBoard board = board(Map.of(spot("aws", "us-east-1", "g4dn.2xlarge"), 0.45));

        // When the rule judges it
        Recommendation found = rule.evaluate(p3InferenceJob(WorkloadClass.INFERENCE), List.of(), board, CATALOG,
                NOW).orElseThrow();

        // Then the T4 is 6112 / 4388 = 1.392890x as fast, so one carries the job's peak with its headroom, and
        // the same 10.08M images an hour cost 0.45 / 10.08 = 0.044643 per 1M there, against 0.918 / 10.08 =
        // 0.091071 now: what one T4 costs, not what its unused speed would make of a unit
        assertThat(estimate(found).workloadClass()).isEqualTo("inference");
        assertThat(estimate(found).workloadClassFrom()).isEqualTo("traits");
        assertThat(estimate(found).performanceSource()).isEqualTo("table:inference");
        assertThat(evidence(found).serving()).isTrue();
        assertThat(evidence(found).candidate().sizing().headroom()).isEqualTo(0.3);
        assertThat(estimate(found).performanceRatio()).isCloseTo(1.392890, within(1e-6));
        assertThat(evidence(found).candidateCostPerMillionUnits()).isCloseTo(0.044643, within(1e-6));
        assertThat(evidence(found).currentCostPerMillionUnits()).isCloseTo(0.091071, within(1e-6));
        assertThat(action(found).toInstances()).isEqualTo(1);
        assertThat(action(found).toGpus()).isEqualTo(1);
    }

    @Test
    void shouldPreferTheSpeedTheFleetMeasuredToThePublishedFigure() {
        // Given the p4d job (1.25M tokens per GPU-hour, exposed communication 0.2) running llama-7b,
        // another llama-7b job on A100s doing 1.35M per GPU-hour, two on H100s doing 3.5M and 3.9M,
        // all three paying too much to switch to (3.70, 3.50 and 3.53 per 1M), and p5 at 70
        JobTraits llama = new JobTraits("llama-7b", null, null, null);
        JobView job = p4dJob().traits(llama).communication(0.2).build();
        Offer a3 = onDemand("gcp", "us-central1", "a3-highgpu-8g");
        List<JobView> peers = List.of(job,
                job("a100-peer", A2, "A100-40GB", 8, 40.0).work("tokens", 10_800_000).traits(llama).build(),
                job("h100-peer-1", a3, "H100-80GB", 8, 98.0).work("tokens", 28_000_000).traits(llama).build(),
                job("h100-peer-2", a3, "H100-80GB", 8, 110.0).work("tokens", 31_200_000).traits(llama).build());
        PriceBoard board = board(Map.of(onDemand("aws", "us-east-1", "p5.48xlarge"), 70.0));

        // When the rule judges it
        Recommendation found = rule.evaluate(job, peers, board, CATALOG, NOW).orElseThrow();

        // Then llama-7b runs median(3.5, 3.9) / median(1.25, 1.35) = 3.7 / 1.3 = 2.846154x as fast on an
        // H100, and that whole ratio is the speedup (the network was in the measurement): 8.75 per GPU-hour
        // / (1.25 x 2.846154) = 2.459459 per 1M, 24.9% less; (3.277 - 2.459459) x 10 x 720 = 5886.29.
        // The training figure (2.061801) would say 8.75 / 2.577251 = 3.395090: dearer.
        assertThat(toPool(found).instanceType()).isEqualTo("p5.48xlarge");
        assertThat(evidence(found).basis()).isEqualTo("estimated");
        assertThat(estimate(found).performanceSource()).isEqualTo("fleet-measured");
        assertThat(estimate(found).measuredCandidateJobs()).isEqualTo(2);
        assertThat(estimate(found).measuredCurrentJobs()).isEqualTo(2);
        assertThat(estimate(found).performanceRatio()).isCloseTo(2.846154, within(1e-6));
        assertThat(estimate(found).estimatedSpeedup()).isCloseTo(2.846154, within(1e-6));
        assertThat(evidence(found).candidateCostPerMillionUnits()).isCloseTo(2.459459, within(1e-6));
        assertThat(found.estimatedMonthlySaving()).isCloseTo(5886.29, within(0.01));
        assertThat(found.confidence()).isEqualTo(0.7);
    }

    @Test
    void shouldEstimateAJobOnMigSlicesByTheWholeInstanceItWouldTake() {
        // Given a job on seven 1g.10gb slices (a seventh each) of one A100-40GB of a p4d (32.77 / 8 =
        // 4.09625 per GPU-hour) doing 1.25M tokens an hour: 4.09625 / 1.25 = 3.277 per 1M
        JobView job = job("job-mig", P4D, "A100-40GB", 7, 4.09625).gpuEquivalents(7 * (1.0 / 7))
                .work("tokens", 1_250_000).build();

        // When the rule judges it against a2-highgpu-8g, the same A100-40GB at 24 / 8 = 3 per GPU-hour,
        // and against a2-highgpu-1g, one A100-40GB at 3 an hour
        Optional<Recommendation> toEight = rule.evaluate(job, List.of(job), board(Map.of(A2, 24.0)), CATALOG, NOW);
        Recommendation toOne = rule.evaluate(job, List.of(job),
                board(Map.of(onDemand("gcp", "us-central1", "a2-highgpu-1g"), 3.0)), CATALOG, NOW).orElseThrow();

        // Then the 8-GPU instance is billed whole, 24 an hour for the one GPU its slices make: dearer. The
        // one-GPU instance does the 1.25M tokens its 7 x 1/7 = 1 GPU does for 3 an hour: 3 / 1.25 = 2.4 per
        // 1M, 1 - 2.4 / 3.277 = 26.8% less; (3.277 - 2.4) x 1.25 x 720 = 789.30 a month
        assertThat(toEight).isEmpty();
        assertThat(toPool(toOne).instanceType()).isEqualTo("a2-highgpu-1g");
        assertThat(evidence(toOne).candidateCostPerMillionUnits()).isCloseTo(2.4, within(1e-9));
        assertThat(toOne.estimatedMonthlySaving()).isCloseTo(789.30, within(0.01));
    }

    static Stream<Arguments> peers() {
        JobTraits llama = new JobTraits("llama-7b", null, null, null);
        return Stream.of(
                // case, job's traits, peer, expected confidence (null: no recommendation)
                // same workload on a2-highgpu-8g at 2.5 per 1M: (3.277 - 2.5) x 10 x 720 = 5594.40
                Arguments.of("same workload elsewhere", llama, peer(A2, 2.5, llama, "tokens"), 0.8),
                Arguments.of("another workload", llama, peer(A2, 2.5, new JobTraits("bert", null, null, null),
                        "tokens"), null),
                Arguments.of("same instance type", llama, peer(P4D, 2.5, llama, "tokens"), null),
                Arguments.of("bought another way", llama, peer(new Offer("gcp", "us-central1", "a2-highgpu-8g",
                        Lifecycle.SPOT), 2.5, llama, "tokens"), null),
                Arguments.of("another unit", llama, peer(A2, 2.5, llama, "samples"), null),
                // only the unit in common: a weaker comparison, and the peer's GPUs must hold the job
                Arguments.of("same unit, no workload named", null, peer(A2, 2.5, null, "tokens"), 0.6),
                Arguments.of("same unit, smaller GPUs", null,
                        peer(onDemand("aws", "us-east-1", "g4dn.xlarge"), 2.5, null, "tokens"), null),
                // 1 - 2.9 / 3.277 = 11.5%: below 15%
                Arguments.of("not cheaper enough", llama, peer(A2, 2.9, llama, "tokens"), null));
    }

    @ParameterizedTest(name = "{0}: confidence {3}")
    @MethodSource("peers")
    void shouldCompareWithJobsOfTheSameWorkloadOnOtherPools(String name, JobTraits traits, JobView peer,
            Double expectedConfidence) {
        // Given the p4d job and one other job, and no prices at all
        JobView job = p4dJob().traits(traits).build();

        // When the rule judges it
        Optional<Recommendation> recommendation = rule.evaluate(job, List.of(job, peer), new PriceBoard(), CATALOG,
                NOW);

        // Then only a comparable, cheaper enough job is taken as observed evidence
        if (expectedConfidence == null) {
            assertThat(recommendation).isEmpty();
            return;
        }
        Recommendation found = recommendation.orElseThrow();
        assertThat(found.confidence()).isEqualTo(expectedConfidence);
        assertThat(found.estimatedMonthlySaving()).isCloseTo(5594.40, within(0.01));
        assertThat(evidence(found).basis()).isEqualTo("observed");
        assertThat(evidence(found).candidate().observed().comparedJobId()).isEqualTo("peer");
        assertThat(toPool(found).offerKey()).isEqualTo(peer.pool().key());
    }

    @ParameterizedTest(name = "peer at {0} per 1M -> {1}")
    @MethodSource("observedAgainstEstimated")
    void shouldPreferAnObservedFigureToAnEstimateOfASimilarSaving(double peerCost, String expectedBasis) {
        // Given the p4d job, a peer of the same workload, and p5 at 50 (estimated 2.425064 per 1M)
        JobTraits llama = new JobTraits("llama-7b", null, null, null);
        JobView job = p4dJob().traits(llama).build();
        PriceBoard board = board(Map.of(onDemand("aws", "us-east-1", "p5.48xlarge"), 50.0));

        // When the rule weighs them
        Recommendation found = rule.evaluate(job, List.of(peer(A2, peerCost, llama, "tokens")), board, CATALOG,
                NOW).orElseThrow();

        // Then it takes the higher confidence x saving
        assertThat(evidence(found).basis()).isEqualTo(expectedBasis);
    }

    static Stream<Arguments> observedAgainstEstimated() {
        return Stream.of(
                // observed 0.8 x (3.277 - 2.7) x 7200 = 3323.52 beats estimated 0.5 x 6133.94 = 3066.97
                Arguments.of(2.7, "observed"),
                // observed at 3.0 saves 8.5%: not a candidate, the estimate stands
                Arguments.of(3.0, "estimated"));
    }

    @Test
    void shouldTakeTheCheapestPeerWorthItAndCountEveryCandidateWorthIt() {
        // Given the p4d job, p5 at 50 (estimated 2.425064 per 1M, worth it) and four other jobs of its workload
        JobTraits llama = new JobTraits("llama-7b", null, null, null);
        JobView job = p4dJob().traits(llama).build();
        PriceBoard board = board(Map.of(onDemand("aws", "us-east-1", "p5.48xlarge"), 50.0));
        List<JobView> peers = List.of(
                peer("peer-a", A2, 2.7, llama), // worth it
                peer("peer-b", A2, 2.5, llama), // worth it, the cheapest
                peer("peer-c", A2, 3.0, llama), // 8.5% less: not worth it
                peer("peer-d", P4D, 1.0, llama)); // the job's own pool: not another type

        // When the rule judges it
        Recommendation found = rule.evaluate(job, peers, board, CATALOG, NOW).orElseThrow();

        // Then the cheapest peer is the evidence, 0.8 x (3.277 - 2.5) x 7200 = 4475.52 against the
        // estimate's 0.5 x 6133.94, and two peers and the estimate were worth it
        assertThat(evidence(found).basis()).isEqualTo("observed");
        assertThat(evidence(found).candidate().observed().comparedJobId()).isEqualTo("peer-b");
        assertThat(evidence(found).candidatesWorthIt()).isEqualTo(3);
        assertThat(found.estimatedMonthlySaving()).isCloseTo((3.277 - 2.5) * 7200, within(0.01));
    }

    @ParameterizedTest(name = "peer at {0} per 1M, standing {1}: raised {2}")
    @CsvSource({
            // the p4d job pays 3.277 per 1M: 1 - 2.7 / 3.277 = 17.6% less, 2.9: 11.5%, 3.0: 8.5%
            "2.7, false, true",
            "2.9, false, false",
            "2.9, true,  true",
            "3.0, true,  false"})
    void shouldRaiseAtFifteenPercentAndWithdrawAStandingSwitchOnlyUnderTen(double peerCost, boolean held,
            boolean raised) {
        // Given the p4d job and a peer of its workload on a2 paying {@code peerCost} per 1M
        JobTraits llama = new JobTraits("llama-7b", null, null, null);
        JobView job = p4dJob().traits(llama).build();

        // When the rule judges it, its switch standing or not
        Optional<Recommendation> found = rule.evaluate(job, List.of(peer(A2, peerCost, llama, "tokens")),
                new PriceBoard(), CATALOG, NOW, held);

        // Then it is raised at 15% less, and a standing one withdrawn only under 10% less
        assertThat(found.isPresent()).isEqualTo(raised);
        found.ifPresent(r -> assertThat(evidence(r)).extracting(
                RecommendationEvidence.SwitchInstanceType::minSavingRatio,
                RecommendationEvidence.SwitchInstanceType::withdrawSavingRatio).containsExactly(0.15, 0.10));
    }

    @Test
    void shouldHoldBackASavingBelowTheMinimumMoney() {
        // Given the "faster GPUs" case (6133.94 a month) and a minimum of 6500
        PriceBoard board = board(Map.of(onDemand("aws", "us-east-1", "p5.48xlarge"), 50.0));

        // Then nothing is recommended; with a minimum of 6000 it is
        assertThat(rule(6500).evaluate(p4dJob().build(), List.of(), board, CATALOG, NOW)).isEmpty();
        assertThat(rule(6000).evaluate(p4dJob().build(), List.of(), board, CATALOG, NOW)).isPresent();
    }

    @Test
    void shouldNotJudgeAJobWithoutThroughputOrOnReservedCapacity() {
        // Given a board where p5 is far cheaper per unit
        PriceBoard board = board(Map.of(onDemand("aws", "us-east-1", "p5.48xlarge"), 10.0));
        JobView silent = job("job-1", P4D, "A100-40GB", 8, 32.77).build();
        JobView reserved = job("job-2", new Offer("aws", "us-east-1", "p4d.24xlarge", Lifecycle.RESERVED),
                "A100-40GB", 8, 21.3).work("tokens", 10_000_000).build();

        // Then a job that reports no work, or runs on a reservation, is left alone
        assertThat(rule.evaluate(silent, List.of(), board, CATALOG, NOW)).isEmpty();
        assertThat(rule.evaluate(reserved, List.of(), board, CATALOG, NOW)).isEmpty();
    }

    @Test
    void shouldDescribeTheSwitchForAutomationAndPeople() {
        // Given the "faster GPUs" case
        PriceBoard board = board(Map.of(onDemand("aws", "us-east-1", "p5.48xlarge"), 50.0));

        // When the rule judges it
        Recommendation found = rule.evaluate(p4dJob().build(), List.of(), board, CATALOG, NOW).orElseThrow();

        // Then the action names both pools and the evidence the model it used
        assertThat(found.id()).isEqualTo("switch_instance_type:job:job-1");
        assertThat(action(found).fromPool()).isEqualTo("aws|us-east-1|p4d.24xlarge|on-demand");
        assertThat(action(found).gpus()).isEqualTo(8);
        assertThat(toPool(found).gpuModel()).isEqualTo("H100-80GB");
        assertThat(toPool(found).pricePerHour()).isEqualTo(50.0);
        assertThat(estimate(found).workloadClass()).isEqualTo("training");
        assertThat(estimate(found).workloadClassFrom()).isEqualTo("default");
        assertThat(estimate(found).performanceSource()).isEqualTo("table:training");
        // 1 - 2.425064 / 3.277
        assertThat(evidence(found).savingRatio()).isCloseTo(0.259974, within(1e-6));
        assertThat(found.summary()).contains("job-1", "p5.48xlarge", "26% less");
        assertThat(found.expiresAt()).isEqualTo(NOW.plus(Duration.ofMinutes(15)));
    }

    /**
     * The rule with its defaults, but free to move a job to any provider and region: these cases compare
     * offers of several providers (where a job may go by default is AdviceOutsideItsAssumptionsTest's).
     */
    private static SwitchInstanceTypeRule rule(double minMonthlySaving) {
        return new SwitchInstanceTypeRule(TestSettings.recommendation(
                "gpuledger.recommendation.min-monthly-saving", String.valueOf(minMonthlySaving),
                "gpuledger.recommendation.switch-instance-type.other-regions", "true",
                "gpuledger.recommendation.switch-instance-type.other-providers", "true",
                "gpuledger.recommendation.ttl", "15m"));
    }

    private static JobView p4deJob(Double peakMemoryBytes) {
        return job("job-1", P4DE, "A100-80GB", 8, 40.97).work("tokens", 10_000_000)
                .traits(new JobTraits(null, null, null, peakMemoryBytes)).build();
    }

    private static JobView g6Job(double sm, double dram) {
        return job("job-1", G6, "L4-24GB", 1, 0.8048).work("samples", 1_000_000).activity(sm, dram).build();
    }

    /** A V100 on p3.2xlarge spot (0.918/h) serving a steady 2,800 images/s, naming its class of work. */
    private static JobView p3InferenceJob(WorkloadClass workloadClass) {
        return job("job-1", spot("aws", "us-east-1", "p3.2xlarge"), "V100-16GB", 1, 0.918)
                .work("images", 2_800 * 3_600).traits(new JobTraits("resnet50", null, null, null, workloadClass))
                .peak(2_800 * 3_600, 2_800 * 3_600).build();
    }

    private static JobView g5Job(double sm, double dram) {
        return job("job-1", G5, "A10G-24GB", 1, 1.006).work("samples", 1_000_000).activity(sm, dram).build();
    }

    /** Another job on {@code pool} paying {@code costPerMillion}: 10M units an hour on 8 GPUs. */
    private static JobView peer(Offer pool, double costPerMillion, JobTraits traits, String unit) {
        return peer("peer", pool, costPerMillion, traits, unit);
    }

    private static JobView peer(String id, Offer pool, double costPerMillion, JobTraits traits) {
        return peer(id, pool, costPerMillion, traits, "tokens");
    }

    private static JobView peer(String id, Offer pool, double costPerMillion, JobTraits traits, String unit) {
        String model = CATALOG.instance(pool).orElseThrow().gpuModel();
        return job(id, pool, model, 8, costPerMillion * 10).work(unit, 10_000_000).traits(traits).build();
    }

    private static Offer onDemand(String provider, String region, String type) {
        return new Offer(provider, region, type, Lifecycle.ON_DEMAND);
    }

    private static Offer spot(String provider, String region, String type) {
        return new Offer(provider, region, type, Lifecycle.SPOT);
    }

    private static PriceBoard board(Map<Offer, Double> prices) {
        PriceBoard board = new PriceBoard();
        prices.forEach((offer, price) -> board.update(new PriceQuote(offer.provider(), offer.region(),
                offer.instanceType(), offer.lifecycle(), null,
                CATALOG.instance(offer).orElseThrow().gpusPerInstance(), price, "USD", NOW.minusSeconds(3600),
                "test")));
        return board;
    }

    private static RecommendationAction.SwitchInstanceType action(Recommendation recommendation) {
        return (RecommendationAction.SwitchInstanceType) recommendation.action();
    }

    private static RecommendationAction.PricedOffer toPool(Recommendation recommendation) {
        return action(recommendation).toPool();
    }

    private static RecommendationEvidence.SwitchInstanceType evidence(Recommendation recommendation) {
        return (RecommendationEvidence.SwitchInstanceType) recommendation.evidence();
    }

    private static RecommendationEvidence.SwitchInstanceType.Estimate estimate(Recommendation recommendation) {
        return evidence(recommendation).candidate().estimate();
    }
}
