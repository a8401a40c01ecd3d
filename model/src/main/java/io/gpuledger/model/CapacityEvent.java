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
}
