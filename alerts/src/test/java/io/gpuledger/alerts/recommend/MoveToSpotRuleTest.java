package io.gpuledger.alerts.recommend;

import static io.gpuledger.alerts.recommend.JobViewBuilder.job;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gpuledger.alerts.AlertSettings;
import io.gpuledger.alerts.TestSettings;
import io.gpuledger.model.JobTraits;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Offer;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.Recommendation;
import io.gpuledger.model.RecommendationAction.MoveToSpot;
import io.gpuledger.model.RecommendationEvidence;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The move to spot judged against what following it does in a simulated world
 * ({@link SpotGangSimulation}): each instance taken back at its own random times, the whole job
 * stopped and rolled back to its last checkpoint at any one of them, restarted after a wait.
 */
class MoveToSpotRuleTest {

    private static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");
    private static final Offer ON_DEMAND = new Offer("aws", "us-east-1", "p4d.24xlarge", Lifecycle.ON_DEMAND);
    private static final AlertSettings.Recommendation SETTINGS = TestSettings.recommendation(
            "gpuledger.recommendation.min-monthly-saving", "0",
            "gpuledger.recommendation.move-to-spot.min-net-saving-ratio", "0.10",
            "gpuledger.recommendation.move-to-spot.withdraw-net-saving-ratio", "0",
            "gpuledger.recommendation.ttl", "30m");
    /** The documented restart, from an interruption to work again. */
    private static final double RESTART_SECONDS = SETTINGS.spot().restart().toSeconds();
    private static final double RESTART_HOURS = RESTART_SECONDS / 3600;
    private final MoveToSpotRule rule = new MoveToSpotRule(SETTINGS);

    @ParameterizedTest(name = "{0} instances at {1}/h, checkpoint {2} h, restart {3} h")
    @CsvSource({
            "1,  0.05,  0.5, 0.25",
            "12, 0.05,  4,   0.25",
            "32, 0.01,  4,   0.5",
            "4,  0.002, 2,   1.0",
            "32, 0.05,  1,   0.25",
            "8,  0.1,   0.25, 0"})
    void shouldGiveTheShareOfTimeThatDoesWorkKeptAsASimulationOfTheSameProcessDoes(int instances, double rate,
            double checkpointHours, double restartHours) {
        // Given a synchronous job on spot, and 30,000 of its checkpoint intervals of work simulated
        SpotRenewal renewal = new SpotRenewal(instances, rate, checkpointHours, restartHours);
        SpotGangSimulation.Result simulated = SpotGangSimulation.run(instances, rate, checkpointHours, restartHours,
                30_000 * checkpointHours, instances, 17);

        // Then the closed form is within 2% of the simulated share, where counting each interruption's
        // loss as half an interval and a restart drifts from it as instances x rate x interval grows
        assertThat(renewal.usefulFraction()).isCloseTo(simulated.usefulFraction(),
                within(0.02 * simulated.usefulFraction()));
    }

    @Test
    void shouldClaimWhatFollowingSavesInAWorldAtTheBandsEdges() {
        // Given a job on one p4d checkpointing every half hour, spot in the AWS band 5-10% a month
        PriceBoard board = board(8, 32.77, null, "USD");
        board.update(quote(Lifecycle.SPOT, 8, 9.831, "USD").withInterruptionBand(0.10, 0.05));
        JobView view = job("job-1", ON_DEMAND, "A100-40GB", 8, 32.77)
                .traits(new JobTraits("llama-7b", true, 1800.0, null)).build();

        // When the rule judges it
        Recommendation move = rule.evaluate(view, board, NOW, false).orElseThrow();

        // Then it claims what a month of its work saves where instances are taken back at the band's upper
        // edge (10% a month), and shows what they save at the lower edge (5%), each as the simulation says
        assertThat(move.estimatedMonthlySaving()).isCloseTo(simulatedMonthlySaving(1, 0.10 / 720, 0.5),
                within(0.002 * move.estimatedMonthlySaving()));
        assertThat(evidence(move).monthlySavingAtBandLow())
                .isCloseTo(simulatedMonthlySaving(1, 0.05 / 720, 0.5), within(0.002 * move.estimatedMonthlySaving()));
        assertThat(evidence(move).interruptionRateSource()).isEqualTo("catalog");
        assertThat(evidence(move).interruptionFrequency()).isEqualTo(0.10);
        assertThat(evidence(move).interruptionFrequencyLow()).isEqualTo(0.05);
        assertThat(action(move).step()).isEqualTo(MoveToSpot.STEP_MOVE);
        assertThat(action(move).toInstances()).isEqualTo(1);
    }

    @Test
    void shouldNotMoveAGangThatWouldLoseMoneyAndSayWhichCheckpointIntervalWouldMakeSpotPay() {
        // Given a synchronous job on 12 p4d checkpointing every 4 hours, no interruption band known (one
        // interruption per 20 instance-hours, the rules' default)
        JobView gang = job("gang", ON_DEMAND, "A100-40GB", 96, 32.77 * 12)
                .traits(new JobTraits("llama-70b", true, 4.0 * 3600, null)).build();

        // When the rule judges it
        Recommendation advice = rule.evaluate(gang, board(8, 32.77, 9.831, "USD"), NOW, false).orElseThrow();

        // Then it does not move it: at its own interval a simulated year on spot pays more than on demand
        assertThat(simulatedMonthlySaving(12, 0.05, 4)).isNegative();
        assertThat(action(advice).toPool()).isNull();
        assertThat(action(advice).step()).isEqualTo(MoveToSpot.STEP_CHECKPOINT);
        // and the interval it names, whole minutes, makes spot pay what it claims, as the world shows it
        double hours = action(advice).checkpointIntervalSeconds() / 3600;
        assertThat(hours * 60).isEqualTo(Math.floor(hours * 60));
        double simulated = simulatedMonthlySaving(12, 0.05, hours);
        assertThat(simulated).isPositive();
        assertThat(advice.estimatedMonthlySaving()).isCloseTo(simulated, within(0.05 * simulated));
    }

    @Test
    void shouldKeepAdviceToCheckpointMoreOftenAsItWasNotTurnItIntoAMoveThatBarelyPays() {
        // Given the 12-instance gang told to checkpoint more often
        JobView gang = job("gang", ON_DEMAND, "A100-40GB", 96, 32.77 * 12)
                .traits(new JobTraits("llama-70b", true, 4.0 * 3600, null)).build();
        PriceBoard board = board(8, 32.77, 9.831, "USD");
        Recommendation first = rule.evaluate(gang, board, NOW, null).orElseThrow();

        // When it is judged again, unchanged, with that advice standing
        Recommendation again = rule.evaluate(gang, board, NOW.plusSeconds(60), "checkpoint-more-often")
                .orElseThrow();

        // Then it is the same advice, the same interval: not a move (at its own interval spot loses money in
        // a simulated year), nor an interval at which spot would only break even
        assertThat(simulatedMonthlySaving(12, 0.05, 4)).isNegative();
        assertThat(action(again).step()).isEqualTo(MoveToSpot.STEP_CHECKPOINT);
        assertThat(action(again).toPool()).isNull();
        assertThat(action(again).checkpointIntervalSeconds()).isEqualTo(action(first).checkpointIntervalSeconds());
        assertThat(again.estimatedMonthlySaving()).isEqualTo(first.estimatedMonthlySaving());
    }

    @Test
    void shouldMoveAGangThatCheckpointsOftenEnoughAtTheRateThePriceFeedGives() {
        // Given the 32-instance job checkpointing every 4 hours, and p4d spot in the band 5-10% a month
        PriceBoard board = board(8, 32.77, null, "USD");
        board.update(quote(Lifecycle.SPOT, 8, 9.831, "USD").withInterruptionBand(0.10, 0.05));
        JobView gang = job("gang", ON_DEMAND, "A100-40GB", 256, 32.77 * 32)
                .traits(new JobTraits("llama-70b", true, 4.0 * 3600, null)).build();

        // When the rule judges it
        Recommendation move = rule.evaluate(gang, board, NOW, false).orElseThrow();

        // Then all 32 instances move, claiming what a simulated year of them saves at 10% a month each
        assertThat(action(move).toInstances()).isEqualTo(32);
        double simulated = simulatedMonthlySaving(32, 0.10 / 720, 4);
        assertThat(move.estimatedMonthlySaving()).isCloseTo(simulated, within(0.01 * simulated));
        assertThat(evidence(move).spotInstances()).isEqualTo(32);
        assertThat(evidence(move).jobInterruptionsPerHour()).isCloseTo(32 * 0.10 / 720, within(1e-12));
    }

    @Test
    void shouldNotMoveAJobOnPartOfAnInstanceToAWholeSpotInstanceThatCostsMore() {
        // Given an interruptible job on 2 of the 8 GPUs of a p4d: a quarter of 32.77, 8.19 an hour
        JobView quarter = job("job-1", ON_DEMAND, "A100-40GB", 2, 32.77 / 4)
                .traits(new JobTraits("llama-7b", true, 1800.0, null)).build();

        // Then it is not moved: spot is bought in whole instances, 9.831 an hour
        assertThat(rule.evaluate(quarter, board(8, 32.77, 9.831, "USD"), NOW, false)).isEmpty();
    }

    @Test
    void shouldMoveAJobOnSevenSlicesOfAOneGpuInstanceAsOneInstance() {
        // Given an interruptible job checkpointing every half hour on seven 1g.10gb slices (a seventh
        // each) of the one GPU of an instance sold at 10 USD/h on demand and 3 USD/h as spot, and the
        // same job's share of the slices adding up to a hair over one GPU
        JobView view = job("job-mig", ON_DEMAND, "A100-40GB", 7, 10.0).gpuEquivalents(7 * (1.0 / 7))
                .traits(new JobTraits("llama-7b", true, 1800.0, null)).build();
        JobView hair = job("job-mig", ON_DEMAND, "A100-40GB", 7, 10.0).gpuEquivalents(1 + 1e-12)
                .traits(new JobTraits("llama-7b", true, 1800.0, null)).build();

        // When the rule judges them
        Recommendation recommendation = rule.evaluate(view, board(1, 10.0, 3.0, "USD"), NOW, false).orElseThrow();

        // Then it moves one instance, and the rounding error is not a second one
        assertThat(evidence(recommendation).instances()).isCloseTo(1.0, within(1e-9));
        assertThat(evidence(recommendation).spotInstances()).isEqualTo(1);
        assertThat(action(recommendation).gpus()).isEqualTo(7);
        assertThat(evidence(rule.evaluate(hair, board(1, 10.0, 3.0, "USD"), NOW, false).orElseThrow())
                .spotInstances()).isEqualTo(1);
    }

    @Test
    void shouldClaimTheHoursOfAMonthTheJobRuns() {
        // Given the interruptible p4d job, once running all day and once a third of it
        JobTraits traits = new JobTraits("llama-7b", true, 1800.0, null);
        JobView allDay = job("job-1", ON_DEMAND, "A100-40GB", 8, 32.77).traits(traits).build();
        JobView thirdOfTheDay = job("job-1", ON_DEMAND, "A100-40GB", 8, 32.77).traits(traits)
                .ranShareOfTheDay(1.0 / 3).build();

        // When the rule judges each
        PriceBoard board = board(8, 32.77, 9.831, "USD");
        Recommendation all = rule.evaluate(allDay, board, NOW, false).orElseThrow();
        Recommendation third = rule.evaluate(thirdOfTheDay, board, NOW, false).orElseThrow();

        // Then a third of the day saves a third of the month: 240 hours of it
        assertThat(third.estimatedMonthlySaving()).isCloseTo(all.estimatedMonthlySaving() / 3, within(1e-6));
        assertThat(evidence(third).hoursPerMonth()).isCloseTo(240, within(1e-9));
    }

    @ParameterizedTest(name = "spot {0}, standing {1}: moved {2}")
    @CsvSource({
            // one 1.00/h instance checkpointing every 2 h at the default rate keeps 0.9391 of its time
            // (x = 0.05 x 2, x / (e^x - 1) / (1 + 0.05 x 0.25)): spot 0.90 costs 0.9584 an hour of work, 42%
            // of the gross saving left; 0.935 costs 0.9956, 7% left; 0.94 costs 1.0010: it loses
            "0.90,  false, true",
            "0.935, false, false",
            "0.935, true,  true",
            "0.94,  true,  false"})
    void shouldMoveWhenATenthOfTheSavingIsLeftAndWithdrawOnlyWhenItLosesMoney(double spot, boolean held,
            boolean moved) {
        // Given an interruptible job on a whole one-GPU instance at 1.00/h on demand
        JobView view = job("job-1", ON_DEMAND, "A100-40GB", 1, 1.00)
                .traits(new JobTraits("llama-7b", true, 7200.0, null)).build();

        // When the rule judges it at {@code spot}, its move standing or not
        Optional<Recommendation> recommendation = rule.evaluate(view, board(1, 1.00, spot, "USD"), NOW, held)
                .filter(r -> action(r).movesTheJob());

        // Then a move is raised when 10% of the saving is left after interruptions, and withdrawn under 0
        assertThat(recommendation.isPresent()).isEqualTo(moved);
        recommendation.ifPresent(r -> assertThat(evidence(r)).extracting(
                RecommendationEvidence.MoveToSpot::minNetSavingRatio,
                RecommendationEvidence.MoveToSpot::withdrawNetSavingRatio).containsExactly(0.10, 0.0));
    }

    @Test
    void shouldNameTheSpotPoolAndTheFiguresOfTheRisk() {
        // Given the p4d job on a whole instance, checkpointing every half hour
        JobView view = job("job-1", ON_DEMAND, "A100-40GB", 8, 32.77)
                .traits(new JobTraits("llama-7b", true, 1800.0, null)).build();

        // When the rule judges it
        Recommendation recommendation = rule.evaluate(view, board(8, 32.77, 9.831, "USD"), NOW, false).orElseThrow();

        // Then the action names the spot pool, the evidence the rate judged at and what it leaves
        assertThat(recommendation.id()).isEqualTo("move_to_spot:job:job-1");
        assertThat(action(recommendation).toPool().offerKey()).isEqualTo("aws|us-east-1|p4d.24xlarge|spot");
        var evidence = evidence(recommendation);
        assertThat(evidence.interruptionRateSource()).isEqualTo("default");
        assertThat(evidence.interruptionsPerInstanceHour()).isEqualTo(0.05);
        assertThat(evidence.spotInstances()).isEqualTo(1);
        assertThat(evidence.restartSeconds()).isEqualTo(RESTART_SECONDS);
        assertThat(evidence.interruptionFrequency()).isNull();
        assertThat(evidence.usefulFraction()).isPositive();
        assertThat(evidence.delayHoursPerMonth()).isPositive();
        assertThat(evidence.monthlySavingAtBandLow()).isEqualTo(recommendation.estimatedMonthlySaving());
        // The documented range of a move's confidence: 0.5 to 0.9
        assertThat(recommendation.confidence()).isBetween(0.5, 0.9);
        assertThat(recommendation.expiresAt()).isEqualTo(NOW.plus(Duration.ofMinutes(30)));
    }

    @Test
    void shouldBeLessSureOfAMoveThatBarelyPaysForItsRisk() {
        // Given the p4d job, whose move keeps most of spot's saving, and a one-GPU job whose move keeps half
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

    @ParameterizedTest(name = "{0}")
    @CsvSource({
            "not interruptible,      false, 1800",
            "interruptible not said, ,      1800",
            "no checkpoint interval, true,  "})
    void shouldLeaveAJobThatDoesNotSayItSurvivesInterruptionsAlone(String name, Boolean interruptible,
            Double checkpointSeconds) {
        JobView view = job("job-1", ON_DEMAND, "A100-40GB", 8, 32.77)
                .traits(new JobTraits("llama-7b", interruptible, checkpointSeconds, null)).build();

        assertThat(rule.evaluate(view, board(8, 32.77, 9.831, "USD"), NOW, false)).isEmpty();
    }

    @Test
    void shouldLeaveAJobAlreadyOnSpotWithoutASpotPriceOrPricedInACurrencyWithoutARateAlone() {
        // Given a job already on spot, one with no spot price, one whose prices are quoted in CHF (no rate)
        JobTraits traits = new JobTraits("llama-7b", true, 1800.0, null);
        JobView onSpot = job("job-1", new Offer("aws", "us-east-1", "p4d.24xlarge", Lifecycle.SPOT), "A100-40GB", 8,
                9.831).traits(traits).build();
        JobView onDemand = job("job-2", ON_DEMAND, "A100-40GB", 8, 32.77).traits(traits).build();

        // Then none is moved
        assertThat(rule.evaluate(onSpot, board(8, 32.77, 9.831, "USD"), NOW, false)).isEmpty();
        assertThat(rule.evaluate(onDemand, board(8, 32.77, null, "USD"), NOW, false)).isEmpty();
        assertThat(rule.evaluate(onDemand, board(8, 32.77, 9.831, "CHF"), NOW, false)).isEmpty();
    }

    /**
     * What a month of a p4d job's work (720 hours of it, as on demand) saves on spot in a simulated world
     * of {@code instances} instances each taken back at {@code rate} an hour, checkpointing every
     * {@code checkpointHours}, restarting after the rule's default wait while holding all its instances:
     * the on-demand cost of the work less what spot was paid for it, over 400,000 intervals of work.
     */
    private static double simulatedMonthlySaving(int instances, double rate, double checkpointHours) {
        SpotGangSimulation.Result year = SpotGangSimulation.run(instances, rate, checkpointHours, RESTART_HOURS,
                400_000 * checkpointHours, instances, 11);
        double onDemandForTheWork = year.usefulHours() * instances * 32.77;
        double spotPaid = year.paidInstanceHours() * 9.831;
        return (onDemandForTheWork - spotPaid) / year.usefulHours() * 720;
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

    private static MoveToSpot action(Recommendation recommendation) {
        return (MoveToSpot) recommendation.action();
    }

    private static RecommendationEvidence.MoveToSpot evidence(Recommendation recommendation) {
        return (RecommendationEvidence.MoveToSpot) recommendation.evidence();
    }
}
