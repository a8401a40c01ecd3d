package io.gpuledger.streams.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UTFDataFormatException;
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

        assertThat(longBytes).hasSize(1 + 8); // the version byte, then the long
        assertThat(Codec.LONG.fromBytes(longBytes)).isEqualTo(42L);
        assertThat(largeBytes).hasSizeGreaterThan(1024);
        assertThat(MIXED.fromBytes(largeBytes)).isEqualTo(large);
        assertThat(MIXED.fromBytes(smallBytes)).isEqualTo(small);
        assertThat(Codec.LONG.fromBytes(Codec.LONG.toBytes(Long.MIN_VALUE))).isEqualTo(Long.MIN_VALUE);
    }

    @Test
    void shouldRefuseAValueWithoutAVersionByteAndANewerVersion() throws IOException {
        ByteArrayOutputStream unversioned = new ByteArrayOutputStream();
        new DataOutputStream(unversioned).writeLong(1_764_700_000_000L);
        // Version 2 (0xC0 + 2) of a long, which this release writes as version 1 only.
        byte[] newer = {(byte) 0xC2, 0, 0, 0, 0, 0, 0, 0, 42};

        assertThat(Codec.LONG.toBytes(42L)[0]).isEqualTo((byte) 0xC1);
        assertThatThrownBy(() -> Codec.LONG.fromBytes(unversioned.toByteArray()))
                .isInstanceOf(UnknownFormatException.class).hasMessageContaining("no format version byte");
        assertThatThrownBy(() -> Codec.LONG.fromBytes(newer)).isInstanceOf(UnknownFormatException.class)
                .hasMessageContaining("format version 2 is newer than the 1 this release reads");
    }

    /** Every write of the encoder gives the bytes a {@code DataOutputStream} gives, which restores read back. */
    @Test
    void shouldWriteTheBytesOfADataOutputStream() throws IOException {
        String[] texts = {"", "GPU-5f9c2a44-0e1b-4b7e-9d8a-6c3f1e2d7b90", "ü", "ノード", "\u0000", "🚀",
            "\u07ff\u0800\uffff", "x".repeat(40_000)};
        long[] longs = {0, -1, 42, Long.MIN_VALUE, Long.MAX_VALUE, 0x0102030405060708L};
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        DataOutputStream reference = new DataOutputStream(expected);
        Codec.Encoder encoder = new Codec.Encoder();
        for (DataOutput out : List.of(reference, encoder)) {
            for (String text : texts) {
                out.writeUTF(text);
                out.writeBytes(text.substring(0, Math.min(5, text.length())));
                out.writeChars(text.substring(0, Math.min(5, text.length())));
            }
            for (long value : longs) {
                out.writeLong(value);
                out.writeInt((int) value);
                out.writeShort((int) value);
                out.writeChar((int) value);
                out.writeByte((int) value);
                out.write((int) (value >>> 8));
                out.writeDouble(Double.longBitsToDouble(value));
                out.writeFloat((float) value);
                out.writeBoolean(value > 0);
            }
            out.writeDouble(Double.NaN);
            out.writeDouble(-0.0);
            out.write(new byte[] {1, 2, 3, 4, 5}, 1, 3);
            out.write(new byte[3000]);
        }

        assertThat(encoder.toByteArray()).isEqualTo(expected.toByteArray());
    }

    @Test
    void shouldRefuseAStringTooLongForItsLengthAsADataOutputStreamDoes() {
        String tooLong = "ノ".repeat(21_846);
        Codec.Encoder encoder = new Codec.Encoder();

        assertThatThrownBy(() -> encoder.writeUTF(tooLong)).isInstanceOf(UTFDataFormatException.class)
                .hasMessageContaining("65538 bytes");
        assertThatThrownBy(() -> new DataOutputStream(new ByteArrayOutputStream()).writeUTF(tooLong))
                .isInstanceOf(UTFDataFormatException.class);
        assertThat(encoder.toByteArray()).isEmpty();
    }
}
