package io.gpuledger.alerts.recommend;

import static io.gpuledger.alerts.recommend.JobViewBuilder.job;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gpuledger.model.JobTraits;
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

class MoveToSpotRuleTest {

    private static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");
    private static final Offer ON_DEMAND = new Offer("aws", "us-east-1", "p4d.24xlarge", Lifecycle.ON_DEMAND);
    private final MoveToSpotRule rule = new MoveToSpotRule(MoveToSpotRule.DEFAULT_INTERRUPTIONS_PER_HOUR,
            MoveToSpotRule.DEFAULT_RESTART_ALLOWANCE_SECONDS, 0, 0.10, 0, Duration.ofMinutes(30));

    static Stream<Arguments> jobs() {
        JobTraits checkpointsEveryHalfHour = new JobTraits("llama-7b", true, 1800.0, null);
        JobTraits checkpointsEveryTwoHours = new JobTraits("llama-7b", true, 7200.0, null);
        return Stream.of(
                // case, GPUs, instance GPUs, on demand, spot, traits, monthly saving (null: no move)
                // 1 instance; saving 32.77 - 9.831 = 22.939/h; lost (1800/2 + 300)/3600 = 1/3 h per interruption;
                // expected 0.05 x 1/3 x 9.831 = 0.16385/h; (22.939 - 0.16385) x 720 = 16398.108
                Arguments.of("p4d list prices", 8, 8, 32.77, 9.831, checkpointsEveryHalfHour, 16398.108),
                // 2 of 8 GPUs: a quarter of it all, 4099.527
                Arguments.of("a quarter instance", 2, 8, 32.77, 9.831, checkpointsEveryHalfHour, 4099.527),
                // saving 0.10/h; lost (3600 + 300)/3600 = 1.08333 h; expected 0.05 x 1.08333 x 0.90 = 0.04875/h
                // (0.10 - 0.04875) x 720 = 36.9
                Arguments.of("saving just above the risk", 1, 1, 1.00, 0.90, checkpointsEveryTwoHours, 36.9),
                // saving 0.05/h; expected 0.05 x 1.08333 x 0.95 = 0.0514583/h > 0.05
                Arguments.of("saving just below the risk", 1, 1, 1.00, 0.95, checkpointsEveryTwoHours, null),
                Arguments.of("not interruptible", 8, 8, 32.77, 9.831, new JobTraits("llama-7b", false, 1800.0, null),
                        null),
                Arguments.of("interruptible not said", 8, 8, 32.77, 9.831, new JobTraits("llama-7b", null, 1800.0,
                        null), null),
                Arguments.of("no traits at all", 8, 8, 32.77, 9.831, null, null),
                Arguments.of("no checkpoint interval", 8, 8, 32.77, 9.831, new JobTraits("llama-7b", true, null,
                        null), null),
                Arguments.of("no spot offer", 8, 8, 32.77, null, checkpointsEveryHalfHour, null));
    }

    @Test
    void shouldMoveAJobOnSevenSlicesOfAOneGpuInstanceAsOneInstance() {
        // Given an interruptible job checkpointing every half hour on seven 1g.10gb slices (a seventh
        // each) of the one GPU of an instance sold at 10 USD/h on demand and 3 USD/h as spot
        PriceBoard board = board(1, 10.0, 3.0, "USD");
        JobView view = job("job-mig", ON_DEMAND, "A100-40GB", 7, 10.0).gpuEquivalents(7 * (1.0 / 7))
                .traits(new JobTraits("llama-7b", true, 1800.0, null)).build();

        // When the rule judges it
        Recommendation recommendation = rule.evaluate(view, board, NOW).orElseThrow();

        // Then it moves 7 x 1/7 / 1 = 1 instance: saving (10 - 3) x 1 = 7/h against
        // 0.05 x (1800 / 2 + 300) / 3600 x 3 x 1 = 0.05/h expected lost; (7 - 0.05) x 720 = 5004 a month
        assertThat((double) recommendation.evidence().get("instances")).isCloseTo(1.0, within(1e-9));
        assertThat(recommendation.estimatedMonthlySaving()).isCloseTo(5004.0, within(1e-6));
        assertThat(recommendation.action()).containsEntry("gpus", 7);
    }

    @ParameterizedTest(name = "{0}: {6}")
    @MethodSource("jobs")
    void shouldMoveAnInterruptibleJobToSpotWhenTheSavingOutweighsTheInterruptions(String name, int gpus,
            int instanceGpus, double onDemand, Double spot, JobTraits traits, Double expectedSaving) {
        // Given an on-demand job and the prices of its instance type
        PriceBoard board = board(instanceGpus, onDemand, spot, "USD");
        JobView view = job("job-1", ON_DEMAND, "A100-40GB", gpus, onDemand * gpus / instanceGpus)
                .traits(traits).build();

        // When the rule judges it
        Optional<Recommendation> recommendation = rule.evaluate(view, board, NOW);

        // Then it moves only when spot pays after the expected interruptions
        if (expectedSaving == null) {
            assertThat(recommendation).isEmpty();
        } else {
            assertThat(recommendation.orElseThrow().estimatedMonthlySaving()).isCloseTo(expectedSaving,
                    within(1e-6));
        }
    }

    @ParameterizedTest(name = "spot {0}, standing {1}: moved {2}")
    @CsvSource({
            // one 1.00/h instance, checkpoints every 2 h: (3600 + 300) / 3600 = 1.083333 h lost per
            // interruption. Spot 0.90: saving 0.10, expected 0.05 x 1.083333 x 0.90 = 0.04875, 51% left
            "0.90,  false, true",
            // spot 0.948: saving 0.052, expected 0.05 x 1.083333 x 0.948 = 0.05135, 0.00065 left: 1.25%
            "0.948, false, false",
            "0.948, true,  true",
            // spot 0.95: saving 0.05, expected 0.0514583: it loses money
            "0.95,  true,  false"})
    void shouldMoveWhenATenthOfTheSavingIsLeftAndWithdrawOnlyWhenItLosesMoney(double spot, boolean held,
            boolean moved) {
        // Given an interruptible job on a whole one-GPU instance at 1.00/h on demand
        JobView view = job("job-1", ON_DEMAND, "A100-40GB", 1, 1.00)
                .traits(new JobTraits("llama-7b", true, 7200.0, null)).build();

        // When the rule judges it at {@code spot}, its move standing or not
        Optional<Recommendation> recommendation = rule.evaluate(view, board(1, 1.00, spot, "USD"), NOW, held);

        // Then a move is raised when 10% of the saving is left after interruptions, and withdrawn under 0
        assertThat(recommendation.isPresent()).isEqualTo(moved);
        recommendation.ifPresent(r -> assertThat(r.evidence()).containsEntry("minNetSavingRatio", 0.10)
                .containsEntry("withdrawNetSavingRatio", 0.0));
    }

    @Test
    void shouldNameTheSpotPoolAndTheFiguresOfTheRisk() {
        // Given the p4d job on a whole instance, checkpointing every half hour
        JobView view = job("job-1", ON_DEMAND, "A100-40GB", 8, 32.77)
                .traits(new JobTraits("llama-7b", true, 1800.0, null)).build();

        // When the rule judges it
        Recommendation recommendation = rule.evaluate(view, board(8, 32.77, 9.831, "USD"), NOW).orElseThrow();

        // Then the action names the spot pool, the evidence the expected loss
        assertThat(recommendation.id()).isEqualTo("move_to_spot:job:job-1");
        @SuppressWarnings("unchecked")
        Map<String, Object> toPool = (Map<String, Object>) recommendation.action().get("toPool");
        assertThat(toPool).containsEntry("offerKey", "aws|us-east-1|p4d.24xlarge|spot");
        assertThat((double) recommendation.evidence().get("expectedInterruptionCostPerHour")).isCloseTo(0.16385,
                within(1e-9));
        assertThat((double) recommendation.evidence().get("hoursLostPerInterruption")).isCloseTo(1.0 / 3,
                within(1e-12));
        // 0.5 + 0.4 x (22.939 - 0.16385) / 22.939 = 0.5 + 0.4 x 0.992857 = 0.897143
        assertThat(recommendation.confidence()).isCloseTo(0.897143, within(1e-6));
        assertThat(recommendation.expiresAt()).isEqualTo(NOW.plus(Duration.ofMinutes(30)));
    }

    @Test
    void shouldLeaveAJobAlreadyOnSpotOrPricedInAnotherCurrencyAlone() {
        // Given a job already on spot, and one whose prices are quoted in another currency
        JobTraits traits = new JobTraits("llama-7b", true, 1800.0, null);
        JobView onSpot = job("job-1", new Offer("aws", "us-east-1", "p4d.24xlarge", Lifecycle.SPOT), "A100-40GB", 8,
                9.831).traits(traits).build();
        JobView onDemand = job("job-2", ON_DEMAND, "A100-40GB", 8, 32.77).traits(traits).build();

        // Then neither is moved
        assertThat(rule.evaluate(onSpot, board(8, 32.77, 9.831, "USD"), NOW)).isEmpty();
        assertThat(rule.evaluate(onDemand, board(8, 32.77, 9.831, "EUR"), NOW)).isEmpty();
    }

    private static PriceBoard board(int gpus, double onDemand, Double spot, String currency) {
        PriceBoard board = new PriceBoard();
        board.update(quote(Lifecycle.ON_DEMAND, gpus, onDemand, currency));
        if (spot != null) {
            board.update(quote(Lifecycle.SPOT, gpus, spot, currency));
        }
        return board;
    }

    private static PriceQuote quote(Lifecycle lifecycle, int gpus, double price, String currency) {
        return new PriceQuote("aws", "us-east-1", "p4d.24xlarge", lifecycle, "A100-40GB", gpus, price, currency,
                NOW.minusSeconds(3600), "test");
    }
}
