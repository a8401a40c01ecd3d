package io.gpuledger.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Instant;
import java.util.Map;

/**
 * A machine-actionable suggestion for rebalancing automation. Keyed on
 * {@link Topics#RECOMMENDATIONS} by {@code target.id}. The {@code id} is derived from the kind
 * and the target only, so the same situation always yields the same id: a consumer that has
 * acted on an id can ignore later records with it, and a newer record with the same id
 * supersedes the earlier one.
 *
 * @param estimatedMonthlySaving money saved per 30-day month if acted on, in {@code currency}
 * @param confidence             0–1: how sure the rule is that acting is right
 * @param evidence               the figures the rule decided on, by name
 */
public record Recommendation(
        @JsonProperty(required = true) int schemaVersion,
        @JsonProperty(required = true) String id,
        @JsonProperty(required = true) RecommendationKind kind,
        @JsonProperty(required = true) Target target,
        @JsonProperty(required = true) String summary,
        @JsonProperty(required = true) double estimatedMonthlySaving,
        String currency,
        @JsonProperty(required = true) double confidence,
        @JsonProperty(required = true) Instant createdAt,
        @JsonProperty(required = true) Instant expiresAt,
        Map<String, Object> evidence) {

    public static final int SCHEMA_VERSION = 1;

    public Recommendation {
        if (schemaVersion < 1) {
            throw new InvalidRecordException("schemaVersion", "must be at least 1, was " + schemaVersion);
        }
        Check.present("id", id);
        Check.present("kind", kind);
        Check.present("target", target);
        Check.present("summary", summary);
        Check.nonNegative("estimatedMonthlySaving", estimatedMonthlySaving);
        if (currency != null) {
            Check.currency("currency", currency);
        }
        Check.ratio("confidence", confidence);
        Check.instant("createdAt", createdAt);
        Check.instant("expiresAt", expiresAt);
        evidence = evidence == null ? Map.of() : Map.copyOf(evidence);
    }

    /** The deterministic id of the recommendation of {@code kind} for {@code target}. */
    public static String idFor(RecommendationKind kind, Target target) {
        return idFor(kind, target.type(), target.id());
    }

    public static String idFor(RecommendationKind kind, String targetType, String targetId) {
        return kind.name().toLowerCase(java.util.Locale.ROOT) + ":" + targetType + ":" + targetId;
    }

    /**
     * What the recommendation is about. {@code type} is {@code gpu}, {@code instance}, {@code job}
     * or {@code pool}; the other fields locate it and are null where they do not apply.
     */
    public record Target(
            @JsonProperty(required = true) String type,
            @JsonProperty(required = true) String id,
            String host,
            String instanceId,
            String provider,
            String region,
            String instanceType,
            Lifecycle lifecycle) {

        public Target {
            Check.identity("target.type", type);
            Check.identity("target.id", id);
        }
    }
}
