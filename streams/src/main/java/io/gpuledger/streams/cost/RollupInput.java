package io.gpuledger.streams.cost;

import io.gpuledger.streams.state.Codec;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.streams.processor.StreamPartitioner;

/**
 * What travels on the roll-ups' repartition topic: the partials of the jobs, teams and pools, each
 * to the partition of its key, and the progress of the tasks that send them, to every partition.
 */
sealed interface RollupInput permits RollupPartial, SourceProgress {

    /** The first byte of a progress record; a partial's is its dimension's ordinal, as it always was. */
    byte PROGRESS = -1;

    Codec<RollupInput> CODEC = new Codec<>() {
        @Override
        public void write(RollupInput input, DataOutput out) throws IOException {
            if (input instanceof SourceProgress progress) {
                out.writeByte(PROGRESS);
                SourceProgress.CODEC.write(progress, out);
            } else {
                RollupPartial.CODEC.write((RollupPartial) input, out);
            }
        }

        @Override
        public RollupInput read(DataInput in) throws IOException {
            byte first = in.readByte();
            if (first == PROGRESS) {
                return SourceProgress.CODEC.read(in);
            }
            return RollupPartial.read(first, in);
        }
    };

    /** Partials by their key, as without a partitioner; progress to every partition. */
    StreamPartitioner<String, RollupInput> PARTITIONER = (topic, key, input, partitions) ->
            input instanceof SourceProgress
                    ? Optional.of(IntStream.range(0, partitions).boxed().collect(Collectors.toUnmodifiableSet()))
                    : Optional.<Set<Integer>>empty();
}
