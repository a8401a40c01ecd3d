package io.gpuledger.streams.state;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class CodecTest {

    /** A list of strings and doubles, as the stores' values are made of. */
    private static final Codec<List<Object>> MIXED = new Codec<>() {
        @Override
        public void write(List<Object> values, DataOutput out) throws IOException {
            out.writeInt(values.size());
            for (Object value : values) {
                out.writeBoolean(value instanceof String);
                if (value instanceof String text) {
                    out.writeUTF(text);
                } else {
                    out.writeDouble((Double) value);
                }
            }
        }

        @Override
        public List<Object> read(DataInput in) throws IOException {
            List<Object> values = new ArrayList<>();
            for (int count = in.readInt(); count > 0; count--) {
                values.add(in.readBoolean() ? in.readUTF() : (Object) in.readDouble());
            }
            return values;
        }
    };

    @Test
    void shouldReadBackEachValueItWroteWhateverItsSizeAndWhateverCameBefore() {
        List<Object> large = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            large.add(i % 2 == 0 ? "GPU-ü-ノード-\u0000-🚀-" + i : (Object) (i * 0.1));
        }
        List<Object> small = List.of("job|train-llm", -0.0, Double.MAX_VALUE);

        byte[] longBytes = Codec.LONG.toBytes(42L);
        byte[] largeBytes = MIXED.toBytes(large);
        byte[] smallBytes = MIXED.toBytes(small);

        assertThat(longBytes).hasSize(8);
        assertThat(Codec.LONG.fromBytes(longBytes)).isEqualTo(42L);
        assertThat(largeBytes).hasSizeGreaterThan(1024);
        assertThat(MIXED.fromBytes(largeBytes)).isEqualTo(large);
        assertThat(MIXED.fromBytes(smallBytes)).isEqualTo(small);
        assertThat(Codec.LONG.fromBytes(Codec.LONG.toBytes(Long.MIN_VALUE))).isEqualTo(Long.MIN_VALUE);
    }
}
