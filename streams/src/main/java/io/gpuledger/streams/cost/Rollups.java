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
import org.apache.kafka.streams.kstream.KTable;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Sums of GPU windows per job, team and pool, by minute (for the live view) and by hour (for
 * finance).
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

    /** Adds every roll-up; returns the per-job minutes (keyed as {@link #groupKey}) for the job economics. */
    static KTable<String, UsageRollup> addTo(KTable<Windowed<String>, GpuUsage> perGpu) {
        KTable<String, UsageRollup> jobMinutes = null;
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
                table.toStream(Named.as(name + "-updates"))
                        .filter((key, rollup) -> rollup != null, Named.as(name + "-present"))
                        .selectKey((key, rollup) -> rollup.key(), Named.as(name + "-by-dimension"))
                        .to(Topics.ROLLUPS.name(), Produced.with(Topics.ROLLUPS.keySerde(), SERDE)
                                .withName(name + "-sink"));
            }
        }
        return jobMinutes;
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
