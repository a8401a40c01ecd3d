package io.gpuledger.streams.cost;

import io.gpuledger.model.GpuUsage;
import io.gpuledger.model.TelemetrySample;
import io.gpuledger.model.Topics;
import io.gpuledger.streams.capacity.CapacityTopology;
import io.gpuledger.streams.deadletter.ParseOrReject;
import io.gpuledger.streams.deadletter.Parsed;
import io.gpuledger.streams.price.CurrencyRates;
import io.gpuledger.streams.price.PriceVersionWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Branched;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.KTable;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.TimeWindows;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.WindowStore;

/**
 * The pricing join and the per-GPU usage window.
 *
 * <ul>
 *   <li>in: {@code gpu.telemetry.v1} — key GPU UUID (String), value {@link TelemetrySample} JSON</li>
 *   <li>in (global store): {@code pricing.quotes.v1} — key price-version key (String), value
 *       {@link io.gpuledger.model.PriceQuote} JSON</li>
 *   <li>out: {@code gpu.usage.v1} — key GPU UUID (String), value {@link GpuUsage} JSON, one record
 *       per update of a one-minute window</li>
 *   <li>out: {@code gpu.rollups.v1} — key {@code dimension|id} (String), value
 *       {@link io.gpuledger.model.UsageRollup} JSON: per job, team and pool, by minute and hour</li>
 *   <li>in: {@code gpu.job-progress.v1} and out: {@code gpu.job-economics.v1} — see {@link JobEconomicsFlow}</li>
 *   <li>in: {@code gpu.capacity-events.v1} (and this engine's {@code gpu.usage.v1}), out:
 *       {@code gpu.capacity-events.enriched.v1} — see {@link CapacityTopology}</li>
 *   <li>out: {@code gpu.telemetry.dlq.v1} — the refused telemetry (malformed, invalid, keyed by
 *       anything but its GPU, or later than the grace period), key and bytes as received, with
 *       the reason in {@link io.gpuledger.model.DeadLetters} headers</li>
 * </ul>
 *
 * Telemetry is keyed by GPU already, so pricing and windowing need no repartition: the price
 * table is global (every instance holds all prices, a few hundred rows) and in memory. Each
 * sample is aggregated once, into its GPU's minute; jobs, teams and pools are sums of those GPU
 * windows ({@link Rollups}), never a second pass over the samples.
 */
public final class CostTopology {

    public static final String PRICE_STORE = "price-versions";
    public static final String USAGE_STORE = "gpu-usage-1m";
    public static final Duration WINDOW = Duration.ofMinutes(1);

    private CostTopology() {
    }

    /**
     * @param grace how long after a window ends late samples are still added to it; later ones
     *              go to the dead-letter topic as late
     * @param rates conversion of prices into the reporting currency of every published amount
     */
    public static Topology build(Duration grace, CurrencyRates rates) {
        StreamsBuilder builder = new StreamsBuilder();
        addTo(builder, grace, rates);
        return builder.build();
    }

    public static void addTo(StreamsBuilder builder, Duration grace, CurrencyRates rates) {
        builder.addGlobalStore(
                Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(PRICE_STORE), Serdes.String(),
                        Serdes.ByteArray()).withLoggingDisabled(),
                Topics.PRICES.name(),
                Consumed.with(Serdes.String(), Serdes.ByteArray()).withName("price-quotes-source"),
                () -> new PriceVersionWriter(PRICE_STORE));

        Map<String, KStream<String, Parsed<TelemetrySample>>> telemetry = builder
                .stream(Topics.TELEMETRY.name(),
                        Consumed.with(Serdes.String(), Serdes.ByteArray()).withName("telemetry-source"))
                .processValues(() -> new ParseOrReject<>("telemetry", TelemetrySample.class, TelemetrySample::gpuUuid,
                        EventTime::millis), Named.as("telemetry-parse"))
                .processValues(() -> new RejectTooLate(WINDOW, grace), Named.as("telemetry-late-gate"))
                .split(Named.as("telemetry-"))
                .branch((gpu, parsed) -> parsed.isValid(), Branched.as("valid"))
                .defaultBranch(Branched.as("refused"));

        telemetry.get("telemetry-refused")
                .mapValues(Parsed::raw, Named.as("telemetry-refused-bytes"))
                .to(Topics.TELEMETRY_DEAD_LETTERS.name(), Produced.with(Serdes.String(), Serdes.ByteArray())
                        .withName("telemetry-dead-letters-sink"));

        KTable<Windowed<String>, GpuUsage> perGpu = telemetry.get("telemetry-valid")
                .mapValues(Parsed::value, Named.as("telemetry-valid-sample"))
                .processValues(() -> new ChargeSample(PRICE_STORE, rates), Named.as("telemetry-price-join"))
                .groupByKey(Grouped.as("usage-by-gpu"))
                .windowedBy(TimeWindows.ofSizeAndGrace(WINDOW, grace))
                .aggregate(() -> null,
                        (gpu, priced, usage) -> usageOf(usage, priced, rates.reporting()),
                        Named.as("usage-aggregate"),
                        Materialized.<String, GpuUsage, WindowStore<Bytes, byte[]>>as(USAGE_STORE)
                                .withKeySerde(Serdes.String())
                                .withValueSerde(Topics.USAGE.valueSerde()));

        perGpu.toStream(Named.as("usage-updates"))
                .map((window, usage) -> KeyValue.pair(window.key(), usage), Named.as("usage-by-gpu-key"))
                .to(Topics.USAGE.name(), Produced.with(Topics.USAGE.keySerde(), Topics.USAGE.valueSerde())
                        .withName("usage-sink"));

        JobEconomicsFlow.addTo(builder, Rollups.addTo(builder, perGpu));
        CapacityTopology.addTo(builder, CapacityTopology.DEFAULT_PLACEMENT_MAX_AGE);
    }

    /** Adds a sample to its window, opening the window on its first sample. */
    static GpuUsage usageOf(GpuUsage usage, PricedSample priced, String currency) {
        TelemetrySample sample = priced.sample();
        GpuUsage window = usage != null ? usage
                : GpuUsage.empty(sample, windowStart(sample), windowStart(sample).plus(WINDOW), currency);
        return window.add(sample, priced.gpuPricePerHour());
    }

    /** Start of the tumbling window that holds the sample: windows are aligned to the epoch. */
    static Instant windowStart(TelemetrySample sample) {
        long at = EventTime.millis(sample);
        return Instant.ofEpochMilli(at - Math.floorMod(at, WINDOW.toMillis()));
    }
}
