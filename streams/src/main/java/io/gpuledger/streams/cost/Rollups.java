package io.gpuledger.streams.cost;

import io.gpuledger.model.Check;
import io.gpuledger.model.GpuUsage;
import io.gpuledger.model.JsonSerde;
import io.gpuledger.model.Topics;
import io.gpuledger.model.UsageRollup;
import io.gpuledger.model.UsageRollup.Dimension;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.KTable;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.Repartitioned;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;

/**
 * Sums of GPU windows per job, team and pool: by minute, as a rolling five minutes refreshed
 * with every minute (the live view), and by hour (for finance).
 *
 * <ul>
 *   <li>in: the per-GPU minute windows of {@link CostTopology}, as a table: an updated GPU window
 *       replaces its earlier version in every sum (taken out, put back), so re-emitted windows are
 *       never counted twice</li>
 *   <li>out: {@code gpu.rollups.v1} — key {@code dimension|id}, value {@link UsageRollup}</li>
 * </ul>
 * One repartition topic and one store per dimension and period, named {@code rollup-<dimension>-<period>}.
 */
final class Rollups {

    static final List<Duration> PERIODS = List.of(Duration.ofMinutes(1), Duration.ofHours(1));

    private static final JsonSerde<UsageRollup> SERDE = (JsonSerde<UsageRollup>) Topics.ROLLUPS.valueSerde();

    private Rollups() {
    }

    /** Minutes summed by the rolling view. */
    static final int ROLLING_MINUTES = 5;
    static final String ROLLING_STORE = "rollup-rolling-5m";

    /** Adds every roll-up; returns the per-job minutes (keyed as {@link #groupKey}) for the job economics. */
    static KTable<String, UsageRollup> addTo(StreamsBuilder builder, KTable<Windowed<String>, GpuUsage> perGpu) {
        KTable<String, UsageRollup> jobMinutes = null;
        KStream<String, UsageRollup> minutes = null;
        for (Dimension dimension : Dimension.values()) {
            for (Duration period : PERIODS) {
                String name = "rollup-" + dimension.wire() + "-" + label(period);
                KTable<String, UsageRollup> table = perGpu.groupBy((window, usage) -> KeyValue.pair(groupKey(dimension, period, usage), usage),
                                Grouped.with(name + "-by-key", Serdes.String(), Topics.USAGE.valueSerde()))
                        .aggregate(() -> null,
                                (key, usage, rollup) -> (rollup != null ? rollup : empty(dimension, period, usage))
                                        .plus(usage),
                                (key, usage, rollup) -> rollup.minus(usage),
                                Named.as(name + "-aggregate"),
                                Materialized.<String, UsageRollup, KeyValueStore<Bytes, byte[]>>as(name)
                                        .withKeySerde(Serdes.String())
                                        .withValueSerde(SERDE));
                if (dimension == Dimension.JOB && period.equals(PERIODS.get(0))) {
                    jobMinutes = table;
                }
                KStream<String, UsageRollup> updates = table.toStream(Named.as(name + "-updates"))
                        .filter((key, rollup) -> rollup != null, Named.as(name + "-present"))
                        .selectKey((key, rollup) -> rollup.key(), Named.as(name + "-by-dimension"));
                if (period.equals(PERIODS.get(0))) {
                    minutes = minutes == null ? updates : minutes.merge(updates, Named.as(name + "-merged"));
                }
                updates.to(Topics.ROLLUPS.name(), Produced.with(Topics.ROLLUPS.keySerde(), SERDE)
                                .withName(name + "-sink"));
            }
        }
        addRollingView(builder, minutes);
        return jobMinutes;
    }

    /** The last five minutes of every job, team and pool, refreshed each time one of its minutes changes. */
    private static void addRollingView(StreamsBuilder builder, KStream<String, UsageRollup> minutes) {
        builder.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(ROLLING_STORE),
                Serdes.String(), new JsonSerde<>(RollingView.Recent.class)));
        minutes.repartition(Repartitioned.<String, UsageRollup>as("rollup-rolling-by-dimension")
                        .withKeySerde(Serdes.String()).withValueSerde(SERDE))
                .processValues(() -> new RollingView(ROLLING_STORE, ROLLING_MINUTES), Named.as("rollup-rolling-5m"),
                        ROLLING_STORE)
                .to(Topics.ROLLUPS.name(), Produced.with(Topics.ROLLUPS.keySerde(), SERDE)
                        .withName("rollup-rolling-5m-sink"));
    }

    static UsageRollup empty(Dimension dimension, Duration period, GpuUsage usage) {
        Instant start = bucket(usage.windowStart(), period);
        return new UsageRollup(dimension, UsageRollup.idOf(dimension, usage), start, start.plus(period),
                usage.currency(), 0, null);
    }

    private static String groupKey(Dimension dimension, Duration period, GpuUsage usage) {
        return groupKey(dimension, UsageRollup.idOf(dimension, usage), bucket(usage.windowStart(), period));
    }

    /** {@code dimension|id|bucketStartMillis}: the key of a roll-up in its store and repartition topic. */
    static String groupKey(Dimension dimension, String id, Instant bucketStart) {
        return dimension.wire() + Check.KEY_SEPARATOR + id + Check.KEY_SEPARATOR + bucketStart.toEpochMilli();
    }

    static Instant bucket(Instant at, Duration period) {
        long millis = at.toEpochMilli();
        return Instant.ofEpochMilli(millis - Math.floorMod(millis, period.toMillis()));
    }

    private static String label(Duration period) {
        return period.toHours() >= 1 ? period.toHours() + "h" : period.toMinutes() + "m";
    }
}
