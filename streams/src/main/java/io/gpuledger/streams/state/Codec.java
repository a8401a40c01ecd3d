package io.gpuledger.streams.state;

import java.io.ByteArrayInputStream;
import java.io.DataInput;
import java.io.DataInputStream;
import java.io.DataOutput;
import java.io.IOException;
import java.io.UTFDataFormatException;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.Arrays;

/**
 * A compact binary form of an internal value: state held between commits and records on the
 * engine's own repartition topics. Never used on a contract topic, which stays JSON.
 *
 * <p>{@link #toBytes} writes a version byte before the value, {@code 0xC0} plus the format's
 * {@link #version()} (1 to 62), so that a format can change one instance at a time: a release
 * first learns to read the new version ({@link #read(DataInput, int)}, {@link #readsUpTo()}),
 * the next one writes it. Only formats a tagged release wrote are read: a value without a version
 * byte, or of a newer version than the codec reads, is refused with an {@link UnknownFormatException}.
 */
public interface Codec<T> {

    /** Added to the version to make the version byte. */
    int VERSION_MARK = 0xC0;
    /** The newest version a version byte can say. */
    int MAX_VERSION = 0xFE - VERSION_MARK;

    void write(T value, DataOutput out) throws IOException;

    /** Reads a value's body in the format this codec writes. */
    T read(DataInput in) throws IOException;

    /** The format version {@link #toBytes} writes. */
    default int version() {
        return 1;
    }

    /**
     * The format version {@link #toBytes} writes {@code value} in: {@link #version()}, unless a codec writes a
     * newer one only for values that need it, so that values an older release could not have made stay readable
     * by it.
     */
    default int version(T value) {
        return version();
    }

    /** The newest format version this codec reads: ahead of {@link #version()} while a change rolls out. */
    default int readsUpTo() {
        return version();
    }

    /** Reads a body written in format {@code version}, from 1 to {@link #readsUpTo()}. */
    default T read(DataInput in, int version) throws IOException {
        return read(in);
    }

    /** The value in bytes, after its version byte. */
    default byte[] toBytes(T value) {
        return encode(value, true);
    }

    /** The value's body alone, without a version byte: a part a codec writes into its own value's body. */
    default byte[] toBodyBytes(T value) {
        return encode(value, false);
    }

    private byte[] encode(T value, boolean versioned) {
        Encoder encoder = Encoder.take();
        try {
            if (versioned) {
                encoder.writeByte(VERSION_MARK + version(value));
            }
            write(value, encoder);
            return encoder.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot encode " + value, e);
        } finally {
            Encoder.giveBack(encoder);
        }
    }

    /** Reads what {@link #toBytes} wrote; a value without a version byte, or of a version not read, is refused. */
    default T fromBytes(byte[] bytes) {
        int version = bytes.length == 0 ? 0 : versionOf(bytes[0]);
        if (version == 0 || version > readsUpTo()) {
            throw new UnknownFormatException(version, readsUpTo());
        }
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes, 1, bytes.length - 1))) {
            return read(in, version);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot decode " + bytes.length + " bytes of format version " + version, e);
        }
    }

    /** The version a value's first byte says; 0 if it is no version byte. */
    static int versionOf(byte first) {
        int version = (first & 0xFF) - VERSION_MARK;
        return version >= 1 && version <= MAX_VERSION ? version : 0;
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
     * What a thread encodes with, used again for every value: a {@link DataOutput} straight into a
     * growing array. Its bytes are those of a {@code DataOutputStream}, which {@link #fromBytes}
     * reads; but a long or a double is one write, not eight calls of an output stream's
     * {@code write(int)} as there, and nothing takes a lock: stores encode thousands of values at
     * each commit.
     */
    final class Encoder implements DataOutput {

        /** The thread's encoders not in use: one, or more while a value's parts are encoded apart. */
        private static final ThreadLocal<ArrayDeque<Encoder>> FREE = ThreadLocal.withInitial(ArrayDeque::new);
        private static final VarHandle SHORTS = bigEndian(short[].class);
        private static final VarHandle INTS = bigEndian(int[].class);
        private static final VarHandle LONGS = bigEndian(long[].class);
        /** The most bytes {@link #writeUTF} may write after its length, as {@code DataOutputStream} allows. */
        private static final int MAX_UTF_BYTES = 65_535;

        private byte[] buffer = new byte[1024];
        private int size;

        Encoder() {
        }

        private static VarHandle bigEndian(Class<?> arrayOf) {
            return MethodHandles.byteArrayViewVarHandle(arrayOf, ByteOrder.BIG_ENDIAN);
        }

        private static Encoder take() {
            Encoder encoder = FREE.get().poll();
            if (encoder == null) {
                return new Encoder();
            }
            encoder.size = 0;
            return encoder;
        }

        private static void giveBack(Encoder encoder) {
            FREE.get().push(encoder);
        }

        /** What was written since it was taken. */
        byte[] toByteArray() {
            return Arrays.copyOf(buffer, size);
        }

        private void ensure(int more) {
            if (size + more > buffer.length) {
                buffer = Arrays.copyOf(buffer, Math.max(buffer.length * 2, size + more));
            }
        }

        @Override
        public void write(int b) {
            ensure(1);
            buffer[size++] = (byte) b;
        }

        @Override
        public void write(byte[] from) {
            write(from, 0, from.length);
        }

        @Override
        public void write(byte[] from, int offset, int length) {
            ensure(length);
            System.arraycopy(from, offset, buffer, size, length);
            size += length;
        }

        @Override
        public void writeBoolean(boolean value) {
            write(value ? 1 : 0);
        }

        @Override
        public void writeByte(int value) {
            write(value);
        }

        @Override
        public void writeShort(int value) {
            ensure(2);
            SHORTS.set(buffer, size, (short) value);
            size += 2;
        }

        @Override
        public void writeChar(int value) {
            writeShort(value);
        }

        @Override
        public void writeInt(int value) {
            ensure(4);
            INTS.set(buffer, size, value);
            size += 4;
        }

        @Override
        public void writeLong(long value) {
            ensure(8);
            LONGS.set(buffer, size, value);
            size += 8;
        }

        @Override
        public void writeFloat(float value) {
            writeInt(Float.floatToIntBits(value));
        }

        @Override
        public void writeDouble(double value) {
            writeLong(Double.doubleToLongBits(value));
        }

        /** Each char's low byte, as {@code DataOutputStream} writes them. */
        @Override
        public void writeBytes(String text) {
            ensure(text.length());
            for (int i = 0; i < text.length(); i++) {
                buffer[size++] = (byte) text.charAt(i);
            }
        }

        @Override
        public void writeChars(String text) {
            for (int i = 0; i < text.length(); i++) {
                writeChar(text.charAt(i));
            }
        }

        /**
         * The string in modified UTF-8 after its length in two bytes, as {@link DataInput#readUTF}
         * reads it: U+0000 and chars from U+0080 in two bytes, from U+0800 in three, each half of a
         * surrogate pair apart.
         */
        @Override
        public void writeUTF(String text) throws UTFDataFormatException {
            int chars = text.length();
            int bytes = chars;
            for (int i = 0; i < chars; i++) {
                char c = text.charAt(i);
                if (c >= 0x800) {
                    bytes += 2;
                } else if (c >= 0x80 || c == 0) {
                    bytes += 1;
                }
            }
            if (bytes > MAX_UTF_BYTES) {
                throw new UTFDataFormatException("a string of " + bytes + " bytes in modified UTF-8 is over the "
                        + MAX_UTF_BYTES + " a length of two bytes can tell");
            }
            writeShort(bytes);
            ensure(bytes);
            for (int i = 0; i < chars; i++) {
                char c = text.charAt(i);
                if (c >= 0x800) {
                    buffer[size++] = (byte) (0xE0 | (c >> 12));
                    buffer[size++] = (byte) (0x80 | ((c >> 6) & 0x3F));
                    buffer[size++] = (byte) (0x80 | (c & 0x3F));
                } else if (c >= 0x80 || c == 0) {
                    buffer[size++] = (byte) (0xC0 | (c >> 6));
                    buffer[size++] = (byte) (0x80 | (c & 0x3F));
                } else {
                    buffer[size++] = (byte) c;
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
