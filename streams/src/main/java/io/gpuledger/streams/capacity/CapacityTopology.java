package io.gpuledger.streams.capacity;

import io.gpuledger.model.CapacityEvent;
import io.gpuledger.model.Check;
import io.gpuledger.model.EnrichedCapacityEvent;
import io.gpuledger.model.GpuUsage;
import io.gpuledger.model.Topic;
import io.gpuledger.model.Topics;
import io.gpuledger.streams.deadletter.ParseOrReject;
import io.gpuledger.streams.deadletter.Parsed;
import io.gpuledger.streams.state.CodecSerde;
import io.gpuledger.streams.state.LiveStoreBuilder;
import java.time.Duration;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.Branched;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.Repartitioned;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorSupplier;

/**
 * Capacity notices joined with what runs on their instance, published as each notice arrives.
 *
 * <ul>
 *   <li>in: {@code gpu.capacity-events.v1} — key instance id (String), value {@link CapacityEvent} JSON</li>
 *   <li>in: {@code gpu.usage.v1} — key GPU UUID (String), value {@link GpuUsage} JSON</li>
 *   <li>out: {@code gpu.capacity-events.enriched.v1} — key instance id (String), value
 *       {@link EnrichedCapacityEvent} JSON, one per notice received (a copy of a notice published
 *       already is refused: {@link RepeatedNotices})</li>
 *   <li>out: {@code gpu.capacity-events.dlq.v1} and {@code gpu.usage.dlq.v1} — the refused
 *       notices and usage windows, key and bytes as received, with the reason in
 *       {@link io.gpuledger.model.DeadLetters} headers</li>
 * </ul>
 *
 * The placement of each instance is a table kept up to date from the usage windows as they are
 * re-emitted, so a notice is joined with it on arrival and never waits for a window to close. A
 * GPU is followed by its UUID first ({@link TrackGpus}), which is where a move to another
 * instance can be seen, then its changes are regrouped by instance on one repartition topic,
 * co-partitioned with the notices.
 */
public final class CapacityTopology {

    /** A GPU that reported nothing for this long no longer counts as placed on its instance. */
    public static final Duration DEFAULT_PLACEMENT_MAX_AGE = Duration.ofMinutes(10);
    /**
     * How far behind its latest window a GPU's placement may say it was seen: an unchanged GPU is
     * passed on again only after this much usage time, not with every window.
     */
    static final Duration PLACEMENT_REFRESH = Duration.ofMinutes(2);
    public static final String GPU_STORE = "capacity-gpu-last-seen";
    public static final String PLACEMENT_STORE = "capacity-placement";
    public static final String PLACEMENT_CHANGES = "capacity-placement-changes";
    /** The notices published lately, by instance: see {@link RepeatedNotices}. */
    static final String NOTICES_STORE = "capacity-notices-seen";

    private CapacityTopology() {
    }

    /**
     * Adds the capacity stage to an application's topology. It must be the only part of that
     * application reading {@code gpu.usage.v1} and {@code gpu.capacity-events.v1}.
     *
     * @param placementMaxAge how recent a GPU's latest usage window must be, before the notice, for
     *                        the GPU to count as placed on its instance; GPUs silent for longer
     *                        are forgotten
     */
    public static void addTo(StreamsBuilder builder, Duration placementMaxAge) {
        // A window is dated by its start: an update of the window under way then sorts before a
        // notice that arrives during it, where Kafka Streams has both to choose from.
        Map<String, KStream<String, Parsed<GpuUsage>>> usage = readOrReject(builder, Topics.USAGE, "capacity-usage",
                () -> new ParseOrReject<>("capacity-usage", GpuUsage.class, CapacityTopology::placeableGpu,
                        window -> window.windowStart().toEpochMilli()), UnaryOperator.identity(),
                Topics.USAGE_DEAD_LETTERS);
        addTo(builder, placementMaxAge, usage.get("capacity-usage-valid")
                .mapValues(Parsed::value, Named.as("capacity-usage-valid-window")));
    }

    /**
     * Adds the capacity stage fed by an application's own usage windows, keyed by GPU and dated
     * by their window's start, rather than by reading them back from {@code gpu.usage.v1}: what
     * the cost engine does, which saves parsing every window it has just written.
     */
    public static void addTo(StreamsBuilder builder, Duration placementMaxAge, KStream<String, GpuUsage> usage) {
        if (placementMaxAge.isNegative() || placementMaxAge.isZero()) {
            throw new IllegalArgumentException("placementMaxAge must be positive, was " + placementMaxAge);
        }
        KStream<String, PlaceAndEnrich.Input> changes = placementChanges(builder, placementMaxAge, usage)
                .mapValues(change -> (PlaceAndEnrich.Input) new PlaceAndEnrich.Input.Change(change),
                        Named.as("capacity-placement-change-input"));

        builder.addStateStore(new LiveStoreBuilder<>(NOTICES_STORE, NoticesSeen.CODEC));
        // A notice drives no window and no clock of the engine, and one from a node whose clock runs
        // a minute fast must still reach automation: only the widest allowance keeps its time
        // sane. Its deadline, the cloud's, is in the future by nature and never checked.
        Map<String, KStream<String, Parsed<CapacityEvent>>> notices = readOrReject(builder, Topics.CAPACITY_EVENTS,
                "capacity-events", () ->
                        new ParseOrReject<>("capacity-events", CapacityEvent.class, CapacityEvent::instanceId,
                        CapacityTopology::noticedAt).refusingAhead("noticedAt", CapacityTopology::noticedAt,
                                ParseOrReject.MAX_AHEAD, false),
                parsed -> parsed.processValues(() -> new RepeatedNotices(NOTICES_STORE),
                        Named.as("capacity-events-repeats"), NOTICES_STORE),
                Topics.CAPACITY_EVENT_DEAD_LETTERS);

        builder.addStateStore(new LiveStoreBuilder<>(PLACEMENT_STORE, InstancePlacement.CODEC));
        notices.get("capacity-events-valid")
                .mapValues(parsed -> (PlaceAndEnrich.Input) new PlaceAndEnrich.Input.Notice(parsed.value()),
                        Named.as("capacity-events-valid-notice"))
                .merge(changes, Named.as("capacity-notices-and-changes"))
                .process(() -> new PlaceAndEnrich(PLACEMENT_STORE, placementMaxAge),
                        Named.as("capacity-placement-join"),
                        PLACEMENT_STORE)
                .to(Topics.CAPACITY_EVENTS_ENRICHED.name(), Produced.with(Topics.CAPACITY_EVENTS_ENRICHED.keySerde(),
                        Topics.CAPACITY_EVENTS_ENRICHED.valueSerde()).withName("capacity-events-enriched-sink"));
    }

    /** What changed on each instance, regrouped by instance id, co-partitioned with the notices. */
    private static KStream<String, PlacementChange> placementChanges(StreamsBuilder builder, Duration maxAge,
            KStream<String, GpuUsage> usage) {
        builder.addStateStore(new LiveStoreBuilder<>(GPU_STORE, GpuAt.CODEC));
        return usage
                .process(() -> new TrackGpus(GPU_STORE, maxAge), Named.as("capacity-gpu-tracking"), GPU_STORE)
                .repartition(Repartitioned.<String, PlacementChange>as(PLACEMENT_CHANGES)
                        .withKeySerde(Serdes.String()).withValueSerde(new CodecSerde<>(PlacementChange.CODEC)));
    }

    /**
     * Reads a topic as bytes and parses each record in the topology, so that a refused one goes to
     * its dead-letter topic with the reason instead of stopping the stage; {@code judged} may refuse
     * more of the parsed records (as {@link Parsed#invalid}). Returns the branches
     * {@code <name>-valid} and {@code <name>-refused}.
     */
    private static <T> Map<String, KStream<String, Parsed<T>>> readOrReject(StreamsBuilder builder,
            Topic<String, T> topic, String name, FixedKeyProcessorSupplier<String, byte[], Parsed<T>> parser,
            UnaryOperator<KStream<String, Parsed<T>>> judged, Topic<String, byte[]> deadLetters) {
        Map<String, KStream<String, Parsed<T>>> branches = judged.apply(builder
                .stream(topic.name(), Consumed.with(Serdes.String(), Serdes.ByteArray()).withName(name + "-source"))
                .processValues(parser, Named.as(name + "-parse")))
                .split(Named.as(name + "-"))
                .branch((key, parsed) -> parsed.isValid(), Branched.as("valid"))
                .defaultBranch(Branched.as("refused"));
        branches.get(name + "-refused")
                .mapValues(Parsed::raw, Named.as(name + "-refused-bytes"))
                .to(deadLetters.name(), Produced.with(deadLetters.keySerde(), deadLetters.valueSerde())
                        .withName(name + "-dead-letters-sink"));
        return branches;
    }

    /**
     * A usage window can only be placed on an instance it names. {@link GpuUsage} does not require
     * one, so a window without it is refused here, with the same reason a contract rule gives.
     */
    private static long noticedAt(CapacityEvent notice) {
        return notice.noticedAt().toEpochMilli();
    }

    private static String placeableGpu(GpuUsage window) {
        Check.identity("instanceId", window.placement().instanceId());
        return window.gpuUuid();
    }

    static EnrichedCapacityEvent enrich(CapacityEvent notice, InstancePlacement placement, Duration maxAge) {
        if (placement == null) {
            return EnrichedCapacityEvent.unplaced(notice);
        }
        return EnrichedCapacityEvent.placed(notice, placement.updatedAt(),
                placement.recentAt(notice.noticedAt(), maxAge.plus(PLACEMENT_REFRESH)));
    }
}
