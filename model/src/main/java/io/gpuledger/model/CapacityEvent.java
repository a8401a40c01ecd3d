package io.gpuledger.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Instant;

/**
 * A cloud's notice that capacity is going away, normalised over AWS, GCP and Azure, or the node
 * agent's own word that its instance is shutting down ({@link CapacityEventKind#INSTANCE_STOPPING}).
 * Keyed on {@link Topics#CAPACITY_EVENTS} by {@code instanceId}. The {@code eventId} is the same for
 * every sighting of one notice (the agent polls, the notice stays up), so it is published once.
 *
 * @param action   what the cloud will do, in its words ({@code terminate}, {@code stop}, {@code Preempt}, …)
 * @param deadline when it happens; null when the cloud gives no time (rebalance, GCP preemption under way)
 * @param raw      the notice exactly as the cloud served it
 */
public record CapacityEvent(
        @JsonProperty(required = true) int schemaVersion,
        @JsonProperty(required = true) String eventId,
        @JsonProperty(required = true) String provider,
        String region,
        @JsonProperty(required = true) String instanceId,
        String instanceType,
        String host,
        Lifecycle lifecycle,
        @JsonProperty(required = true) CapacityEventKind kind,
        String action,
        @JsonProperty(required = true) Instant noticedAt,
        Instant deadline,
        String source,
        String raw) {

    public static final int SCHEMA_VERSION = 1;

    public CapacityEvent {
        if (schemaVersion < 1) {
            throw new InvalidRecordException("schemaVersion", "must be at least 1, was " + schemaVersion);
        }
        Check.identity("eventId", eventId);
        Check.identity("provider", provider);
        Check.identity("instanceId", instanceId);
        Check.present("kind", kind);
        Check.instant("noticedAt", noticedAt);
        if (raw != null && raw.length() > 65_536) {
            throw new InvalidRecordException("raw", "is longer than 65536 characters");
        }
    }

    /**
     * The id of a notice: the same cloud, instance, kind and deadline (or the cloud's own event
     * id, where it gives one) is the same notice, however often it is seen.
     */
    public static String idOf(String provider, String instanceId, CapacityEventKind kind, String noticeIdentity) {
        return provider + ":" + instanceId + ":" + kind.name().toLowerCase(java.util.Locale.ROOT) + ":"
                + noticeIdentity;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Fluent construction at the current schema version; {@link #build()} validates like the JSON reader does. */
    public static final class Builder {
        private int schemaVersion = SCHEMA_VERSION;
        private String eventId;
        private String provider;
        private String region;
        private String instanceId;
        private String instanceType;
        private String host;
        private Lifecycle lifecycle;
        private CapacityEventKind kind;
        private String action;
        private Instant noticedAt;
        private Instant deadline;
        private String source;
        private String raw;

        private Builder() {
        }

        public Builder schemaVersion(int value) { schemaVersion = value; return this; }
        public Builder eventId(String value) { eventId = value; return this; }
        public Builder provider(String value) { provider = value; return this; }
        public Builder region(String value) { region = value; return this; }
        public Builder instanceId(String value) { instanceId = value; return this; }
        public Builder instanceType(String value) { instanceType = value; return this; }
        public Builder host(String value) { host = value; return this; }
        public Builder lifecycle(Lifecycle value) { lifecycle = value; return this; }
        public Builder kind(CapacityEventKind value) { kind = value; return this; }
        public Builder action(String value) { action = value; return this; }
        public Builder noticedAt(Instant value) { noticedAt = value; return this; }
        public Builder deadline(Instant value) { deadline = value; return this; }
        public Builder source(String value) { source = value; return this; }
        public Builder raw(String value) { raw = value; return this; }

        /** Which instance the notice is for: copies the instance identity fields of {@code where}. */
        public Builder placement(Placement where) {
            return provider(where.provider()).region(where.region()).instanceId(where.instanceId())
                    .instanceType(where.instanceType()).host(where.host()).lifecycle(where.lifecycle());
        }

        public CapacityEvent build() {
            return new CapacityEvent(schemaVersion, eventId, provider, region, instanceId, instanceType, host,
                    lifecycle, kind, action, noticedAt, deadline, source, raw);
        }
    }
}
