package io.gpuledger.alerts.anomaly;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gpuledger.alerts.AlertSettings;
import io.gpuledger.alerts.TestSettings;
import io.gpuledger.model.AnomalyKind;
import io.gpuledger.model.CostAnomaly;
import io.gpuledger.model.CostAnomaly.Severity;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

class SpendRateDetectorTest {

    private static final double TOLERANCE = 1e-6;
    private static final Instant T0 = Instant.parse("2026-03-02T09:00:00Z");
    /** Warm after 10 minutes; k = 4, at least 5 per hour above, 5 normal minutes end an episode. */
    private static final AlertSettings.SpendRate SETTINGS = TestSettings.with(
            "gpuledger.anomaly.spend-rate.baseline.alpha", "0.1",
            "gpuledger.anomaly.spend-rate.baseline.window", "60",
            "gpuledger.anomaly.spend-rate.baseline.warm-up", "10",
            "gpuledger.anomaly.spend-rate.baseline.relative-floor", "0.05",
            "gpuledger.anomaly.spend-rate.min-spread-per-hour", "1.0",
            "gpuledger.anomaly.spend-rate.baseline.clamp-at", "3.0",
            "gpuledger.anomaly.spend-rate.k", "4.0",
            "gpuledger.anomaly.spend-rate.min-impact-per-hour", "5.0",
            "gpuledger.anomaly.spend-rate.recovery-minutes", "5",
            "gpuledger.anomaly.spend-rate.max-subjects", "100",
            "gpuledger.anomaly.spend-rate.max-parts-per-subject", "8").anomaly().spendRate();

    private final SpendRateDetector detector = new SpendRateDetector(SETTINGS);

    static Stream<Arguments> quietSeries() {
        return Stream.of(
                Arguments.of("flat", "100 100 100 100 100 100 100 100 100 100 100 100 100 100 100"),
                Arguments.of("noisy within its spread", "100 104 97 101 99 103 96 100 102 98 105 95 101 99 103"),
                Arguments.of("a sudden drop", "100 100 100 100 100 100 100 100 100 100 40 40 40 10 0"),
                Arguments.of("a rise below k", "100 100 100 100 100 100 100 100 100 100 118 118 118 118 118"),
                Arguments.of("a cent on a flat small series", "0.6 0.6 0.6 0.6 0.6 0.6 0.6 0.6 0.6 0.6 0.61 0.6 0.6"),
                Arguments.of("a tenfold rise of a few cents", "0.3 0.3 0.3 0.3 0.3 0.3 0.3 0.3 0.3 0.3 3 3 3 3"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("quietSeries")
    void shouldStayQuietWhenSpendDoesNotRiseByEnough(String name, String perHour) {
        // Given a team's spend per hour, minute by minute; When the detector sees all of it
        List<CostAnomaly> found = feed(detector, "research", 0, perHour);

        // Then nothing is flagged
        assertThat(found).isEmpty();
    }

    @ParameterizedTest(name = "{0}/h to {1}/h is {2}")
    @CsvSource({
            // usual, now, severity, percent; scale = max(MAD-sigma 0, 5% of usual, 1.0)
            "100.0,   130.0,  WARNING,  30.0",     // score 6
            "100.0,   150.0,  CRITICAL, 50.0",     // score 10 >= 2k
            "100.0,   100.0,  ,         ",         // nothing
            "10.0,    30.0,   CRITICAL, 200.0",    // scale is the money floor; 100% above or more
            "10.0,    14.5,   ,         ",         // score 4.5 but 4.50/h is under the money floor
            "158.4,   412.0,  CRITICAL, 160.1010101",
    })
    void shouldFlagTheTeamWhoseSpendRisesWithExactFigures(double usual, double now, Severity severity, Double percent) {
        // Given ten minutes of the team's usual spend
        feed(detector, "research", 0, repeat(usual, 10));

        // When the eleventh minute spends at another rate
        List<CostAnomaly> found = feed(detector, "research", 10, String.valueOf(now));

        // Then it is flagged, or not, with the usual rate as expected and the difference as impact
        if (severity == null) {
            assertThat(found).isEmpty();
            return;
        }
        assertThat(found).hasSize(1);
        CostAnomaly anomaly = found.get(0);
        assertThat(anomaly.kind()).isEqualTo(AnomalyKind.SPEND_RATE);
        assertThat(anomaly.severity()).isEqualTo(severity);
        assertThat(anomaly.expected()).isCloseTo(usual, within(TOLERANCE));
        assertThat(anomaly.actual()).isCloseTo(now, within(TOLERANCE));
        assertThat(anomaly.impact()).isCloseTo(now - usual, within(TOLERANCE));
        assertThat(anomaly.impactPercent()).isCloseTo(percent, within(TOLERANCE));
        assertThat(anomaly.measure()).isEqualTo("spend per hour");
        assertThat(anomaly.windowStart()).isEqualTo(minute(10));
        assertThat(anomaly.windowEnd()).isEqualTo(minute(11));
        assertThat(anomaly.id())
                .isEqualTo("spend_rate:team:research:" + minute(10) + ":" + severity.name().toLowerCase());
        assertThat(anomaly.evidence()).containsEntry("minutesObserved", 10L)
                .containsKeys("spread", "score", "expected");
    }

    @Test
    void shouldFlagALastingRiseOnceWhileItsEpisodeLasts() {
        // Given a team at 100/h that rises to 130/h and stays there a while
        feed(detector, "research", 0, repeat(100, 10));

        // When the raised minutes arrive
        List<CostAnomaly> found = feed(detector, "research", 10, repeat(130, 4));

        // Then one anomaly opens the episode and the next minutes do not repeat it
        assertThat(found).extracting(CostAnomaly::windowStart).containsExactly(minute(10));
    }

    @Test
    void shouldDeliverAnEscalationOnceMoreWithAnIdOfItsOwn() {
        // Given a team at 100/h flagged as WARNING at 130/h
        feed(detector, "research", 0, repeat(100, 10));
        CostAnomaly warning = feed(detector, "research", 10, "130").get(0);

        // When the next minute spends far more
        List<CostAnomaly> found = feed(detector, "research", 11, "200 210");

        // Then the escalation comes once, in the same episode, as CRITICAL and with its own id
        assertThat(found).hasSize(1);
        CostAnomaly critical = found.get(0);
        assertThat(critical.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(critical.windowStart()).isEqualTo(warning.windowStart());
        assertThat(critical.windowEnd()).isEqualTo(minute(12));
        assertThat(critical.id()).isNotEqualTo(warning.id()).endsWith(":critical");
        // the first anomalous minute entered the baseline clamped at 100 + 3 × 5 = 115: 100 + 0.1 × 15
        assertThat(critical.expected()).isCloseTo(101.5, within(TOLERANCE));
    }

    @ParameterizedTest(name = "{0} normal minutes between two rises: {1} anomalies")
    @CsvSource({"3, 1", "4, 1", "5, 2", "8, 2"})
    void shouldOpenANewEpisodeOnlyAfterEnoughNormalMinutes(int normalMinutes, int anomalies) {
        // Given a team at 100/h that rose to 130/h for one minute
        feed(detector, "research", 0, repeat(100, 10));
        feed(detector, "research", 10, "130");

        // When it spends as usual for a while and then rises again
        feed(detector, "research", 11, repeat(100, normalMinutes));
        List<CostAnomaly> again = feed(detector, "research", 11 + normalMinutes, "130");

        // Then the second rise is a new episode (new window, new id) only after five normal minutes
        assertThat(1 + again.size()).isEqualTo(anomalies);
        again.forEach(anomaly -> assertThat(anomaly.windowStart()).isEqualTo(minute(11 + normalMinutes)));
    }

    @Test
    void shouldNameTheJobThatExplainsMostOfTheRise() {
        // Given team research at 158.40/h: train-llm 20/h and eval 138.40/h
        Map<String, Double> usual = Map.of("train-llm", 20 / 60.0, "eval", 138.4 / 60.0);
        for (int i = 0; i < 10; i++) {
            detector.observe(teamMinute(i, 158.4, usual), minute(i + 1));
        }

        // When train-llm rises by 233.312/h and a new notebook job adds 20.288/h
        Map<String, Double> now = Map.of("train-llm", 253.312 / 60.0, "eval", 138.4 / 60.0, "notebook", 20.288 / 60.0);
        CostAnomaly anomaly = detector.observe(teamMinute(10, 412.0, now), minute(11)).orElseThrow();

        // Then train-llm is the cause, with 92% of the 253.60/h of impact
        assertThat(anomaly.rootCause().dimension()).isEqualTo("job");
        assertThat(anomaly.rootCause().id()).isEqualTo("train-llm");
        assertThat(anomaly.rootCause().impact()).isCloseTo(233.312, within(TOLERANCE));
        assertThat(anomaly.rootCause().share()).isCloseTo(0.92, within(TOLERANCE));
        assertThat(anomaly.summary()).isEqualTo(
                "team research spends 412.00 USD/h, 160% above its usual 158.40 USD/h; job train-llm accounts for 92%");
        assertThat(anomaly.detectedAt()).isEqualTo(minute(11));
    }

    @Test
    void shouldIgnoreAMinuteAlreadySeenAndNotInventMissingOnes() {
        // Given ten usual minutes, every other minute missing
        for (int i = 0; i < 10; i++) {
            detector.observe(SpendMinute.of("team", "research", minute(2 * i), 100 / 60.0, "USD"), minute(2 * i + 1));
        }

        // When a minute arrives again, and then a rise after another gap
        detector.observe(SpendMinute.of("team", "research", minute(18), 100 / 60.0, "USD"), minute(30));
        List<CostAnomaly> found = feed(detector, "research", 25, "130");

        // Then the repeat is counted and ignored, and the gaps did not drag the baseline down to zero
        assertThat(detector.staleMinutes()).isEqualTo(1);
        assertThat(found).hasSize(1);
        assertThat(found.get(0).expected()).isCloseTo(100, within(TOLERANCE));
    }

    private static SpendMinute teamMinute(int minute, double perHour, Map<String, Double> jobs) {
        return new SpendMinute("team", "research", minute(minute), perHour / 60, "USD", Map.of("job", jobs));
    }

    /** Feeds one minute per value (spend per hour) from minute {@code first} on; returns what was flagged. */
    private static List<CostAnomaly> feed(SpendRateDetector detector, String team, int first, String perHour) {
        List<CostAnomaly> found = new ArrayList<>();
        double[] rates = Arrays.stream(perHour.trim().split("\\s+")).mapToDouble(Double::parseDouble).toArray();
        for (int i = 0; i < rates.length; i++) {
            SpendMinute minute = SpendMinute.of("team", team, minute(first + i), rates[i] / 60, "USD");
            detector.observe(minute, minute.minuteEnd()).ifPresent(found::add);
        }
        return found;
    }

    private static String repeat(double value, int times) {
        return (value + " ").repeat(times);
    }

    private static Instant minute(int index) {
        return T0.plusSeconds(60L * index);
    }
}
