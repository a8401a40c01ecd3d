package io.gpuledger.alerts.recommend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Offer;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.Recommendation;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ReserveCapacityRuleTest {

    private static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");
    private static final Offer POOL = new Offer("aws", "us-east-1", "p4d.24xlarge", Lifecycle.ON_DEMAND);
    private final ReserveCapacityRule rule = new ReserveCapacityRule(4, 0, Duration.ofHours(6));

    static Stream<Arguments> lookbacks() {
        return Stream.of(
                // case, instances in use per hour, on demand, reserved (null: not priced), reserve, monthly saving
                // break-even 1.0/2.0 = 0.5; u1 = 4/4 = 1, u2 = 3/4 = 0.75, u3 = 2/4 = 0.5 (not above)
                // 720 x ((2 x 1 - 1) + (2 x 0.75 - 1)) = 720 x 1.5 = 1080
                Arguments.of("baseline of two", List.of(3.0, 3.0, 2.0, 1.0), 2.0, 1.0, 2, 1080.0),
                // u1 = 2/4 = 0.5 = break-even exactly: it does not pay, it only breaks even
                Arguments.of("exactly at break-even", List.of(1.0, 1.0, 0.0, 0.0), 2.0, 1.0, 0, 0.0),
                // u1 = 1/4 = 0.25 < 0.5
                Arguments.of("no reservation pays", List.of(1.0, 0.0, 0.0, 0.0), 2.0, 1.0, 0, 0.0),
                // average counts: the second instance runs half of every hour, u2 = 0.5, not above
                // 720 x (2 x 1 - 1) = 720
                Arguments.of("fractional hours", List.of(1.5, 1.5, 1.5, 1.5), 2.0, 1.0, 1, 720.0),
                // 1-year ~35% discount: break-even 1.3/2.0 = 0.65; u1 = 7/10 = 0.7, u2 = 3/10
                // 720 x (2 x 0.7 - 1.3) = 720 x 0.1 = 72
                Arguments.of("35% discount, 70% use", List.of(2.0, 2.0, 2.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0),
                        2.0, 1.3, 1, 72.0),
                // p4d.24xlarge list prices: 21.3005 / 32.77 = 0.65; u1..u3 = 1, u4 = 0.75 > 0.65, u5 = 0.25
                // 720 x (3 x (32.77 - 21.3005) + (32.77 x 0.75 - 21.3005)) = 720 x (34.4085 + 3.2770) = 27133.56
                Arguments.of("p4d list prices", List.of(5.0, 4.0, 4.0, 3.0), 32.77, 21.3005, 4, 27133.56),
                Arguments.of("missing reserved price", List.of(3.0, 3.0, 3.0, 3.0), 2.0, null, 0, 0.0),
                // reserved at or above on demand: no discount at all
                Arguments.of("no discount", List.of(3.0, 3.0, 3.0, 3.0), 2.0, 2.0, 0, 0.0),
                // 3 hours when 4 are needed to judge
                Arguments.of("lookback too short", List.of(3.0, 3.0, 3.0), 2.0, 1.0, 0, 0.0));
    }

    @ParameterizedTest(name = "{0}: reserve {4}, saving {5}")
    @MethodSource("lookbacks")
    void shouldReserveTheBaselineAboveBreakEven(String name, List<Double> instancesPerHour, double onDemand,
            Double reserved, int expectedReserve, double expectedSaving) {
        // Given a pool's hourly use and, maybe, a reserved price of its type and region
        PriceBoard board = board(onDemand);
        if (reserved != null) {
            board.update(reservedQuote(reserved, "USD"));
        }
        PoolUsage usage = new PoolUsage(POOL, instancesPerHour, "USD");

        // When the rule judges it
        Optional<Recommendation> recommendation = rule.evaluate(usage, board, NOW);

        // Then it reserves the instances in use above break-even, with their monthly saving
        if (expectedReserve == 0) {
            assertThat(recommendation).isEmpty();
            return;
        }
        Recommendation found = recommendation.orElseThrow();
        assertThat(found.action()).containsEntry("reserveInstances", expectedReserve);
        assertThat(found.estimatedMonthlySaving()).isCloseTo(expectedSaving, within(1e-6));
        assertThat(found.currency()).isEqualTo("USD");
    }

    @Test
    void shouldExplainTheFiguresItDecidedOn() {
        // Given the "baseline of two" pool: break-even 0.5, u = [1, 0.75, 0.5]
        PriceBoard board = board(2.0);
        board.update(reservedQuote(1.0, "USD"));
        PoolUsage usage = new PoolUsage(POOL, List.of(3.0, 3.0, 2.0, 1.0), "USD");

        // When the rule judges it
        Recommendation recommendation = rule.evaluate(usage, board, NOW).orElseThrow();

        // Then it is about the pool, explains the break-even, and names the reservation to buy
        assertThat(recommendation.id()).isEqualTo("reserve_capacity:pool:aws|us-east-1|p4d.24xlarge|on-demand");
        assertThat(recommendation.evidence()).containsEntry("breakEvenUtilization", 0.5)
                .containsEntry("discount", 0.5)
                .containsEntry("utilizationByInstance", List.of(1.0, 0.75, 0.5))
                .containsEntry("lookbackHours", 4)
                .containsEntry("idleHours", 0);
        @SuppressWarnings("unchecked")
        Map<String, Object> reservation = (Map<String, Object>) recommendation.action().get("reservation");
        assertThat(reservation).containsEntry("offerKey", "aws|us-east-1|p4d.24xlarge|reserved")
                .containsEntry("pricePerHour", 1.0);
        // The documented range of a reservation's confidence: 0.4 to 0.95
        assertThat(recommendation.confidence()).isBetween(0.4, 0.95);
        assertThat(recommendation.expiresAt()).isEqualTo(NOW.plus(Duration.ofHours(6)));
        assertThat(recommendation.summary()).contains("Reserve 2 x p4d.24xlarge", "1080.00 USD");
    }

    @Test
    void shouldBeSurerWithALongerHistoryAndAWiderMarginOverBreakEven() {
        // Given break-even 0.5 and four hours of the "baseline of two" pool: the second reserved
        // instance is used 0.75 of the time
        PriceBoard board = board(2.0);
        board.update(reservedQuote(1.0, "USD"));
        List<Double> fourHours = List.of(3.0, 3.0, 2.0, 1.0);
        PoolUsage four = new PoolUsage(POOL, fourHours, "USD");
        // And the same four hours seen twice over, eight hours of history
        List<Double> eightHours = new ArrayList<>(fourHours);
        eightHours.addAll(fourHours);
        PoolUsage eight = new PoolUsage(POOL, eightHours, "USD");
        // And four hours of two instances always in use: the second reserved one used all the time
        PoolUsage busier = new PoolUsage(POOL, List.of(2.0, 2.0, 2.0, 2.0), "USD");

        // When the rule judges each
        double base = rule.evaluate(four, board, NOW).orElseThrow().confidence();
        double longer = rule.evaluate(eight, board, NOW).orElseThrow().confidence();
        double wider = rule.evaluate(busier, board, NOW).orElseThrow().confidence();

        // Then more history and a wider margin each make it surer
        assertThat(longer).isGreaterThan(base);
        assertThat(wider).isGreaterThan(base);
    }

    @Test
    void shouldBeSurerWithAMonthOfHistoryWellAboveBreakEven() {
        // Given a month of one instance always in use, break-even 0.5
        PriceBoard board = board(2.0);
        board.update(reservedQuote(1.0, "USD"));
        PoolUsage usage = new PoolUsage(POOL, Collections.nCopies(720, 1.0), "USD");

        // Then the confidence is the highest: 0.4 + 0.3 x 1 + 0.25 x 1 = 0.95
        assertThat(rule.evaluate(usage, board, NOW).orElseThrow().confidence()).isCloseTo(0.95, within(1e-9));
    }

    @Test
    void shouldNotGuessTheRateOfACurrencyTheTableLacks() {
        // Given a reserved price in CHF, which the rates table lacks, for a pool priced in USD
        PriceBoard board = board(2.0);
        board.update(reservedQuote(1.0, "CHF"));

        // Then nothing is compared
        assertThat(rule.evaluate(new PoolUsage(POOL, List.of(3.0, 3.0, 3.0, 3.0), "USD"), board, NOW))
                .isEmpty();
    }

    @Test
    void shouldHoldBackASavingBelowTheMinimum() {
        // Given the "35% discount" pool, saving 72 a month, and a minimum of 100
        ReserveCapacityRule demanding = new ReserveCapacityRule(4, 100, Duration.ofHours(6));
        PriceBoard board = board(2.0);
        board.update(reservedQuote(1.3, "USD"));
        PoolUsage usage = new PoolUsage(POOL, List.of(2.0, 2.0, 2.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0), "USD");

        // Then it is not worth a commitment
        assertThat(demanding.evaluate(usage, board, NOW)).isEmpty();
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
}
