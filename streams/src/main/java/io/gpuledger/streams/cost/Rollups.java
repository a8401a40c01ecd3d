package io.gpuledger.streams.cost;

import io.gpuledger.model.JobEconomics;
import io.gpuledger.model.JsonSerde;
import io.gpuledger.model.Topics;
import io.gpuledger.model.UsageRollup;
import io.gpuledger.streams.state.CodecSerde;
import io.gpuledger.streams.state.LiveStoreBuilder;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.Repartitioned;

/**
 * Jobs, teams and pools by minute, by hour and as a rolling five minutes refreshed with every
 * minute that changes: sums of the partials the GPU windows send, never a second pass over the
 * samples.
 *
 * <ul>
 *   <li>in: {@link RollupPartial}s, regrouped by {@code dimension|id} on the repartition topic
 *       {@code rollup-partials} (binary: internal to the engine), and the {@link SourceProgress} of
 *       each task that sends them, on every partition of it</li>
 *   <li>out: {@code gpu.rollups.v1} — key {@code dimension|id}, value {@link UsageRollup}; the
 *       latest record of a (key, windowStart, windowEnd) is its total so far</li>
 *   <li>out: {@code gpu.job-economics.v1} — see {@link JobEconomicsFlow}</li>
 * </ul>
 */
final class Rollups {

    private static final JsonSerde<UsageRollup> SERDE = (JsonSerde<UsageRollup>) Topics.ROLLUPS.valueSerde();

    private Rollups() {
    }

    /** Adds the roll-ups and the job economics they feed. */
    static void addTo(StreamsBuilder builder, KStream<String, RollupInput> partials, CostSettings settings) {
        builder.addStateStore(new LiveStoreBuilder<>(CostTopology.ROLLUP_STORE, RollupState.CODEC));
        builder.addStateStore(new LiveStoreBuilder<>(CostTopology.ROLLUP_MINUTES_STORE, RollupState.MINUTE_CODEC));
        builder.addStateStore(new LiveStoreBuilder<>(CostTopology.SOURCES_STORE, SourceProgress.CODEC));
        KStream<String, Object> out = partials
                .repartition(Repartitioned.<String, RollupInput>as("rollup-partials")
                        .withKeySerde(Serdes.String()).withValueSerde(new CodecSerde<>(RollupInput.CODEC))
                        .withStreamPartitioner(RollupInput.PARTITIONER))
                .process(() -> new RollupWindows(settings), Named.as("rollup-windows"), CostTopology.ROLLUP_STORE,
                        CostTopology.ROLLUP_MINUTES_STORE, CostTopology.SOURCES_STORE);
        Outputs.child(out, Outputs.ROLLUPS, UsageRollup.class)
                .to(Topics.ROLLUPS.name(), Produced.with(Topics.ROLLUPS.keySerde(), SERDE).withName("rollups-sink"));
        Outputs.child(out, Outputs.ECONOMICS, JobEconomics.class)
                .to(Topics.JOB_ECONOMICS.name(), Produced.with(Topics.JOB_ECONOMICS.keySerde(),
                        Topics.JOB_ECONOMICS.valueSerde()).withName("job-economics-sink"));
    }
}
