package io.gpuledger.alerts.recommend;

import static io.gpuledger.alerts.recommend.JobViewBuilder.WINDOW_END;
import static io.gpuledger.alerts.recommend.JobViewBuilder.job;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gpuledger.alerts.TestSettings;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Offer;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.Recommendation;
import io.gpuledger.model.RecommendationAction;
import io.gpuledger.model.RecommendationEvidence;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

class ReduceCommunicationRuleTest {

    private static final GpuCatalog CATALOG = GpuCatalog.defaults();
    private static final Offer P4D = onDemand("p4d.24xlarge");
    private static final Offer G5_12 = onDemand("g5.12xlarge");

    @ParameterizedTest(name = "overhead {0}, standing {1}: raised {2}")
    @CsvSource({
            // raised at 0.25 and above; once it stands, kept down to 0.20
            "0.30,  false, true",
            "0.25,  false, true",
            "0.24,  false, false",
            "0.24,  true,  true",
            "0.20,  true,  true",
            "0.19,  true,  false",
            "0.10,  true,  false"})
    void shouldRaiseAtTheThresholdAndWithdrawOnlyUnderTheLowerOne(double overhead, boolean held, boolean raised) {
        // Given the p4d job with {@code overhead} over its period, and whether its recommendation stands
        JobView job = p4dJob(overhead);

        // When it is judged
        Optional<Recommendation> found = rule().evaluate(job, new PriceBoard(), CATALOG, WINDOW_END, held, true);

        // Then it is raised at 0.25, and a standing one withdrawn only under 0.20
        assertThat(found.isPresent()).isEqualTo(raised);
        found.ifPresent(r -> assertThat((RecommendationEvidence.ReduceCommunication) r.evidence()).extracting(
                RecommendationEvidence.ReduceCommunication::threshold,
                RecommendationEvidence.ReduceCommunication::withdrawRatio).containsExactly(0.25, 0.20));
    }

    @Test
    void shouldRaiseNothingForAJobThatReportsNoOverhead() {
        assertThat(rule().evaluate(p4dJob(null), new PriceBoard(), CATALOG, WINDOW_END, true, true)).isEmpty();
    }

    static Stream<Arguments> fixes() {
        return Stream.of(
                // case, job, board, fix, target instance type, monthly saving, confidence
                // no faster p4d-like offer: advice to change the job, claiming nothing it cannot show
                Arguments.of("nothing faster priced", p4dJob(0.32), Map.of(P4D, 32.77), "job-changes", null, 0.0,
                        0.4),
                // g5.12xlarge (40 Gbit/s), 8 GPUs at 11.344/h, ratio 0.4; one g5.48xlarge (8 GPUs, 100 Gbit/s,
                // b = 2.5) at 12.0 does the same work in 0.6 + 0.4 / 2.5 = 0.76 of the time: 9.12/h;
                // (11.344 - 9.12) x 720 = 1601.28
                Arguments.of("faster network pays", g5Job(), Map.of(onDemand("g5.48xlarge"), 12.0),
                        "faster-interconnect", "g5.48xlarge", 1601.28, 0.6),
                // two g5.24xlarge (4 GPUs each, 50 Gbit/s, b = 1.25) at 5.0: 10 x (0.6 + 0.32) = 9.20/h, dearer
                Arguments.of("cheapest faster network", g5Job(),
                        Map.of(onDemand("g5.48xlarge"), 12.0, onDemand("g5.24xlarge"), 5.0),
                        "faster-interconnect", "g5.48xlarge", 1601.28, 0.6),
                // at its list price 16.288: 16.288 x 0.76 = 12.37888/h > 11.344: advice to change the job
                Arguments.of("faster network dearer", g5Job(), Map.of(onDemand("g5.48xlarge"), 16.288),
                        "job-changes", null, 0.0, 0.4),
                // 8 MIG-like slices making 4 GPUs (one g5.12xlarge, 5.672/h) would take a whole g5.48xlarge, billed
                // whole: 12.0 x 0.76 = 9.12/h > 5.672: advice to change the job
                Arguments.of("a whole instance for part of it",
                        job("job-1", G5_12, "A10G-24GB", 8, 5.672).gpuEquivalents(4).communication(0.4).build(),
                        Map.of(onDemand("g5.48xlarge"), 12.0), "job-changes", null, 0.0, 0.4),
                // NC24s_v3's network is not published: nothing to compare
                Arguments.of("network unknown",
                        job("job-1", new Offer("azure", "eastus", "Standard_NC24s_v3", Lifecycle.ON_DEMAND),
                                "V100-16GB", 4, 12.24).communication(0.3).build(),
                        Map.of(new Offer("azure", "eastus", "Standard_NC24rs_v3", Lifecycle.ON_DEMAND), 10.0),
                        "job-changes", null, 0.0, 0.4));
    }

    @ParameterizedTest(name = "{0}: {3} {4} {5}")
    @MethodSource("fixes")
    void shouldSuggestAFasterInterconnectWhenItPaysAndJobChangesOtherwise(String name, JobView job,
            Map<Offer, Double> prices, String fix, String toType, double saving, double confidence) {
        // Given the prices on the board
        PriceBoard board = new PriceBoard();
        prices.forEach((offer, price) -> board.update(new PriceQuote(offer.provider(), offer.region(),
                offer.instanceType(), offer.lifecycle(), null,
                CATALOG.instance(offer).orElseThrow().gpusPerInstance(), price, "USD",
                Instant.parse("2026-01-01T00:00:00Z"), "test")));

        // When the job is judged
        Recommendation recommendation = rule().evaluate(job, board, CATALOG, WINDOW_END).orElseThrow();

        // Then the fix, its saving and its confidence are as computed by hand
        RecommendationAction.ReduceCommunication action =
                (RecommendationAction.ReduceCommunication) recommendation.action();
        assertThat(action.fix()).isEqualTo(fix);
        assertThat(action.jobChanges()).isEqualTo(ReduceCommunicationRule.JOB_CHANGES);
        if (toType != null) {
            assertThat(action.toPool().instanceType()).isEqualTo(toType);
        }
        assertThat(recommendation.estimatedMonthlySaving()).isCloseTo(saving, within(1e-6));
        assertThat(recommendation.confidence()).isEqualTo(confidence);
    }

    @Test
    void shouldExplainWhatCommunicationCostsAndWhatAFasterNetworkLeaves() {
        // Given the g5.12xlarge job and g5.48xlarge at 12.0
        PriceBoard board = new PriceBoard();
        board.update(new PriceQuote("aws", "us-east-1", "g5.48xlarge", Lifecycle.ON_DEMAND, "A10G-24GB", 8, 12.0,
                "USD", Instant.parse("2026-01-01T00:00:00Z"), "test"));

        // When it is judged
        Recommendation recommendation = rule().evaluate(g5Job(), board, CATALOG, WINDOW_END).orElseThrow();

        // Then: 0.4 x 11.344 = 4.5376/h communicating; after, 0.16 / (0.6 + 0.16) = 0.210526 of the step
        assertThat(recommendation.id()).isEqualTo("reduce_communication:job:job-1");
        var evidence = (RecommendationEvidence.ReduceCommunication) recommendation.evidence();
        assertThat(evidence.communicationCostPerHour()).isCloseTo(4.5376, within(1e-9));
        assertThat(evidence.interconnect().estimatedRatioAfter()).isCloseTo(0.210526, within(1e-6));
        assertThat(evidence.networkGbps()).isEqualTo(40.0);
        assertThat(evidence.interconnect().candidateNetworkGbps()).isEqualTo(100.0);
        assertThat(recommendation.summary()).contains("40%", "g5.48xlarge", "1601.28 USD");
        assertThat(recommendation.expiresAt()).isEqualTo(WINDOW_END.plus(Duration.ofMinutes(10)));
    }

    @Test
    void shouldClaimTheHoursOfAMonthTheJobRuns() {
        // Given the p4d job at 0.32, which ran a quarter of the day before its window's end
        JobView quarterDay = job("job-1", P4D, "A100-40GB", 8, 32.77).communication(0.32).ranShareOfTheDay(0.25)
                .build();

        // When it is judged
        Recommendation recommendation = rule().evaluate(quarterDay, new PriceBoard(), CATALOG, WINDOW_END)
                .orElseThrow();

        // Then its communication costs 0.32 x 32.77 = 10.4864 an hour for a quarter of 720 hours: 1887.552
        // a month, 0.32 x 180 = 57.6 hours of it spent communicating
        var evidence = (RecommendationEvidence.ReduceCommunication) recommendation.evidence();
        assertThat(evidence.communicationCostPerMonth()).isCloseTo(1887.552, within(1e-6));
        assertThat(evidence.exposedCommunicationHoursPerMonth()).isCloseTo(57.6, within(1e-9));
        assertThat(evidence.hoursPerMonth()).isCloseTo(180, within(1e-9));
    }

    @Test
    void shouldHoldBackAdviceOnCommunicationThatCostsLessThanTheMinimum() {
        // Given the p4d job whose communication costs 0.32 x 32.77 x 720 = 7550.21 a month, and a minimum of 10000
        ReduceCommunicationRule demanding = new ReduceCommunicationRule(TestSettings.recommendation(
                "gpuledger.recommendation.reduce-communication.min-ratio", "0.25",
                "gpuledger.recommendation.reduce-communication.withdraw-ratio", "0.20",
                "gpuledger.recommendation.min-monthly-saving", "10000",
                "gpuledger.recommendation.ttl", "10m"));

        // Then nothing is recommended
        assertThat(demanding.evaluate(p4dJob(0.32), new PriceBoard(), CATALOG, WINDOW_END)).isEmpty();
    }

    private static ReduceCommunicationRule rule() {
        return new ReduceCommunicationRule(TestSettings.recommendation(
                "gpuledger.recommendation.min-monthly-saving", "0",
                "gpuledger.recommendation.ttl", "10m"));
    }

    /** The p4d job (8 x A100-40GB, 32.77/h) with {@code ratio} over its period. */
    private static JobView p4dJob(Double ratio) {
        return job("job-1", P4D, "A100-40GB", 8, 32.77).communication(ratio).build();
    }

    /** 8 GPUs on two g5.12xlarge (4 x A10G, 40 Gbit/s, 5.672/h each), 40% of each step communicating. */
    private static JobView g5Job() {
        return job("job-1", G5_12, "A10G-24GB", 8, 11.344).communication(0.4).build();
    }

    private static Offer onDemand(String type) {
        return new Offer("aws", "us-east-1", type, Lifecycle.ON_DEMAND);
    }
}
