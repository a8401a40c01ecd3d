package io.gpuledger.alerts.anomaly;

import io.gpuledger.model.AnomalyKind;
import io.gpuledger.model.CostAnomaly;
import io.gpuledger.model.CostAnomaly.Cause;
import io.gpuledger.model.CostAnomaly.Severity;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;

/** What the detectors share when they write an anomaly: its id, its derived figures and how amounts read. */
final class Anomalies {

    private Anomalies() {
    }

    /**
     * {@link CostAnomaly#idFor} followed by {@code :warning} or {@code :critical}. An episode that
     * escalates is delivered a second time, and each delivery needs an id of its own (a webhook
     * delivers an id once); the severity tells the two apart while the window still ties them.
     */
    static String id(AnomalyKind kind, String dimension, String subject, Instant windowStart, Severity severity) {
        return CostAnomaly.idFor(kind, dimension, subject, windowStart) + ":" + severity.name()
                .toLowerCase(Locale.ROOT);
    }

    /** What one detection found; the anomaly's id, impact and percentage follow from it. */
    record Finding(AnomalyKind kind, String dimension, String subject, Severity severity, String measure,
                   double expected, double actual, String currency, Instant windowStart, Instant windowEnd) {

        double impact() {
            return actual - expected;
        }

        CostAnomaly toAnomaly(Instant detectedAt, Cause rootCause, String summary, Map<String, Object> evidence) {
            return CostAnomaly.builder().id(id(kind, dimension, subject, windowStart, severity)).kind(kind)
                    .dimension(dimension).subject(subject).severity(severity).measure(measure).expected(expected)
                    .actual(actual).impact(impact()).impactPercent(CostAnomaly.percentAbove(expected, actual))
                    .currency(currency).windowStart(windowStart).windowEnd(windowEnd).detectedAt(detectedAt)
                    .rootCause(rootCause).summary(summary).evidence(evidence).build();
        }

        /** A finding of {@code kind}, to which the other parts are given one by one. */
        static Finding of(AnomalyKind kind) {
            return new Finding(kind, null, null, null, null, 0, 0, null, null, null);
        }

        Finding dimension(String value) {
            return new Finding(kind, value, subject, severity, measure,
                    expected, actual, currency, windowStart, windowEnd);
        }

        Finding subject(String value) {
            return new Finding(kind, dimension, value, severity, measure,
                    expected, actual, currency, windowStart, windowEnd);
        }

        Finding severity(Severity value) {
            return new Finding(kind, dimension, subject, value, measure,
                    expected, actual, currency, windowStart, windowEnd);
        }

        Finding measure(String value) {
            return new Finding(kind, dimension, subject, severity, value,
                    expected, actual, currency, windowStart, windowEnd);
        }

        Finding expected(double value) {
            return new Finding(kind, dimension, subject, severity, measure,
                    value, actual, currency, windowStart, windowEnd);
        }

        Finding actual(double value) {
            return new Finding(kind, dimension, subject, severity, measure,
                    expected, value, currency, windowStart, windowEnd);
        }

        Finding currency(String value) {
            return new Finding(kind, dimension, subject, severity, measure,
                    expected, actual, value, windowStart, windowEnd);
        }

        Finding windowStart(Instant value) {
            return new Finding(kind, dimension, subject, severity, measure,
                    expected, actual, currency, value, windowEnd);
        }

        Finding windowEnd(Instant value) {
            return new Finding(kind, dimension, subject, severity, measure,
                    expected, actual, currency, windowStart, value);
        }
    }

    /**
     * An amount as finance reads it: two decimals, a point, no grouping; four decimals under 0.10,
     * where a cost per 1M tokens can lie and two would read as nothing.
     */
    static String money(double amount) {
        return String.format(Locale.ROOT, amount != 0 && Math.abs(amount) < 0.1 ? "%.4f" : "%.2f", amount);
    }

    /** A percentage: whole numbers from 10% up, one decimal below. */
    static String percent(double percent) {
        return String.format(Locale.ROOT, Math.abs(percent) >= 10 ? "%.0f%%" : "%.1f%%", percent);
    }

    /** {@code "160% above"}, or {@code "above"} when nothing was expected. */
    static String above(double expected, double actual) {
        Double percent = CostAnomaly.percentAbove(expected, actual);
        return percent == null ? "above" : percent(percent) + " above";
    }
}
