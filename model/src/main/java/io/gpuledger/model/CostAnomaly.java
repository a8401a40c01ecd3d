package io.gpuledger.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Something finance should look at: spend, a forecast, a price or a cost per unit of work far from
 * what was expected. Keyed on {@link Topics#COST_ANOMALIES} by {@code <dimension>|<subject>}. The
 * {@code id} is derived from the kind, the subject and the window only, so one anomaly is one id
 * however often it is detected (and is delivered to a webhook once).
 *
 * @param dimension     what {@code subject} is: {@code team}, {@code job}, {@code pool}, {@code project}, {@code offer}
 * or {@code gpu}
 * @param measure       what {@code expected} and {@code actual} measure, in words ({@code spend per hour},
 *                      {@code month-end spend}, {@code price per instance-hour}, {@code cost per 1M tokens})
 * @param impact        actual − expected, in {@code currency}, in the unit of {@code measure}
 * @param impactPercent impact as a percentage of expected; null when nothing was expected
 * @param rootCause     the part of the subject that accounts for most of the impact; null when not known
 */
public record CostAnomaly(
        @JsonProperty(required = true) int schemaVersion,
        @JsonProperty(required = true) String id,
        @JsonProperty(required = true) AnomalyKind kind,
        @JsonProperty(required = true) String dimension,
        @JsonProperty(required = true) String subject,
        @JsonProperty(required = true) Severity severity,
        @JsonProperty(required = true) String measure,
        double expected,
        double actual,
        double impact,
        Double impactPercent,
        @JsonProperty(required = true) String currency,
        @JsonProperty(required = true) Instant windowStart,
        @JsonProperty(required = true) Instant windowEnd,
        @JsonProperty(required = true) Instant detectedAt,
        Cause rootCause,
        @JsonProperty(required = true) String summary,
        Map<String, Object> evidence) {

    public static final int SCHEMA_VERSION = 1;

    public enum Severity {
        WARNING, CRITICAL
    }

    /**
     * A part of the anomaly's subject (a job of a team, a pool of a job) and the share of the
     * impact it accounts for.
     */
    public record Cause(String dimension, String id, double impact, double share) {
        public Cause {
            Check.present("rootCause.dimension", dimension);
            Check.present("rootCause.id", id);
            Check.finite("rootCause.impact", impact);
            Check.finite("rootCause.share", share);
        }
    }

    public CostAnomaly {
        if (schemaVersion < 1) {
            throw new InvalidRecordException("schemaVersion", "must be at least 1, was " + schemaVersion);
        }
        Check.present("id", id);
        Check.present("kind", kind);
        Check.identity("dimension", dimension);
        Check.present("subject", subject);
        Check.present("severity", severity);
        Check.present("measure", measure);
        Check.finite("expected", expected);
        Check.finite("actual", actual);
        Check.finite("impact", impact);
        if (impactPercent != null) {
            Check.finite("impactPercent", impactPercent);
        }
        Check.currency("currency", currency);
        Check.instant("windowStart", windowStart);
        Check.instant("windowEnd", windowEnd);
        Check.instant("detectedAt", detectedAt);
        Check.present("summary", summary);
        evidence = evidence == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(evidence));
    }

    /**
     * The deterministic id of an anomaly of {@code kind} for a subject, in the window starting at {@code windowStart}.
     */
    public static String idFor(AnomalyKind kind, String dimension, String subject, Instant windowStart) {
        return kind.name().toLowerCase(Locale.ROOT) + ":" + dimension + ":" + subject + ":" + windowStart;
    }

    /** {@code <dimension>|<subject>}: the key on {@link Topics#COST_ANOMALIES}. */
    public String key() {
        return dimension + Check.KEY_SEPARATOR + subject;
    }

    /** The percentage {@code actual} lies above {@code expected}; null when nothing was expected. */
    public static Double percentAbove(double expected, double actual) {
        return expected == 0 ? null : (actual - expected) / expected * 100;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Fluent construction at the current schema version; {@link #build()} validates like the JSON reader does. */
    public static final class Builder {
        private int schemaVersion = SCHEMA_VERSION;
        private String id;
        private AnomalyKind kind;
        private String dimension;
        private String subject;
        private Severity severity;
        private String measure;
        private double expected;
        private double actual;
        private double impact;
        private Double impactPercent;
        private String currency;
        private Instant windowStart;
        private Instant windowEnd;
        private Instant detectedAt;
        private Cause rootCause;
        private String summary;
        private Map<String, Object> evidence;

        private Builder() {
        }

        public Builder schemaVersion(int value) { schemaVersion = value; return this; }
        public Builder id(String value) { id = value; return this; }
        public Builder kind(AnomalyKind value) { kind = value; return this; }
        public Builder dimension(String value) { dimension = value; return this; }
        public Builder subject(String value) { subject = value; return this; }
        public Builder severity(Severity value) { severity = value; return this; }
        public Builder measure(String value) { measure = value; return this; }
        public Builder expected(double value) { expected = value; return this; }
        public Builder actual(double value) { actual = value; return this; }
        public Builder impact(double value) { impact = value; return this; }
        public Builder impactPercent(Double value) { impactPercent = value; return this; }
        public Builder currency(String value) { currency = value; return this; }
        public Builder windowStart(Instant value) { windowStart = value; return this; }
        public Builder windowEnd(Instant value) { windowEnd = value; return this; }
        public Builder detectedAt(Instant value) { detectedAt = value; return this; }
        public Builder rootCause(Cause value) { rootCause = value; return this; }
        public Builder summary(String value) { summary = value; return this; }
        public Builder evidence(Map<String, Object> value) { evidence = value; return this; }

        public CostAnomaly build() {
            return new CostAnomaly(schemaVersion, id, kind, dimension, subject, severity, measure, expected, actual,
                    impact, impactPercent, currency, windowStart, windowEnd, detectedAt, rootCause, summary, evidence);
        }
    }
}
