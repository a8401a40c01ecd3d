package io.gpuledger.streams.cost;

import io.gpuledger.model.CurrencyRates;
import io.gpuledger.model.GpuHour;
import io.gpuledger.model.GpuUsage;
import io.gpuledger.model.TelemetrySample;
import io.gpuledger.model.Topics;
import io.gpuledger.model.UsageRollup;
import io.gpuledger.streams.capacity.CapacityTopology;
import io.gpuledger.streams.price.PriceVersionWriter;
import io.gpuledger.streams.price.PriceWrites;
import io.gpuledger.streams.state.Codec;
import io.gpuledger.streams.state.LiveStoreBuilder;
import java.time.Duration;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.state.Stores;

/**
 * The pricing join and the per-GPU usage window.
 *
 * <ul>
 *   <li>in: {@code gpu.telemetry.v1} — key GPU UUID (String), value {@link TelemetrySample} JSON</li>
 *   <li>in (global store): {@code pricing.quotes.v1} — key price-version key (String), value
 *       {@link io.gpuledger.model.PriceQuote} JSON</li>
 *   <li>out: {@code gpu.usage.v1} — key GPU UUID (String), value {@link io.gpuledger.model.GpuUsage} JSON: a
 *       one-minute window's totals so far, sent at most once per update interval while it is
 *       open, then once more when it closes ({@code closed=true}, with its unmonitored seconds)</li>
 *   <li>out: {@code gpu.rollups.v1} — key {@code dimension|id} (String), value
 *       {@link io.gpuledger.model.UsageRollup} JSON: per job, team and pool, by minute and hour</li>
 *   <li>out: {@code gpu.hours.v1} — key GPU UUID (String), value {@link GpuHour} JSON: each GPU's clock hour,
 *       where it ran and each job's part of it, once the hour has closed</li>
 *   <li>in: {@code gpu.job-progress.v1} and out: {@code gpu.job-economics.v1} — see {@link JobEconomicsFlow}</li>
 *   <li>in: {@code gpu.capacity-events.v1} (and this engine's usage windows, as it sends them), out:
 *       {@code gpu.capacity-events.enriched.v1} — see {@link CapacityTopology}</li>
 *   <li>out: {@code gpu.telemetry.dlq.v1} — the refused telemetry (malformed, invalid, keyed by
 *       anything but its GPU, later than the grace period, or from the future), key and bytes as received, with
 *       the reason in {@link io.gpuledger.model.DeadLetters} headers</li>
 * </ul>
 *
 * Telemetry is keyed by GPU already, so pricing and windowing need no repartition: the price
 * table is global (every instance holds all prices, a few hundred rows) and in memory. Each
 * sample is aggregated once, by {@link GpuWindows}, into its GPU's minute and into its task's
 * partial sums of the GPU's job, team and pool, which {@link Rollups} adds up across tasks: one
 * small repartition instead of a pass over the samples per view.
 */
public final class CostTopology {

    public static final String PRICE_STORE = "price-versions";
    public static final String USAGE_STORE = "gpu-usage-1m";
    static final String IDENTITY_STORE = "gpu-identity";
    static final String RECENT_STORE = "gpu-recent-minutes";
    static final String PARTIALS_STORE = "rollup-partials-pending";
    static final String CLOCK_STORE = "gpu-usage-clock";
    static final String ROLLUP_STORE = "rollups";
    static final String ROLLUP_MINUTES_STORE = "rollup-minutes";
    static final String SOURCES_STORE = "rollup-sources";

    private CostTopology() {
    }

    /**
     * @param grace how long after a window ends late samples are still added to it; later ones
     *              go to the dead-letter topic as late
     * @param rates conversion of prices into the reporting currency of every published amount
     */
    public static Topology build(Duration grace, CurrencyRates rates) {
        return build(CostSettings.of(grace, rates));
    }

    public static Topology build(CostSettings settings) {
        StreamsBuilder builder = new StreamsBuilder();
        addTo(builder, settings);
        return builder.build();
    }

    public static void addTo(StreamsBuilder builder, CostSettings settings) {
        // The price writer tells this topology's price tables, and no other engine's, of each version.
        PriceWrites priceWrites = new PriceWrites();
        builder.addGlobalStore(
                Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(PRICE_STORE), Serdes.String(),
                        Serdes.ByteArray()).withLoggingDisabled(),
                Topics.PRICES.name(),
                Consumed.with(Serdes.String(), Serdes.ByteArray()).withName("price-quotes-source"),
                () -> new PriceVersionWriter(PRICE_STORE, priceWrites));

        builder.addStateStore(new LiveStoreBuilder<>(USAGE_STORE, GpuState.CODEC));
        builder.addStateStore(new LiveStoreBuilder<>(IDENTITY_STORE, GpuIdentity.CODEC));
        builder.addStateStore(new LiveStoreBuilder<>(RECENT_STORE, GpuRecent.CODEC));
        builder.addStateStore(new LiveStoreBuilder<>(PARTIALS_STORE, PendingPartial.CODEC));
        builder.addStateStore(new LiveStoreBuilder<>(CLOCK_STORE, Codec.LONG));
        // Samples are read where they are charged: one processor per record, no hop for the reading.
        KStream<String, Object> windows = builder
                .stream(Topics.TELEMETRY.name(),
                        Consumed.with(Serdes.String(), Serdes.ByteArray()).withName("telemetry-source"))
                .process(() -> new GpuWindows(settings, priceWrites), Named.as("gpu-windows"), USAGE_STORE,
                        IDENTITY_STORE, RECENT_STORE, PARTIALS_STORE, CLOCK_STORE);
        KStream<String, GpuUsage> usage = Outputs.child(windows, Outputs.USAGE, GpuUsage.class);
        usage.to(Topics.USAGE.name(), Produced.with(Topics.USAGE.keySerde(), Topics.USAGE.valueSerde())
                .withName("usage-sink"));
        Outputs.child(windows, Outputs.GPU_VIEWS, UsageRollup.class)
                .to(Topics.ROLLUPS.name(), Produced.with(Topics.ROLLUPS.keySerde(), Topics.ROLLUPS.valueSerde())
                        .withName("gpu-views-sink"));
        Outputs.child(windows, Outputs.HOURS, GpuHour.class)
                .to(Topics.HOURS.name(), Produced.with(Topics.HOURS.keySerde(), Topics.HOURS.valueSerde())
                        .withName("gpu-hours-sink"));
        Outputs.child(windows, Outputs.REFUSED, byte[].class).to(Topics.TELEMETRY_DEAD_LETTERS.name(),
                Produced.with(Serdes.String(), Serdes.ByteArray()).withName("telemetry-dead-letters-sink"));

        KStream<String, RollupInput> partials = Outputs.child(windows, Outputs.PARTIALS, RollupInput.class);
        Rollups.addTo(builder, partials.merge(JobEconomicsFlow.addTo(builder, settings),
                Named.as("rollup-partials-with-work")), settings);
        CapacityTopology.addTo(builder, CapacityTopology.DEFAULT_PLACEMENT_MAX_AGE, usage);
    }
}
