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
                // 2 instances: saving 22.939 x 2 = 45.878/h; each interrupted 0.05 times an hour, so the job
                // 0.05 x 2 = 0.1 times, each stalling both: 0.1 x 1/3 x 9.831 x 2 = 0.6554/h;
                // (45.878 - 0.6554) x 720 = 32560.272
                Arguments.of("two synchronous instances", 16, 8, 32.77, 9.831, checkpointsEveryHalfHour, 32560.272),
                // 32 instances checkpointing every 4 h: saving 22.939 x 32 = 734.048/h; lost (14400/2 + 300)/3600
                // = 2.083333 h; expected 0.05 x 32 x 2.083333 x 9.831 x 32 = 1048.64/h > 734.048: stay
                // (one rate for the whole job, 0.05 x 2.083333 x 9.831 x 32 = 32.77/h, would say move)
                Arguments.of("32 synchronous instances, 4 h checkpoints", 256, 8, 32.77, 9.831,
                        new JobTraits("llama-70b", true, 14400.0, null), null),
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
        Recommendation recommendation = rule.evaluate(view, board, NOW, false).orElseThrow();

        // Then it moves 7 x 1/7 / 1 = 1 instance: saving (10 - 3) x 1 = 7/h against
        // 0.05 x (1800 / 2 + 300) / 3600 x 3 x 1 = 0.05/h expected lost; (7 - 0.05) x 720 = 5004 a month
        assertThat((double) recommendation.evidence().get("instances")).isCloseTo(1.0, within(1e-9));
        assertThat(recommendation.estimatedMonthlySaving()).isCloseTo(5004.0, within(1e-6));
        assertThat(recommendation.action()).containsEntry("gpus", 7);
        assertThat(recommendation.evidence()).containsEntry("instancesExposed", 1);
    }

    @Test
    void shouldClaimTheHoursOfAMonthTheJobRuns() {
        // Given the interruptible p4d job checkpointing every half hour, which ran a third of the day
        // before its window's end
        JobView thirdOfTheDay = job("job-1", ON_DEMAND, "A100-40GB", 8, 32.77)
                .traits(new JobTraits("llama-7b", true, 1800.0, null)).ranShareOfTheDay(1.0 / 3).build();

        // When the rule judges it
        Recommendation recommendation = rule.evaluate(thirdOfTheDay, board(8, 32.77, 9.831, "USD"), NOW, false)
                .orElseThrow();

        // Then it nets 22.939 - 0.16385 = 22.77515 an hour it runs, for a third of 720 hours:
        // 22.77515 x 240 = 5466.036 a month
        assertThat(recommendation.estimatedMonthlySaving()).isCloseTo(5466.036, within(1e-6));
        assertThat((double) recommendation.evidence().get("hoursPerMonth")).isCloseTo(240, within(1e-9));
    }

    @Test
    void shouldNotCountARoundingErrorOfSliceSharesAsAnotherInstance() {
        // Given slice shares that add up to a hair over one GPU, on a one-GPU instance
        JobView view = job("job-mig", ON_DEMAND, "A100-40GB", 7, 10.0).gpuEquivalents(1 + 1e-12)
                .traits(new JobTraits("llama-7b", true, 1800.0, null)).build();

        // Then the job is exposed to the interruptions of one instance, not two
        assertThat(rule.evaluate(view, board(1, 10.0, 3.0, "USD"), NOW, false).orElseThrow().evidence())
                .containsEntry("instancesExposed", 1);
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
        Optional<Recommendation> recommendation = rule.evaluate(view, board, NOW, false);

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
        Recommendation recommendation = rule.evaluate(view, board(8, 32.77, 9.831, "USD"), NOW, false).orElseThrow();

        // Then the action names the spot pool, the evidence the expected loss
        assertThat(recommendation.id()).isEqualTo("move_to_spot:job:job-1");
        @SuppressWarnings("unchecked")
        Map<String, Object> toPool = (Map<String, Object>) recommendation.action().get("toPool");
        assertThat(toPool).containsEntry("offerKey", "aws|us-east-1|p4d.24xlarge|spot");
        assertThat((double) recommendation.evidence().get("expectedInterruptionCostPerHour")).isCloseTo(0.16385,
                within(1e-9));
        assertThat((double) recommendation.evidence().get("hoursLostPerInterruption")).isCloseTo(1.0 / 3,
                within(1e-12));
        assertThat(recommendation.evidence()).containsEntry("interruptionRateSource", "default")
                .containsEntry("interruptionsPerInstanceHour", 0.05)
                .containsEntry("instancesExposed", 1)
                .doesNotContainKey("interruptionFrequency");
        // The documented range of a move's confidence: 0.5 to 0.9
        assertThat(recommendation.confidence()).isBetween(0.5, 0.9);
        assertThat(recommendation.expiresAt()).isEqualTo(NOW.plus(Duration.ofMinutes(30)));
    }

    @Test
    void shouldBeLessSureOfAMoveThatBarelyPaysForItsRisk() {
        // Given the p4d job, whose move saves 22.939/h against an expected loss of 0.16385/h (under 1%),
        // and a job whose move saves 0.10/h against 0.04875/h (half of it: see jobs())
        JobView p4d = job("job-1", ON_DEMAND, "A100-40GB", 8, 32.77)
                .traits(new JobTraits("llama-7b", true, 1800.0, null)).build();
        JobView small = job("job-2", ON_DEMAND, "A100-40GB", 1, 1.00)
                .traits(new JobTraits("llama-7b", true, 7200.0, null)).build();

        // When the rule judges each
        double clear = rule.evaluate(p4d, board(8, 32.77, 9.831, "USD"), NOW, false).orElseThrow().confidence();
        double barely = rule.evaluate(small, board(1, 1.00, 0.90, "USD"), NOW, false).orElseThrow().confidence();

        // Then the move whose saving rests on the assumed interruption rate is the less sure one
        assertThat(barely).isLessThan(clear).isGreaterThanOrEqualTo(0.5);
        assertThat(clear).isLessThanOrEqualTo(0.9);
    }

    @Test
    void shouldTakeTheInterruptionRateFromTheSpotQuoteWhereTheFeedKnowsIt() {
        // Given the 32-instance job checkpointing every 4 h, and p4d spot in the AWS band 5-10% a month
        PriceBoard board = board(8, 32.77, null, "USD");
        board.update(quote(Lifecycle.SPOT, 8, 9.831, "USD").withInterruptionFrequency(0.10));
        JobView view = job("job-70b", ON_DEMAND, "A100-40GB", 256, 32.77 * 32)
                .traits(new JobTraits("llama-70b", true, 14400.0, null)).build();

        // When the rule judges it
        Recommendation recommendation = rule.evaluate(view, board, NOW, false).orElseThrow();

        // Then each instance is taken back 0.10 / 720 = 0.000138889 times an hour, the job 32 times as
        // often: 0.0044444/h; each loses (14400/2 + 300)/3600 = 2.083333 h on all 32 instances at spot:
        // 0.0044444 x 2.083333 x 9.831 x 32 = 2.912889/h; (22.939 x 32 - 2.912889) x 720
        // = (734.048 - 2.912889) x 720 = 526417.28 a month
        assertThat(recommendation.evidence()).containsEntry("interruptionRateSource", "catalog")
                .containsEntry("interruptionFrequency", 0.10)
                .containsEntry("instancesExposed", 32);
        assertThat((double) recommendation.evidence().get("interruptionsPerInstanceHour"))
                .isCloseTo(0.000138889, within(1e-9));
        assertThat((double) recommendation.evidence().get("jobInterruptionsPerHour")).isCloseTo(0.0044444,
                within(1e-7));
        assertThat((double) recommendation.evidence().get("expectedInterruptionCostPerHour")).isCloseTo(2.912889,
                within(1e-6));
        assertThat(recommendation.estimatedMonthlySaving()).isCloseTo(526417.28, within(0.01));
    }

    @Test
    void shouldLeaveAJobAlreadyOnSpotOrPricedInACurrencyWithoutARateAlone() {
        // Given a job already on spot, and one whose prices are quoted in CHF, which the rates table lacks
        JobTraits traits = new JobTraits("llama-7b", true, 1800.0, null);
        JobView onSpot = job("job-1", new Offer("aws", "us-east-1", "p4d.24xlarge", Lifecycle.SPOT), "A100-40GB", 8,
                9.831).traits(traits).build();
        JobView onDemand = job("job-2", ON_DEMAND, "A100-40GB", 8, 32.77).traits(traits).build();

        // Then neither is moved
        assertThat(rule.evaluate(onSpot, board(8, 32.77, 9.831, "USD"), NOW, false)).isEmpty();
        assertThat(rule.evaluate(onDemand, board(8, 32.77, 9.831, "CHF"), NOW, false)).isEmpty();
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
