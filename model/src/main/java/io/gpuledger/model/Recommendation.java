package io.gpuledger.model;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import java.io.IOException;
import java.time.Instant;
import java.util.Locale;
import java.util.Optional;

/**
 * A machine-actionable suggestion for rebalancing automation. Keyed on
 * {@link Topics#RECOMMENDATIONS} by {@code target.id}, inside a {@link CloudEvent}. The {@code id}
 * is derived from the kind and the target only, so the same situation always yields the same id:
 * a newer record with the same id supersedes the earlier one (a new {@code status}, a fresher
 * {@code expiresAt}, new figures), and a consumer that has acted on an id can ignore later
 * records of it.
 *
 * @param status                 whether to act on it; {@link RecommendationStatus#WITHDRAWN} when the situation is over
 * @param action                 what to do, as parameters automation can use without reading {@code summary}:
 *                               the record of {@code kind} ({@link RecommendationKind#actionType()});
 *                               null when none was given, written as an empty object
 * @param deadline               when acting stops making sense (the cloud's interruption time); null when none
 * @param estimatedMonthlySaving money saved per 30-day month if acted on, in {@code currency}
 * @param confidence             0–1: how sure the rule is that acting is right
 * @param createdAt              when the situation was first seen; the same for every record of the id
 * @param updatedAt              when this record was published
 * @param evidence               the figures the rule decided on: the record of {@code kind}
 *                               ({@link RecommendationKind#evidenceType()}); null when none was given, written
 *                               as an empty object
 */
public record Recommendation(
        @JsonProperty(required = true) int schemaVersion,
        @JsonProperty(required = true) String id,
        @JsonProperty(required = true) RecommendationKind kind,
        RecommendationStatus status,
        @JsonProperty(required = true) Target target,
        @JsonProperty(required = true) String summary,
        @JsonSerialize(nullsUsing = EmptyObject.class) RecommendationAction action,
        Instant deadline,
        @JsonProperty(required = true) double estimatedMonthlySaving,
        String currency,
        @JsonProperty(required = true) double confidence,
        @JsonProperty(required = true) Instant createdAt,
        Instant updatedAt,
        @JsonProperty(required = true) Instant expiresAt,
        @JsonSerialize(nullsUsing = EmptyObject.class) RecommendationEvidence evidence) {

    public static final int SCHEMA_VERSION = 1;

    /** Hours in the 30-day month that savings are quoted for. */
    public static final double HOURS_PER_MONTH = 720;

    public Recommendation {
        if (schemaVersion < 1) {
            throw new InvalidRecordException("schemaVersion", "must be at least 1, was " + schemaVersion);
        }
        Check.present("id", id);
        Check.present("kind", kind);
        status = status == null ? RecommendationStatus.OPEN : status;
        Check.present("target", target);
        Check.present("summary", summary);
        if (action != null && !kind.actionType().isInstance(action)) {
            throw new InvalidRecordException("action", "of " + kind + " is a " + kind.actionType().getSimpleName()
                    + ", not a " + action.getClass().getSimpleName());
        }
        if (deadline != null) {
            Check.instant("deadline", deadline);
        }
        Check.nonNegative("estimatedMonthlySaving", estimatedMonthlySaving);
        if (currency != null) {
            Check.currency("currency", currency);
        }
        Check.ratio("confidence", confidence);
        Check.instant("createdAt", createdAt);
        updatedAt = updatedAt == null ? createdAt : updatedAt;
        Check.instant("updatedAt", updatedAt);
        Check.instant("expiresAt", expiresAt);
        if (evidence != null && !kind.evidenceType().isInstance(evidence)) {
            throw new InvalidRecordException("evidence", "of " + kind + " is a "
                    + kind.evidenceType().getSimpleName() + ", not a " + evidence.getClass().getSimpleName());
        }
    }

    /**
     * Reads a record as written: {@code kind} says which records {@code action} and {@code evidence}
     * are. An absent, null or empty one is none, as it was written for a record made without it.
     */
    @JsonCreator
    static Recommendation read(@JsonProperty(value = "schemaVersion", required = true) int schemaVersion,
            @JsonProperty(value = "id", required = true) String id,
            @JsonProperty(value = "kind", required = true) RecommendationKind kind,
            @JsonProperty("status") RecommendationStatus status,
            @JsonProperty(value = "target", required = true) Target target,
            @JsonProperty(value = "summary", required = true) String summary,
            @JsonProperty("action") JsonNode action,
            @JsonProperty("deadline") Instant deadline,
            @JsonProperty(value = "estimatedMonthlySaving", required = true) double estimatedMonthlySaving,
            @JsonProperty("currency") String currency,
            @JsonProperty(value = "confidence", required = true) double confidence,
            @JsonProperty(value = "createdAt", required = true) Instant createdAt,
            @JsonProperty("updatedAt") Instant updatedAt,
            @JsonProperty(value = "expiresAt", required = true) Instant expiresAt,
            @JsonProperty("evidence") JsonNode evidence) {
        Check.present("kind", kind);
        return new Recommendation(schemaVersion, id, kind, status, target, summary, actionOf(kind, action), deadline,
                estimatedMonthlySaving, currency, confidence, createdAt, updatedAt, expiresAt,
                partOf(kind, "evidence", evidence, kind.evidenceType()));
    }

    private static RecommendationAction actionOf(RecommendationKind kind, JsonNode action) {
        return partOf(kind, "action", action, kind.actionType());
    }

    /** The {@code field} of a record of {@code kind}, read as its {@code type}; none where absent or empty. */
    private static <T> T partOf(RecommendationKind kind, String field, JsonNode node, Class<T> type) {
        if (node == null || node.isNull() || node.isEmpty()) {
            return null;
        }
        try {
            return Json.MAPPER.treeToValue(node, type);
        } catch (JsonProcessingException e) {
            throw new InvalidRecordException(field, "is not the " + field + " of " + kind + ": "
                    + e.getOriginalMessage(), e);
        }
    }

    /** Writes a missing action or evidence as {@code {}}: the schema has both always an object. */
    static final class EmptyObject extends JsonSerializer<Object> {
        @Override
        public void serialize(Object value, JsonGenerator generator, SerializerProvider provider) throws IOException {
            generator.writeStartObject();
            generator.writeEndObject();
        }
    }

    /** A new, open recommendation of {@code kind} for {@code target}, first seen and published {@code now}. */
    public static Recommendation open(RecommendationKind kind, Target target, String summary,
            RecommendationAction action, Instant deadline, double estimatedMonthlySaving, String currency,
            double confidence, Instant now, Instant expiresAt, RecommendationEvidence evidence) {
        return builder().open(kind, target, now).summary(summary).action(action).deadline(deadline)
                .estimatedMonthlySaving(estimatedMonthlySaving).currency(currency).confidence(confidence)
                .expiresAt(expiresAt).evidence(evidence).build();
    }

    /** This recommendation in {@code newStatus}, published {@code now}, served until {@code expiresAt}. */
    public Recommendation withStatus(RecommendationStatus newStatus, Instant now, Instant newExpiresAt) {
        return toBuilder().status(newStatus).updatedAt(now).expiresAt(newExpiresAt).build();
    }

    /** This recommendation claiming {@code saving} a month, on {@code newEvidence}. */
    public Recommendation withFigures(double saving, RecommendationEvidence newEvidence) {
        return toBuilder().estimatedMonthlySaving(saving).evidence(newEvidence).build();
    }

    /** The same situation seen again: the figures of {@code fresher}, the first-seen time of this one. */
    public Recommendation supersededBy(Recommendation fresher) {
        return fresher.toBuilder().id(id).kind(kind).createdAt(createdAt).build();
    }

    /** The deterministic id of the recommendation of {@code kind} for {@code target}. */
    public static String idFor(RecommendationKind kind, Target target) {
        return idFor(kind, target.type(), target.id());
    }

    public static String idFor(RecommendationKind kind, String targetType, String targetId) {
        return kind.name().toLowerCase(Locale.ROOT) + ":" + targetType + ":" + targetId;
    }

    public static Builder builder() {
        return new Builder();
    }

    public Builder toBuilder() {
        return new Builder().schemaVersion(schemaVersion).id(id).kind(kind).status(status).target(target)
                .summary(summary).action(action).deadline(deadline).estimatedMonthlySaving(estimatedMonthlySaving)
                .currency(currency).confidence(confidence).createdAt(createdAt).updatedAt(updatedAt)
                .expiresAt(expiresAt).evidence(evidence);
    }

    /** Fluent construction at the current schema version; {@link #build()} validates like the JSON reader does. */
    public static final class Builder {
        private int schemaVersion = SCHEMA_VERSION;
        private String id;
        private RecommendationKind kind;
        private RecommendationStatus status;
        private Target target;
        private String summary;
        private RecommendationAction action;
        private Instant deadline;
        private double estimatedMonthlySaving;
        private String currency;
        private double confidence;
        private Instant createdAt;
        private Instant updatedAt;
        private Instant expiresAt;
        private RecommendationEvidence evidence;

        private Builder() {
        }

        /** A new, open recommendation of {@code kind} for {@code target}, first seen and published {@code now}. */
        public Builder open(RecommendationKind newKind, Target newTarget, Instant now) {
            return id(idFor(newKind, newTarget)).kind(newKind).status(RecommendationStatus.OPEN).target(newTarget)
                    .createdAt(now).updatedAt(now);
        }

        public Builder schemaVersion(int value) { schemaVersion = value; return this; }
        public Builder id(String value) { id = value; return this; }
        public Builder kind(RecommendationKind value) { kind = value; return this; }
        public Builder status(RecommendationStatus value) { status = value; return this; }
        public Builder target(Target value) { target = value; return this; }
        public Builder summary(String value) { summary = value; return this; }
        public Builder action(RecommendationAction value) { action = value; return this; }
        public Builder deadline(Instant value) { deadline = value; return this; }
        public Builder estimatedMonthlySaving(double value) { estimatedMonthlySaving = value; return this; }
        public Builder currency(String value) { currency = value; return this; }
        public Builder confidence(double value) { confidence = value; return this; }
        public Builder createdAt(Instant value) { createdAt = value; return this; }
        public Builder updatedAt(Instant value) { updatedAt = value; return this; }
        public Builder expiresAt(Instant value) { expiresAt = value; return this; }
        public Builder evidence(RecommendationEvidence value) { evidence = value; return this; }

        public Recommendation build() {
            return new Recommendation(schemaVersion, id, kind, status, target, summary, action, deadline,
                    estimatedMonthlySaving, currency, confidence, createdAt, updatedAt, expiresAt, evidence);
        }
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

        /** The types of target the rules name. */
        public static final String JOB = "job";
        public static final String POOL = "pool";
        public static final String INSTANCE = "instance";
        public static final String GPU = "gpu";

        public Target {
            Check.identity("target.type", type);
            // A pool's id is its offer key, which holds the key separator: present and bounded is enough.
            if (id == null || id.isBlank()) {
                throw new InvalidRecordException("target.id", "is required");
            }
            if (id.length() > 1024) {
                throw new InvalidRecordException("target.id", "is longer than 1024 characters");
            }
        }

        /** A job, which runs wherever the scheduler puts it: only its id. */
        public static Target job(String jobId) {
            return new Target(JOB, jobId, null, null, null, null, null, null);
        }

        /** A pool of like instances, by its offer key. */
        public static Target pool(Offer pool) {
            return new Target(POOL, pool.key(), null, null, pool.provider(), pool.region(), pool.instanceType(),
                    pool.lifecycle());
        }

        /** The instance of {@code where}, by its instance id. */
        public static Target instance(Placement where) {
            return located(INSTANCE, where.instanceId(), where);
        }

        /** One GPU of the instance of {@code where}, by its UUID. */
        public static Target gpu(String gpuUuid, Placement where) {
            return located(GPU, gpuUuid, where);
        }

        /**
         * The instance a capacity notice is about, located as far as the notice says: a cloud's
         * notice may leave out the region, the instance type, the host or the lifecycle.
         */
        public static Target instance(CapacityEvent notice) {
            return new Target(INSTANCE, notice.instanceId(), notice.host(), notice.instanceId(), notice.provider(),
                    notice.region(), notice.instanceType(), notice.lifecycle());
        }

        private static Target located(String type, String id, Placement where) {
            return new Target(type, id, where.host(), where.instanceId(), where.provider(), where.region(),
                    where.instanceType(), where.lifecycle());
        }

        /** The offer the target is bought as; empty for a job, or where a notice left a part out. */
        public Optional<Offer> offer() {
            if (provider == null || region == null || instanceType == null || lifecycle == null) {
                return Optional.empty();
            }
            return Optional.of(new Offer(provider, region, instanceType, lifecycle));
        }

        /** Where the target runs; empty for a job or a pool, or where a notice left a part out. */
        public Optional<Placement> placement() {
            if (host == null || instanceId == null) {
                return Optional.empty();
            }
            return offer().map(bought -> Placement.of(host, instanceId, bought));
        }
    }
}
