package io.gpuledger.streams.state;

import java.io.ByteArrayInputStream;
import java.io.DataInput;
import java.io.DataInputStream;
import java.io.DataOutput;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.ArrayDeque;
import java.util.Arrays;

/**
 * A compact binary form of an internal value: state held between commits and records on the
 * engine's own repartition topics. Never used on a contract topic, which stays JSON.
 */
public interface Codec<T> {

    void write(T value, DataOutput out) throws IOException;

    T read(DataInput in) throws IOException;

    /** The value in bytes; a codec may call it for a part of its value while it writes the whole. */
    default byte[] toBytes(T value) {
        Encoder encoder = Encoder.take();
        try {
            write(value, encoder.out);
            return encoder.bytes.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot encode " + value, e);
        } finally {
            Encoder.giveBack(encoder);
        }
    }

    default T fromBytes(byte[] bytes) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
            return read(in);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot decode " + bytes.length + " bytes", e);
        }
    }

    /** A long, in eight bytes. */
    Codec<Long> LONG = new Codec<>() {
        @Override
        public void write(Long value, DataOutput out) throws IOException {
            out.writeLong(value);
        }

        @Override
        public Long read(DataInput in) throws IOException {
            return in.readLong();
        }
    };

    /**
     * What a thread encodes with, used again for every value: a stream over a growing array
     * whose writes take no lock, unlike {@code ByteArrayOutputStream}'s, since stores encode
     * thousands of values at each commit.
     */
    final class Encoder {

        /** The thread's encoders not in use: one, or more while a value's parts are encoded apart. */
        private static final ThreadLocal<ArrayDeque<Encoder>> FREE = ThreadLocal.withInitial(ArrayDeque::new);

        private final Bytes bytes = new Bytes();
        private final DataOutputStream out = new DataOutputStream(bytes);

        private Encoder() {
        }

        private static Encoder take() {
            Encoder encoder = FREE.get().poll();
            if (encoder == null) {
                return new Encoder();
            }
            encoder.bytes.reset();
            return encoder;
        }

        private static void giveBack(Encoder encoder) {
            FREE.get().push(encoder);
        }

        private static final class Bytes extends OutputStream {
            private byte[] buffer = new byte[1024];
            private int size;

            void reset() {
                size = 0;
            }

            byte[] toByteArray() {
                return Arrays.copyOf(buffer, size);
            }

            @Override
            public void write(int b) {
                ensure(1);
                buffer[size++] = (byte) b;
            }

            @Override
            public void write(byte[] from, int offset, int length) {
                ensure(length);
                System.arraycopy(from, offset, buffer, size, length);
                size += length;
            }

            private void ensure(int more) {
                if (size + more > buffer.length) {
                    buffer = Arrays.copyOf(buffer, Math.max(buffer.length * 2, size + more));
                }
            }
        }
    }

    /** Writes a string that may be null. */
    static void writeNullable(String value, DataOutput out) throws IOException {
        out.writeBoolean(value != null);
        if (value != null) {
            out.writeUTF(value);
        }
    }

    static String readNullable(DataInput in) throws IOException {
        return in.readBoolean() ? in.readUTF() : null;
    }
}
