package io.gpuledger.streams.state;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInput;
import java.io.DataInputStream;
import java.io.DataOutput;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * A compact binary form of an internal value: state held between commits and records on the
 * engine's own repartition topics. Never used on a contract topic, which stays JSON.
 */
public interface Codec<T> {

    void write(T value, DataOutput out) throws IOException;

    T read(DataInput in) throws IOException;

    default byte[] toBytes(T value) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(1024);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            write(value, out);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot encode " + value, e);
        }
        return bytes.toByteArray();
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
