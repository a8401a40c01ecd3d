package io.gpuledger.streams.cost;

import io.gpuledger.streams.state.Codec;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;

/**
 * How far one task that sends roll-up partials has got: every partial it will send for a minute
 * that ends at or before {@code closedUntil} has been sent before this. It is sent to every
 * partition of the roll-ups' repartition topic, after the partials it vouches for, so that a
 * roll-up minute closes on the progress of every sender, not on the newest minute one of them sent.
 *
 * @param source      the partition of the telemetry and work reports the sending task reads
 * @param closedUntil epoch millis, at a minute's start; {@link Long#MIN_VALUE} before anything closed
 * @param idle        whether the task's inputs have gone quiet (it has worked its backlog off and
 *                    nothing new comes): then it holds no roll-up back, whatever its progress
 */
record SourceProgress(int source, long closedUntil, boolean idle) implements RollupInput {

    static final Codec<SourceProgress> CODEC = new Codec<>() {
        @Override
        public void write(SourceProgress progress, DataOutput out) throws IOException {
            out.writeInt(progress.source);
            out.writeLong(progress.closedUntil);
            out.writeBoolean(progress.idle);
        }

        @Override
        public SourceProgress read(DataInput in) throws IOException {
            return new SourceProgress(in.readInt(), in.readLong(), in.readBoolean());
        }
    };

    /** The key it travels under; its partitioner sends it everywhere all the same. */
    String key() {
        return "source|" + source;
    }
}
