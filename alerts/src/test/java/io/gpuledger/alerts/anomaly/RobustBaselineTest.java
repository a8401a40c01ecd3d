package io.gpuledger.alerts.anomaly;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gpuledger.alerts.AlertSettings;
import io.gpuledger.alerts.TestSettings;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RobustBaselineTest {

    private static final double TOLERANCE = 1e-9;
    /** Never warm, so no value is clamped: the arithmetic of the mean and the spread alone. */
    private static final int NEVER = 1_000;

    @ParameterizedTest(name = "{0} with alpha {1}, window {2}")
    @CsvSource({
            // values,          alpha, window, expected, spread = 1.4826 × MAD
            // mean 10, 11, 11, 12, 21; median 12, deviations 2 0 1 1 18
            "'10 12 11 13 30',  0.5,   60,     21.0,     1.4826",
            // a plain average while 1/n > alpha; deviations 2 2 0
            "'4 8 6',           0.1,   60,     6.0,      2.9652",
            "'1 2 3 100 100',   1.0,   3,      100.0,    0.0",      // the window keeps 3 100 100 only
            "'1 2 3 4',         0.5,   60,     3.125,    1.4826",   // median 2.5, deviations 1.5 0.5 0.5 1.5
            "'5 5 5 5',         0.2,   60,     5.0,      0.0",
    })
    void shouldFollowTheMeanAndTheMedianAbsoluteDeviationByHand(String values, double alpha, int window,
                                                                 double expected, double spread) {
        // Given a baseline that is never warm enough to clamp
        RobustBaseline baseline = baseline(alpha, window, NEVER);

        // When it observes the series
        observeAll(baseline, values);

        // Then the mean and the spread are those worked out by hand
        assertThat(baseline.expected()).isCloseTo(expected, within(TOLERANCE));
        assertThat(baseline.spread()).isCloseTo(spread, within(TOLERANCE));
    }

    @ParameterizedTest(name = "{0} scores {1} as {2}")
    @CsvSource({
            // values,                          value,    score
            "'100 100 100 100 100',             120.0,    4.0",    // flat: 5% of 100 is the scale
            // flat and small: the money floor of 1.0, a cent is nothing
            "'10 10 10 10 10',                  10.01,    0.01",
            "'0 0 0 0 0',                       0.5,      0.5",    // nothing spent: the money floor still divides
            "'10 12 11 13 30',                  23.9652,  2.0",    // noisy: 1.4826 is above both floors
            "'100 100 100 100 100',             80.0,     -4.0",
    })
    void shouldScoreAgainstTheLargestOfSpreadAndFloors(String values, double value, double score) {
        // Given a warm baseline with a 5% floor and a money floor of 1.0
        RobustBaseline baseline = baseline(0.5, 60, 5);
        observeAll(baseline, values);

        // When a value is scored, then it is scored against the largest of the spread and the floors
        assertThat(baseline.ready()).isTrue();
        assertThat(baseline.score(value)).isCloseTo(score, within(TOLERANCE));
    }

    @Test
    void shouldClampAWildValueOnceWarmSoThatItDoesNotPoisonTheBaseline() {
        // Given a flat series of 10 that is warm after three values; the scale is the money floor 1.0
        RobustBaseline baseline = baseline(0.5, 60, 3);
        observeAll(baseline, "10 10 10");

        // When a value ten times the usual arrives
        baseline.observe(100);

        // Then it enters as 10 + 3 × 1.0 = 13, and the mean moves halfway to that only
        assertThat(baseline.expected()).isCloseTo(11.5, within(TOLERANCE));
        assertThat(baseline.spread()).isCloseTo(0.0, within(TOLERANCE));
        assertThat(baseline.observed()).isEqualTo(4);
    }

    @Test
    void shouldNotBeReadyBeforeItsWarmUpCount() {
        // Given a baseline warm after three values
        RobustBaseline baseline = baseline(0.5, 60, 3);

        // When it has seen two, then three
        observeAll(baseline, "1 2");
        boolean afterTwo = baseline.ready();
        baseline.observe(3);

        // Then it is ready after the third only
        assertThat(afterTwo).isFalse();
        assertThat(baseline.ready()).isTrue();
    }

    /** A baseline of {@code alpha}, {@code window} and {@code warmUp}, a relative floor of 5%, clamped at 3. */
    private static RobustBaseline baseline(double alpha, int window, int warmUp) {
        AlertSettings.Baseline settings = TestSettings.with(
                "gpuledger.anomaly.spend-rate.baseline.alpha", String.valueOf(alpha),
                "gpuledger.anomaly.spend-rate.baseline.window", String.valueOf(window),
                "gpuledger.anomaly.spend-rate.baseline.warm-up", String.valueOf(warmUp),
                "gpuledger.anomaly.spend-rate.baseline.relative-floor", "0.05",
                "gpuledger.anomaly.spend-rate.baseline.clamp-at", "3.0").anomaly().spendRate().baseline();
        return new RobustBaseline(settings, 1.0);
    }

    private static void observeAll(RobustBaseline baseline, String values) {
        Arrays.stream(values.trim().split("\\s+")).mapToDouble(Double::parseDouble).forEach(baseline::observe);
    }
}
