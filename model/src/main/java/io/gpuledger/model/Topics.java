package io.gpuledger.model;

import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.Serdes;

/**
 * The topic registry: every topic GPU Ledger reads or writes, defined once. Producers, the
 * topologies and the tests all name topics through these constants.
 */
public final class Topics {

    /**
     * The setting of the inputs whose times drive the cost engine's clock: the broker dates each
     * record as it appends it, so that the engine can tell a node whose clock runs fast from one
     * that is merely behind, also when it reads them long after (docs/operations.md#clocks).
     */
    private static final Map<String, String> DATED_BY_BROKER = Map.of(TopicConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG,
            "LogAppendTime");

    /** Per-GPU samples from node agents and the simulator; key: GPU UUID. Dated by the broker. */
    public static final Topic<String, TelemetrySample> TELEMETRY = new Topic<>(
            "gpu.telemetry.v1", Serdes.String(), new JsonSerde<>(TelemetrySample.class), DATED_BY_BROKER);

    /** Price versions; key: {@link PriceQuote#key()}. Compacted: the latest copy of each version stays. */
    public static final Topic<String, PriceQuote> PRICES = new Topic<>(
            "pricing.quotes.v1", Serdes.String(), new JsonSerde<>(PriceQuote.class),
            Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT));

    /** Per-GPU one-minute usage windows; key: GPU UUID. */
    public static final Topic<String, GpuUsage> USAGE = new Topic<>(
            "gpu.usage.v1", Serdes.String(), new JsonSerde<>(GpuUsage.class), Map.of());

    /** Per-job, per-team and per-pool sums of GPU windows, by minute and by hour; key: {@code dimension|id}. */
    public static final Topic<String, UsageRollup> ROLLUPS = new Topic<>(
            "gpu.rollups.v1", Serdes.String(), new JsonSerde<>(UsageRollup.class), Map.of());

    /**
     * Each GPU's clock hours, with where it ran and each job's part, once the hour has closed; key: GPU UUID.
     * Kept 400 days: what finance exports and reconciles with bills that come a month or more later.
     */
    public static final Topic<String, GpuHour> HOURS = new Topic<>(
            "gpu.hours.v1", Serdes.String(), new JsonSerde<>(GpuHour.class),
            Map.of(TopicConfig.RETENTION_MS_CONFIG, String.valueOf(java.time.Duration.ofDays(400).toMillis())));

    /**
     * What each reconciliation with a provider's bill found per offer and billing account
     * ({@code gpu-ledger reconcile --publish}); key: {@link ReconciliationRatio#key()}. Compacted: the latest of
     * each stays.
     */
    public static final Topic<String, ReconciliationRatio> RECONCILIATION = new Topic<>(
            "finance.reconciliation.v1", Serdes.String(), new JsonSerde<>(ReconciliationRatio.class),
            Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT));

    /** Each job's cost against its reported work, by minute; key: job id. */
    public static final Topic<String, JobEconomics> JOB_ECONOMICS = new Topic<>(
            "gpu.job-economics.v1", Serdes.String(), new JsonSerde<>(JobEconomics.class), Map.of());

    /** Work reports the cost engine could not read or accept, as {@link #TELEMETRY_DEAD_LETTERS}. */
    public static final Topic<String, byte[]> JOB_PROGRESS_DEAD_LETTERS = new Topic<>(
            "gpu.job-progress.dlq.v1", Serdes.String(), Serdes.ByteArray(), Map.of());

    /**
     * Recommendations for automation, each a {@link CloudEvent} (structured mode) whose data is a
     * {@link Recommendation}; key: the target's id. Every change of a recommendation is a new
     * record with the same recommendation id; the alert service reads the topic back at start.
     */
    public static final Topic<String, CloudEvent<Recommendation>> RECOMMENDATIONS = new Topic<>(
            "gpu.recommendations.v1", Serdes.String(), JsonSerde.cloudEvents(Recommendation.class),
            // Kept 30 days: longer than a dismissal lasts by default (7 days), since the alert
            // service learns its dismissals back from this topic when it starts.
            Map.of(TopicConfig.RETENTION_MS_CONFIG, String.valueOf(java.time.Duration.ofDays(30).toMillis())));

    /** Cost anomalies for finance; key: {@code <dimension>|<subject>} ({@link CostAnomaly#key()}). */
    public static final Topic<String, CostAnomaly> COST_ANOMALIES = new Topic<>(
            "cost.anomalies.v1", Serdes.String(), new JsonSerde<>(CostAnomaly.class),
            Map.of(TopicConfig.RETENTION_MS_CONFIG, String.valueOf(java.time.Duration.ofDays(30).toMillis())));

    /**
     * Which anomalies reached which webhook receiver; compacted, read back by the alert service at
     * start, and deleted after 60 days: twice as long as the anomalies themselves are kept.
     */
    public static final Topic<String, WebhookDelivery> WEBHOOK_DELIVERIES = new Topic<>(
            "alerts.webhook-deliveries.v1", Serdes.String(), new JsonSerde<>(WebhookDelivery.class),
            Map.of(TopicConfig.CLEANUP_POLICY_CONFIG,
                    TopicConfig.CLEANUP_POLICY_COMPACT + "," + TopicConfig.CLEANUP_POLICY_DELETE,
                    TopicConfig.RETENTION_MS_CONFIG, String.valueOf(java.time.Duration.ofDays(60).toMillis())));

    /** Work reports of jobs, one per node and interval; key: job id. Dated by the broker. */
    public static final Topic<String, JobProgress> JOB_PROGRESS = new Topic<>(
            "gpu.job-progress.v1", Serdes.String(), new JsonSerde<>(JobProgress.class), DATED_BY_BROKER);

    /**
     * Spot interruptions, preemptions and maintenance notices, and instances their agents say are
     * shutting down, once per notice; key: instance id.
     */
    public static final Topic<String, CapacityEvent> CAPACITY_EVENTS = new Topic<>(
            "gpu.capacity-events.v1", Serdes.String(), new JsonSerde<>(CapacityEvent.class), Map.of());

    /**
     * Telemetry records the cost engine could not read or accept, byte for byte as received;
     * headers say why and where they came from (see {@link DeadLetters}).
     */
    public static final Topic<String, byte[]> TELEMETRY_DEAD_LETTERS = new Topic<>(
            "gpu.telemetry.dlq.v1", Serdes.String(), Serdes.ByteArray(), Map.of());

    /** Capacity notices with the GPUs, jobs and cost of their instance, once per notice; key: instance id. */
    public static final Topic<String, EnrichedCapacityEvent> CAPACITY_EVENTS_ENRICHED = new Topic<>(
            "gpu.capacity-events.enriched.v1", Serdes.String(), new JsonSerde<>(EnrichedCapacityEvent.class),
            Map.of());

    /**
     * Capacity notices the cost engine could not read or accept, as received, with
     * {@link DeadLetters} headers.
     */
    public static final Topic<String, byte[]> CAPACITY_EVENT_DEAD_LETTERS = new Topic<>(
            "gpu.capacity-events.dlq.v1", Serdes.String(), Serdes.ByteArray(), Map.of());

    /**
     * Usage windows the cost engine could not read or place on an instance, as received, with
     * {@link DeadLetters} headers.
     */
    public static final Topic<String, byte[]> USAGE_DEAD_LETTERS = new Topic<>(
            "gpu.usage.dlq.v1", Serdes.String(), Serdes.ByteArray(), Map.of());

    /**
     * Records on the alert service's input topics that it could not read, as received, with
     * {@link DeadLetters} headers.
     */
    public static final Topic<String, byte[]> ALERTS_DEAD_LETTERS = new Topic<>(
            "gpu.alerts.dlq.v1", Serdes.String(), Serdes.ByteArray(), Map.of());

    /** The dead-letter topics of every stage. */
    public static final List<Topic<String, byte[]>> DEAD_LETTERS = List.of(TELEMETRY_DEAD_LETTERS,
            JOB_PROGRESS_DEAD_LETTERS, CAPACITY_EVENT_DEAD_LETTERS, USAGE_DEAD_LETTERS, ALERTS_DEAD_LETTERS);

    public static final List<Topic<?, ?>> ALL = List.of(
            TELEMETRY, PRICES, USAGE, ROLLUPS, HOURS, RECONCILIATION, JOB_ECONOMICS, RECOMMENDATIONS,
            COST_ANOMALIES, WEBHOOK_DELIVERIES, JOB_PROGRESS, CAPACITY_EVENTS,
            CAPACITY_EVENTS_ENRICHED, TELEMETRY_DEAD_LETTERS, JOB_PROGRESS_DEAD_LETTERS, CAPACITY_EVENT_DEAD_LETTERS,
            USAGE_DEAD_LETTERS, ALERTS_DEAD_LETTERS);

    private Topics() {
    }
}
