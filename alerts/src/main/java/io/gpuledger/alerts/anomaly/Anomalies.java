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

        static Builder builder() {
            return new Builder();
        }

        static final class Builder {
            private AnomalyKind kind;
            private String dimension;
            private String subject;
            private Severity severity;
            private String measure;
            private double expected;
            private double actual;
            private String currency;
            private Instant windowStart;
            private Instant windowEnd;

            private Builder() {
            }

            Builder kind(AnomalyKind value) { kind = value; return this; }
            Builder dimension(String value) { dimension = value; return this; }
            Builder subject(String value) { subject = value; return this; }
            Builder severity(Severity value) { severity = value; return this; }
            Builder measure(String value) { measure = value; return this; }
            Builder expected(double value) { expected = value; return this; }
            Builder actual(double value) { actual = value; return this; }
            Builder currency(String value) { currency = value; return this; }
            Builder windowStart(Instant value) { windowStart = value; return this; }
            Builder windowEnd(Instant value) { windowEnd = value; return this; }

            Finding build() {
                return new Finding(kind, dimension, subject, severity, measure, expected, actual, currency,
                        windowStart, windowEnd);
            }
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
