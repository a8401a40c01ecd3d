package io.gpuledger.alerts.recommend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.gpuledger.alerts.AlertSettings;
import io.gpuledger.alerts.TestSettings;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Offer;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.Recommendation;
import io.gpuledger.model.RecommendationAction;
import io.gpuledger.model.RecommendationEvidence;
import io.gpuledger.model.RecommendationStatus;
import io.gpuledger.model.ReservationTerms;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ReserveCapacityRuleTest {

    private static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");
    private static final Offer POOL = new Offer("aws", "us-east-1", "p4d.24xlarge", Lifecycle.ON_DEMAND);
    private final ReserveCapacityRule rule = new ReserveCapacityRule(fourHours("0"));

    static Stream<Arguments> lookbacks() {
        return Stream.of(
                // case, instances in use per hour, on demand, reserved (null: not priced), reserve, monthly saving
                // what stays busy: the lowest hour of four has 1; 720 x (2 x 1 - 1) = 720 (not the 2 used
                // three hours in four)
                Arguments.of("what stays busy", List.of(3.0, 3.0, 2.0, 1.0), 2.0, 1.0, 1, 720.0),
                // one instance half the time: nothing stays busy
                Arguments.of("half the time", List.of(1.0, 1.0, 0.0, 0.0), 2.0, 1.0, 0, 0.0),
                Arguments.of("no reservation pays", List.of(1.0, 0.0, 0.0, 0.0), 2.0, 1.0, 0, 0.0),
                // the second instance runs half of every hour: only the first stays busy, 720 x (2 - 1) = 720
                Arguments.of("fractional hours", List.of(1.5, 1.5, 1.5, 1.5), 2.0, 1.0, 1, 720.0),
                // idle three hours in ten: no hour-in-hour-out baseline
                Arguments.of("35% discount, 70% use", List.of(2.0, 2.0, 2.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0),
                        2.0, 1.3, 0, 0.0),
                // p4d list prices; 3 instances in every hour: 720 x 3 x (32.77 - 21.3005) = 24774.12
                Arguments.of("p4d list prices", List.of(5.0, 4.0, 4.0, 3.0), 32.77, 21.3005, 3, 24774.12),
                Arguments.of("missing reserved price", List.of(3.0, 3.0, 3.0, 3.0), 2.0, null, 0, 0.0),
                // reserved at or above on demand: no discount at all
                Arguments.of("no discount", List.of(3.0, 3.0, 3.0, 3.0), 2.0, 2.0, 0, 0.0),
                // 3 hours when 4 are needed to judge
                Arguments.of("lookback too short", List.of(3.0, 3.0, 3.0), 2.0, 1.0, 0, 0.0));
    }

    @ParameterizedTest(name = "{0}: reserve {4}, saving {5}")
    @MethodSource("lookbacks")
    void shouldReserveWhatStaysBusyWhereItPaysOff(String name, List<Double> instancesPerHour, double onDemand,
            Double reserved, int expectedReserve, double expectedSaving) {
        // Given a pool's hourly use and, maybe, a reserved price of its type and region
        PriceBoard board = board(onDemand);
        if (reserved != null) {
            board.update(reservedQuote(reserved, "USD"));
        }
        PoolUsage usage = new PoolUsage(POOL, instancesPerHour, "USD");

        // When the rule judges it
        Optional<Recommendation> recommendation = rule.evaluate(usage, board, NOW, Optional.empty());

        // Then it reserves the baseline, with its monthly saving
        if (expectedReserve == 0) {
            assertThat(recommendation).isEmpty();
            return;
        }
        Recommendation found = recommendation.orElseThrow();
        assertThat(action(found).reserveInstances()).isEqualTo(expectedReserve);
        assertThat(found.estimatedMonthlySaving()).isCloseTo(expectedSaving, within(1e-6));
        assertThat(found.currency()).isEqualTo("USD");
    }

    @Test
    void shouldReserveOnlyWhatIsNotReservedAlready() {
        // Given 3 on-demand and 1 reserved instance in use every hour, at 2 and 1 an hour
        PriceBoard board = board(2.0);
        board.update(reservedQuote(1.0, "USD"));
        PoolUsage usage = new PoolUsage(POOL, List.of(3.0, 3.0, 3.0, 3.0), List.of(1.0, 1.0, 1.0, 1.0), null, null,
                "USD");

        // When the rule judges it
        Recommendation found = rule.evaluate(usage, board, NOW, Optional.empty()).orElseThrow();

        // Then it reserves the 3 of the 4 that stay busy not reserved yet: 720 x 3 x (2 - 1) = 2160
        assertThat(action(found).reserveInstances()).isEqualTo(3);
        assertThat(action(found).reservedAfter()).isEqualTo(4);
        assertThat(found.estimatedMonthlySaving()).isCloseTo(2160, within(1e-9));
        assertThat(evidence(found).reservedInUse()).isEqualTo(1);
        assertThat(evidence(found).baselineInstances()).isEqualTo(4);
    }

    @Test
    void shouldKeepAReservationBoughtOnItsAdviceAsItWasBought() {
        // Given a pool whose reservation of 3 was acknowledged, and whose use has since grown to 5 all the time
        PriceBoard board = board(2.0);
        board.update(reservedQuote(1.0, "USD"));
        Recommendation bought = rule.evaluate(new PoolUsage(POOL, List.of(3.0, 3.0, 3.0, 3.0), "USD"), board, NOW,
                Optional.empty()).orElseThrow().withStatus(RecommendationStatus.ACKNOWLEDGED, NOW,
                        NOW.plus(Duration.ofHours(6)));

        // When the rule judges the grown pool with it standing
        Recommendation kept = rule.evaluate(new PoolUsage(POOL, List.of(5.0, 5.0, 5.0, 5.0), "USD"), board,
                NOW.plusSeconds(3600), Optional.of(bought)).orElseThrow();

        // Then it keeps what was bought, and says what more would pay, without asking to buy it
        assertThat(kept.action()).isEqualTo(bought.action());
        assertThat(kept.estimatedMonthlySaving()).isEqualTo(bought.estimatedMonthlySaving());
        assertThat(evidence(kept).reservedOnAdvice()).isEqualTo(3);
        assertThat(evidence(kept).moreWorthReserving()).isEqualTo(2);
        assertThat(evidence(kept).commitment()).isEqualTo(evidence(bought).commitment());
        assertThat(evidence(kept).historyShortfallHours()).isNull();
    }

    @Test
    void shouldStateTheCommitmentItAsksFor() {
        // Given a pool of two instances busy all the time, and a 1-year partial-upfront reservation at an
        // effective 1.0 an hour (4380 up front, 0.5 an hour)
        PriceBoard board = board(2.0);
        board.update(reservedQuote(1.0, "USD").withReservation(new ReservationTerms(12,
                ReservationTerms.PaymentOption.PARTIAL_UPFRONT, 4380.0)));
        PoolUsage usage = new PoolUsage(POOL, List.of(2.0, 2.0, 2.0, 2.0), "USD");

        // When the rule judges it
        Recommendation recommendation = rule.evaluate(usage, board, NOW, Optional.empty()).orElseThrow();

        // Then the record says what is committed: 2 instances for 8760 hours at 1.0, 17,520 USD, paid partly
        // up front, breaking even at half the hours, on 4 hours of history of a 8760-hour term
        assertThat(action(recommendation).termMonths()).isEqualTo(12);
        assertThat(action(recommendation).paymentOption()).isEqualTo("partial-upfront");
        assertThat(action(recommendation).totalCommitment()).isEqualTo(17_520.0);
        var evidence = evidence(recommendation);
        assertThat(evidence.breakEvenUtilization()).isEqualTo(0.5);
        assertThat(evidence.commitment().termSource()).isEqualTo("price");
        assertThat(evidence.commitment().historyHours()).isEqualTo(4);
        assertThat(evidence.historyShortfallHours()).isEqualTo(8756);
        assertThat(evidence.baselineInstances()).isEqualTo(2);
        assertThat(recommendation.summary()).contains("Reserve 2 x p4d.24xlarge", "for 12 months", "17520.00 USD");
    }

    @Test
    void shouldExplainTheFiguresItDecidedOn() {
        // Given the "what stays busy" pool: break-even 0.5, u = [1, 0.75, 0.5]
        PriceBoard board = board(2.0);
        board.update(reservedQuote(1.0, "USD"));
        PoolUsage usage = new PoolUsage(POOL, List.of(3.0, 3.0, 2.0, 1.0), "USD");

        // When the rule judges it
        Recommendation recommendation = rule.evaluate(usage, board, NOW, Optional.empty()).orElseThrow();

        // Then it is about the pool, explains the break-even, and names the reservation to buy
        assertThat(recommendation.id()).isEqualTo("reserve_capacity:pool:aws|us-east-1|p4d.24xlarge|on-demand");
        var evidence = evidence(recommendation);
        assertThat(evidence.breakEvenUtilization()).isEqualTo(0.5);
        assertThat(evidence.discount()).isEqualTo(0.5);
        assertThat(evidence.utilizationByInstance()).containsExactly(1.0, 0.75, 0.5);
        assertThat(evidence.lookbackHours()).isEqualTo(4);
        assertThat(evidence.idleHours()).isZero();
        assertThat(evidence.commitment().termSource()).isEqualTo("default");
        RecommendationAction.PricedOffer reservation = action(recommendation).reservation();
        assertThat(reservation.offerKey()).isEqualTo("aws|us-east-1|p4d.24xlarge|reserved");
        assertThat(reservation.pricePerHour()).isEqualTo(1.0);
        // The documented range of a reservation's confidence: 0.4 to 0.95
        assertThat(recommendation.confidence()).isBetween(0.4, 0.95);
        assertThat(recommendation.expiresAt()).isEqualTo(NOW.plus(Duration.ofHours(6)));
        assertThat(recommendation.summary()).contains("Reserve 1 x p4d.24xlarge", "720.00 USD");
    }

    @Test
    void shouldBeSurerWithALongerHistoryAndAWiderMarginOverBreakEven() {
        // Given break-even 0.75 and twenty hours of a pool with one instance in nineteen of them: the
        // instance that stays busy (in all but the lowest tenth of the hours) is used 0.95 of the time
        PriceBoard board = board(4.0);
        board.update(reservedQuote(3.0, "USD"));
        List<Double> twentyHours = new ArrayList<>(Collections.nCopies(19, 1.0));
        twentyHours.add(0.0);
        PoolUsage twenty = new PoolUsage(POOL, twentyHours, "USD");
        // And the same twenty hours seen twice over, forty hours of history
        List<Double> fortyHours = new ArrayList<>(twentyHours);
        fortyHours.addAll(twentyHours);
        PoolUsage forty = new PoolUsage(POOL, fortyHours, "USD");
        // And at a cheaper reservation, break-even 0.5: a wider margin
        PriceBoard cheaper = board(4.0);
        cheaper.update(reservedQuote(2.0, "USD"));

        // When the rule judges each
        double base = rule.evaluate(twenty, board, NOW, Optional.empty()).orElseThrow().confidence();
        double longer = rule.evaluate(forty, board, NOW, Optional.empty()).orElseThrow().confidence();
        double wider = rule.evaluate(twenty, cheaper, NOW, Optional.empty()).orElseThrow().confidence();

        // Then more history and a wider margin each make it surer
        assertThat(longer).isGreaterThan(base);
        assertThat(wider).isGreaterThan(base);
    }

    @Test
    void shouldBeSurestWithAWholeTermOfHistoryWellAboveBreakEven() {
        // Given a year of one instance always in use, break-even 0.5, a 1-year term
        PriceBoard board = board(2.0);
        board.update(reservedQuote(1.0, "USD"));
        PoolUsage usage = new PoolUsage(POOL, Collections.nCopies(8760, 1.0), "USD");

        // Then the confidence is the highest: 0.4 + 0.3 x 1 + 0.25 x 1 = 0.95
        assertThat(rule.evaluate(usage, board, NOW, Optional.empty()).orElseThrow().confidence())
                .isCloseTo(0.95, within(1e-9));
        // while a week of the same is much less sure: a week says little of a year
        assertThat(rule.evaluate(new PoolUsage(POOL, Collections.nCopies(168, 1.0), "USD"), board, NOW,
                Optional.empty()).orElseThrow().confidence()).isLessThan(0.7);
    }

    @Test
    void shouldNotGuessTheRateOfACurrencyTheTableLacks() {
        // Given a reserved price in CHF, which the rates table lacks, for a pool priced in USD
        PriceBoard board = board(2.0);
        board.update(reservedQuote(1.0, "CHF"));

        // Then nothing is compared
        assertThat(rule.evaluate(new PoolUsage(POOL, List.of(3.0, 3.0, 3.0, 3.0), "USD"), board, NOW,
                Optional.empty())).isEmpty();
    }

    @Test
    void shouldHoldBackASavingBelowTheMinimum() {
        // Given a pool of one instance always busy, saving 720 x (2 - 1.9) = 72 a month, and a minimum of 100
        ReserveCapacityRule demanding = new ReserveCapacityRule(fourHours("100"));
        PriceBoard board = board(2.0);
        board.update(reservedQuote(1.9, "USD"));
        PoolUsage usage = new PoolUsage(POOL, List.of(1.0, 1.0, 1.0, 1.0), "USD");

        // Then it is not worth a commitment
        assertThat(demanding.evaluate(usage, board, NOW, Optional.empty())).isEmpty();
    }

    /** A board with the pool's on-demand price, in USD. */
    private static PriceBoard board(double onDemand) {
        PriceBoard board = new PriceBoard();
        board.update(new PriceQuote("aws", "us-east-1", "p4d.24xlarge", Lifecycle.ON_DEMAND, "A100-40GB", 8, onDemand,
                "USD", NOW.minusSeconds(86_400), "test"));
        return board;
    }

    private static PriceQuote reservedQuote(double pricePerHour, String currency) {
        return new PriceQuote("aws", "us-east-1", "p4d.24xlarge", Lifecycle.RESERVED, "A100-40GB", 8, pricePerHour,
                currency, NOW.minusSeconds(86_400), "test");
    }

    @Test
    void shouldRefuseARecordThatWouldBeForgottenBeforeAPoolIsJudgedAgainAfterARestart() {
        // A look-back of three weeks with records standing two: after a restart the pool is judged again only
        // once three weeks are seen, by when what was bought has expired and would be asked for again
        assertThatThrownBy(() -> RecommendationRules.check(TestSettings.with(
                "gpuledger.recommendation.reserve.lookback-hours", "504",
                "gpuledger.recommendation.reserve.ttl", "14d")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ttl")
                .hasMessageContaining("504 h");
        assertThatCode(() -> RecommendationRules.check(TestSettings.with(
                "gpuledger.recommendation.reserve.lookback-hours", "504",
                "gpuledger.recommendation.reserve.ttl", "28d")))
                .doesNotThrowAnyException();
    }

    @Test
    void shouldRaiseAtTheMinimumSavingAndKeepAStandingRecordWhileItSavesAnything() {
        // Given a rule that raises at 1000 a month, and a pool whose baseline of 2 saves 720 x 2 x (2 - 1) = 1440
        ReserveCapacityRule strict = new ReserveCapacityRule(fourHours("1000"));
        PriceBoard board = board(2.0);
        board.update(reservedQuote(1.0, "USD"));
        Recommendation open = strict.evaluate(new PoolUsage(POOL, List.of(2.0, 2.0, 2.0, 2.0), "USD"), board, NOW,
                Optional.empty()).orElseThrow();

        // When the pool's baseline falls to 1 (720 a month, under the minimum)
        PoolUsage smaller = new PoolUsage(POOL, List.of(1.0, 1.0, 1.0, 1.0), "USD");

        // Then the standing record is kept, at 720, while a new one would not be raised
        assertThat(strict.evaluate(smaller, board, NOW.plusSeconds(3600), Optional.of(open))).hasValueSatisfying(
                kept -> assertThat(kept.estimatedMonthlySaving()).isCloseTo(720, within(1e-9)));
        assertThat(strict.evaluate(smaller, board, NOW.plusSeconds(3600), Optional.empty())).isEmpty();
    }

    /** The rule judging pools on four hours, records standing six, raising savings of {@code minMonthlySaving}. */
    private static AlertSettings.Recommendation fourHours(String minMonthlySaving) {
        return TestSettings.recommendation(
                "gpuledger.recommendation.reserve.lookback-hours", "4",
                "gpuledger.recommendation.reserve.term-months", "12",
                "gpuledger.recommendation.min-monthly-saving", minMonthlySaving,
                "gpuledger.recommendation.reserve.ttl", "6h");
    }

    private static RecommendationAction.ReserveCapacity action(Recommendation recommendation) {
        return (RecommendationAction.ReserveCapacity) recommendation.action();
    }

    private static RecommendationEvidence.ReserveCapacity evidence(Recommendation recommendation) {
        return (RecommendationEvidence.ReserveCapacity) recommendation.evidence();
    }
}
