package io.gpuledger.alerts.recommend;

import static io.gpuledger.alerts.recommend.JobViewBuilder.WINDOW_END;
import static io.gpuledger.alerts.recommend.JobViewBuilder.job;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Offer;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.Recommendation;
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

    @ParameterizedTest(name = "[{0}] -> {1}")
    @CsvSource({
            // windows as minute:ratio ('-': no ratio reported); 3 in a row at or above 0.25 needed
            "'0:0.3 1:0.3 2:0.3',         3",
            "'0:0.3 1:0.3',               0",
            "'0:0.3 1:0.2 2:0.3 3:0.3',   0",  // a window below breaks the run
            "'0:0.3 1:0.2 2:0.3 3:0.3 4:0.3', 3",
            "'0:0.3 1:0.3 2:0.25',        3",  // exactly at the threshold counts
            "'0:0.24 1:0.24 2:0.24',      0",  // just below never does
            "'0:0.3 1:- 2:0.3 3:0.3',     0",  // a window without a ratio breaks the run
            "'0:0.3 0:0.3 0:0.3',         0",  // one window seen three times is one window
            "'0:0.3 1:0.3 1:0.3 2:0.3',   3",
            "'0:0.3 1:0.3 1:0.1 2:0.3',   0",  // a re-published window that turned low breaks the run
            "'0:0.3 1:0.3 2:0.3 1:0.3',   0",  // a late picture of an older window is not judged
            "'0:0.3 1:0.3 2:0.3 3:0.3 4:0.3', 5"})
    void shouldRecommendOnlyAnOverheadSustainedOverConsecutiveWindows(String windows, int expectedRun) {
        // Given a rule that needs 3 windows in a row, and the p4d job's windows in this order
        ReduceCommunicationRule rule = rule(3);
        Optional<Recommendation> last = Optional.empty();

        // When each picture is evaluated in turn
        for (String window : windows.split(" ")) {
            String[] parts = window.split(":");
            Double ratio = parts[1].equals("-") ? null : Double.valueOf(parts[1]);
            last = rule.evaluate(p4dJob(ratio, Integer.parseInt(parts[0])), new PriceBoard(), CATALOG,
                    WINDOW_END);
        }

        // Then the last one recommends only at the end of a long enough run
        if (expectedRun == 0) {
            assertThat(last).isEmpty();
        } else {
            assertThat(last.orElseThrow().evidence()).containsEntry("consecutiveWindows", expectedRun);
        }
    }

    static Stream<Arguments> fixes() {
        return Stream.of(
                // case, job, board, fix, target instance type, monthly saving, confidence
                // no faster p4d-like offer: 0.32 x 32.77 = 10.4864/h communicating; 30% of it x 720 = 2265.0624
                Arguments.of("nothing faster priced", p4dJob(0.32, 0), Map.of(P4D, 32.77), "job-changes", null,
                        2265.0624, 0.4),
                // g5.12xlarge (40 Gbit/s), 8 GPUs at 11.344/h, ratio 0.4; g5.48xlarge (100 Gbit/s, b = 2.5) at 12.0:
                // 1.5 per GPU-hour x 8 x (0.6 + 0.4 / 2.5) = 9.12/h; (11.344 - 9.12) x 720 = 1601.28
                Arguments.of("faster network pays", g5Job(), Map.of(onDemand("g5.48xlarge"), 12.0),
                        "faster-interconnect", "g5.48xlarge", 1601.28, 0.6),
                // g5.24xlarge (50 Gbit/s, b = 1.25) at 5.0: 1.25 x 8 x (0.6 + 0.32) = 9.20/h, dearer than 9.12
                Arguments.of("cheapest faster network", g5Job(),
                        Map.of(onDemand("g5.48xlarge"), 12.0, onDemand("g5.24xlarge"), 5.0),
                        "faster-interconnect", "g5.48xlarge", 1601.28, 0.6),
                // at its list price 16.288: 2.036 x 8 x 0.76 = 12.37888/h > 11.344, so change the job:
                // 0.4 x 11.344 x 0.3 x 720 = 980.1216
                Arguments.of("faster network dearer", g5Job(), Map.of(onDemand("g5.48xlarge"), 16.288),
                        "job-changes", null, 980.1216, 0.4),
                // 8 MIG-like slices making 4 GPUs (one g5.12xlarge, 5.672/h) are priced by the 4 GPUs:
                // 1.5 x 4 x (0.6 + 0.4 / 2.5) = 4.56/h there; (5.672 - 4.56) x 720 = 800.64
                Arguments.of("slices priced by the GPU they make",
                        job("job-1", G5_12, "A10G-24GB", 8, 5.672).gpuEquivalents(4).communication(0.4).build(),
                        Map.of(onDemand("g5.48xlarge"), 12.0), "faster-interconnect", "g5.48xlarge", 800.64, 0.6),
                // NC24s_v3's network is not published: nothing to compare; 0.3 x 12.24 x 0.3 x 720 = 793.152
                Arguments.of("network unknown",
                        job("job-1", new Offer("azure", "eastus", "Standard_NC24s_v3", Lifecycle.ON_DEMAND),
                                "V100-16GB", 4, 12.24).communication(0.3).build(),
                        Map.of(new Offer("azure", "eastus", "Standard_NC24rs_v3", Lifecycle.ON_DEMAND), 10.0),
                        "job-changes", null, 793.152, 0.4));
    }

    @ParameterizedTest(name = "{0}: {3} {4} {5}")
    @MethodSource("fixes")
    void shouldSuggestAFasterInterconnectWhenItPaysAndJobChangesOtherwise(String name, JobView job,
            Map<Offer, Double> prices, String fix, String toType, double saving, double confidence) {
        // Given a rule that judges on one window, and the prices on the board
        PriceBoard board = new PriceBoard();
        prices.forEach((offer, price) -> board.update(new PriceQuote(offer.provider(), offer.region(),
                offer.instanceType(), offer.lifecycle(), null,
                CATALOG.instance(offer).orElseThrow().gpusPerInstance(), price, "USD",
                Instant.parse("2026-01-01T00:00:00Z"), "test")));

        // When the job is judged
        Recommendation recommendation = rule(1).evaluate(job, board, CATALOG, WINDOW_END).orElseThrow();

        // Then the fix, its saving and its confidence are as computed by hand
        assertThat(recommendation.action()).containsEntry("fix", fix)
                .containsEntry("jobChanges", ReduceCommunicationRule.JOB_CHANGES);
        if (toType != null) {
            @SuppressWarnings("unchecked")
            Map<String, Object> toPool = (Map<String, Object>) recommendation.action().get("toPool");
            assertThat(toPool).containsEntry("instanceType", toType);
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
        Recommendation recommendation = rule(1).evaluate(g5Job(), board, CATALOG, WINDOW_END).orElseThrow();

        // Then: 0.4 x 11.344 = 4.5376/h communicating; after, 0.16 / (0.6 + 0.16) = 0.210526 of the step
        assertThat(recommendation.id()).isEqualTo("reduce_communication:job:job-1");
        assertThat((double) recommendation.evidence().get("communicationCostPerHour")).isCloseTo(4.5376,
                within(1e-9));
        assertThat((double) recommendation.evidence().get("estimatedRatioAfter")).isCloseTo(0.210526,
                within(1e-6));
        assertThat(recommendation.evidence()).containsEntry("networkGbps", 40.0)
                .containsEntry("candidateNetworkGbps", 100.0);
        assertThat(recommendation.summary()).contains("40%", "g5.48xlarge", "1601.28 USD");
        assertThat(recommendation.expiresAt()).isEqualTo(WINDOW_END.plus(Duration.ofMinutes(10)));
    }

    @Test
    void shouldStartAgainForAJobItWasToldToForget() {
        // Given two high windows of a job, then the job is forgotten
        ReduceCommunicationRule rule = rule(3);
        rule.evaluate(p4dJob(0.3, 0), new PriceBoard(), CATALOG, WINDOW_END);
        rule.evaluate(p4dJob(0.3, 1), new PriceBoard(), CATALOG, WINDOW_END);
        rule.forget("job-1");

        // Then a third high window is the first of a new run
        assertThat(rule.evaluate(p4dJob(0.3, 2), new PriceBoard(), CATALOG, WINDOW_END)).isEmpty();
    }

    @Test
    void shouldHoldBackASavingBelowTheMinimum() {
        // Given the p4d job saving 2265.06 a month by changing itself, and a minimum of 3000
        ReduceCommunicationRule demanding = new ReduceCommunicationRule(0.25, 1, 0.3, 3000, Duration.ofMinutes(10));

        // Then nothing is recommended
        assertThat(demanding.evaluate(p4dJob(0.32, 0), new PriceBoard(), CATALOG, WINDOW_END)).isEmpty();
    }

    private static ReduceCommunicationRule rule(int windows) {
        return new ReduceCommunicationRule(ReduceCommunicationRule.DEFAULT_THRESHOLD, windows,
                ReduceCommunicationRule.DEFAULT_RECOVERABLE_SHARE, 0, Duration.ofMinutes(10));
    }

    /** The p4d job (8 x A100-40GB, 32.77/h) with {@code ratio} in the window ending {@code minute} minutes in. */
    private static JobView p4dJob(Double ratio, int minute) {
        return job("job-1", P4D, "A100-40GB", 8, 32.77).communication(ratio)
                .windowEnd(WINDOW_END.plusSeconds(60L * minute)).build();
    }

    /** 8 GPUs on two g5.12xlarge (4 x A10G, 40 Gbit/s, 5.672/h each), 40% of each step communicating. */
    private static JobView g5Job() {
        return job("job-1", G5_12, "A10G-24GB", 8, 11.344).communication(0.4).build();
    }

    private static Offer onDemand(String type) {
        return new Offer("aws", "us-east-1", type, Lifecycle.ON_DEMAND);
    }
}
