package io.gpuledger.alerts.anomaly;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gpuledger.alerts.AlertSettings;
import io.gpuledger.alerts.TestSettings;
import io.gpuledger.model.AnomalyKind;
import io.gpuledger.model.CostAnomaly;
import io.gpuledger.model.CostAnomaly.Severity;
import io.gpuledger.model.JobEconomics;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CostPerThroughputDetectorTest {

    private static final double TOLERANCE = 1e-9;
    private static final Instant T0 = Instant.parse("2026-05-04T14:00:00Z");
    /** Warm after 10 minutes; 25% worse for 3 adjacent minutes; 5 good minutes end an episode. */
    private static final AlertSettings.CostPerThroughput SETTINGS = TestSettings.with(
            "gpuledger.anomaly.cost-per-throughput.baseline.alpha", "0.1",
            "gpuledger.anomaly.cost-per-throughput.baseline.window", "60",
            "gpuledger.anomaly.cost-per-throughput.baseline.warm-up", "10",
            "gpuledger.anomaly.cost-per-throughput.baseline.relative-floor", "0.05",
            "gpuledger.anomaly.cost-per-throughput.min-spread-per-million-units", "1e-4",
            "gpuledger.anomaly.cost-per-throughput.baseline.clamp-at", "3.0",
            "gpuledger.anomaly.cost-per-throughput.threshold-percent", "25.0",
            "gpuledger.anomaly.cost-per-throughput.consecutive-minutes", "3",
            "gpuledger.anomaly.cost-per-throughput.recovery-minutes", "5",
            "gpuledger.anomaly.cost-per-throughput.max-series", "100").anomaly().costPerThroughput();
    private static final String USUAL = "10 10 10 10 10 10 10 10 10 10";

    private final CostPerThroughputDetector detector = new CostPerThroughputDetector(SETTINGS);

    @ParameterizedTest(name = "{0}")
    @CsvSource({
            "'flat',                     '10 10 10 10 10 10'",
            "'worse by less than 25%',   '12 12.4 12 12.4 12 12.4'",
            "'cheaper',                  '5 5 5 5 5 5'",
            "'two bad minutes at a time', '14 14 10 14 14 10'",
    })
    void shouldStayQuietUnlessCostPerUnitStaysWorseForLongEnough(String name, String then) {
        // Given a job at 10.00 USD per 1M tokens; When its next minutes arrive
        List<CostAnomaly> found = feed(detector, 0, USUAL + " " + then);

        // Then nothing is flagged
        assertThat(found).isEmpty();
    }

    @ParameterizedTest(name = "{0} bad minutes: {1} anomalies")
    @CsvSource({"1, 0", "2, 0", "3, 1", "6, 1"})
    void shouldNeedThreeAdjacentBadMinutes(int badMinutes, int anomalies) {
        // Given a job at 10.00 USD per 1M tokens; When it costs 14.00 for a number of minutes
        List<CostAnomaly> found = feed(detector, 0, USUAL + " " + "14 ".repeat(badMinutes));

        // Then a regression is flagged once, on its third minute
        assertThat(found).hasSize(anomalies);
    }

    @ParameterizedTest(name = "10.00 to {0} is {1}")
    @CsvSource({
            // now, severity, percent
            "14.0,  WARNING,  40.0",
            "16.0,  CRITICAL, 60.0",   // twice the threshold or more
    })
    void shouldCompareWithTheBaselineBeforeTheRegressionBegan(double now, Severity severity, double percent) {
        // Given a job at 10.00 USD per 1M tokens
        feed(detector, 0, USUAL);

        // When it costs more for three minutes, the baseline creeping up meanwhile (clamped)
        List<CostAnomaly> found = feed(detector, 10, now + " " + now + " " + now);

        // Then the anomaly holds the third minute against 10.00, over a window from the first bad minute
        assertThat(found).hasSize(1);
        CostAnomaly anomaly = found.get(0);
        assertThat(anomaly.kind()).isEqualTo(AnomalyKind.COST_PER_THROUGHPUT);
        assertThat(anomaly.severity()).isEqualTo(severity);
        assertThat(anomaly.dimension()).isEqualTo("job");
        assertThat(anomaly.subject()).isEqualTo("train-llm");
        assertThat(anomaly.measure()).isEqualTo("cost per 1M tokens");
        assertThat(anomaly.expected()).isCloseTo(10.0, within(TOLERANCE));
        assertThat(anomaly.actual()).isCloseTo(now, within(TOLERANCE));
        assertThat(anomaly.impact()).isCloseTo(now - 10.0, within(TOLERANCE));
        assertThat(anomaly.impactPercent()).isCloseTo(percent, within(1e-6));
        assertThat(anomaly.windowStart()).isEqualTo(minute(10));
        assertThat(anomaly.windowEnd()).isEqualTo(minute(13));
        assertThat(anomaly.id()).isEqualTo("cost_per_throughput:job:train-llm:" + minute(10) + ":"
                + severity.name().toLowerCase());
        assertThat(anomaly.evidence()).containsEntry("consecutiveMinutes", 3).containsEntry("minutesObserved", 12L);
    }

    @Test
    void shouldSayWhatAMillionUnitsCostNowAndUsually() {
        // Given a job at 10.00 USD per 1M tokens
        feed(detector, 0, USUAL);

        // When it costs 14.00 for three minutes
        CostAnomaly anomaly = feed(detector, 10, "14 14 14").get(0);

        // Then finance reads it in one sentence
        assertThat(anomaly.summary()).isEqualTo(
                "job train-llm costs 14.00 USD per 1M tokens, 40% above its usual 10.00 USD, for 3 minutes in a row");
    }

    @ParameterizedTest(name = "{0} good minutes between: {1} anomalies")
    @CsvSource({"2, 1", "5, 2"})
    void shouldOpenANewEpisodeAfterTheJobRecovers(int goodMinutes, int anomalies) {
        // Given a job flagged for three minutes at 14.00 per 1M tokens after ten at 10.00
        List<CostAnomaly> found = feed(detector, 0, USUAL + " 14 14 14");

        // When it is back to 10.00 for a while and then regresses again
        found.addAll(feed(detector, 13, "10 ".repeat(goodMinutes) + "14 14 14"));

        // Then the second regression is an anomaly of its own only after five good minutes
        assertThat(found).hasSize(anomalies);
        assertThat(found).extracting(CostAnomaly::id).doesNotHaveDuplicates();
        if (anomalies == 2) {
            assertThat(found.get(1).windowStart()).isEqualTo(minute(13 + goodMinutes));
        }
    }

    @Test
    void shouldNotCountBadMinutesAcrossAGap() {
        // Given a job at 10.00 per 1M tokens, then two bad minutes
        feed(detector, 0, USUAL + " 14 14");

        // When the next bad minute comes after a minute without figures
        List<CostAnomaly> found = feed(detector, 13, "14");

        // Then the run started again: nothing yet
        assertThat(found).isEmpty();
    }

    @Test
    void shouldJudgeOnlyMinutesWithReportedThroughput() {
        // Given a job at 10.00 per 1M tokens
        feed(detector, 0, USUAL);

        // When it reports no work for three minutes (its cost per unit is unknown)
        List<CostAnomaly> found = new ArrayList<>();
        for (int i = 10; i < 13; i++) {
            found.addAll(detector.observe(new JobEconomics("train-llm", minute(i), minute(i + 1), "USD", 8, 480, 0, 5.0,
                    300.0, false, Map.of(), Map.of(), Map.of(), null, 0), minute(i + 1)));
        }

        // Then nothing is flagged
        assertThat(found).isEmpty();
    }

    /** Feeds one minute per value (cost per 1M tokens) from minute {@code first} on; returns what was flagged. */
    private static List<CostAnomaly> feed(CostPerThroughputDetector detector, int first, String perMillion) {
        double[] values = Arrays.stream(perMillion.trim().split("\\s+")).mapToDouble(Double::parseDouble).toArray();
        List<CostAnomaly> found = new ArrayList<>();
        for (int i = 0; i < values.length; i++) {
            Instant start = minute(first + i);
            JobEconomics economics = new JobEconomics("train-llm", start, start.plusSeconds(60), "USD", 8, 480,
                    0, values[i] * 0.5, values[i] * 30, true, Map.of("tokens", 500_000.0), Map.of("tokens", values[i]),
                    Map.of(), null, 0);
            found.addAll(detector.observe(economics, start.plusSeconds(60)));
        }
        return found;
    }

    private static Instant minute(int index) {
        return T0.plusSeconds(60L * index);
    }
}
