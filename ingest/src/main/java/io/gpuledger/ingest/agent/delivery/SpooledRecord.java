package io.gpuledger.ingest.agent.delivery;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;

/** A record on its way to Kafka: topic, key, value and timestamp, in the order it was made ({@code sequence}). */
public record SpooledRecord(long sequence, String topic, String key, byte[] value, long timestamp) {

    /** Starts every record, so that a clean end and a torn record can be told apart. */
    private static final int MARKER = 'R';

    void writeTo(DataOutputStream out) throws IOException {
        out.writeByte(MARKER);
        out.writeLong(sequence);
        out.writeUTF(topic);
        out.writeBoolean(key != null);
        if (key != null) {
            out.writeUTF(key);
        }
        out.writeInt(value.length);
        out.write(value);
        out.writeLong(timestamp);
    }

    /** The next record, or null at a clean end of the stream; EOFException means a torn record. */
    static SpooledRecord readFrom(DataInputStream in) throws IOException {
        int marker = in.read();
        if (marker < 0) {
            return null;
        }
        if (marker != MARKER) {
            throw new IOException("corrupt spool record: bad marker " + marker);
        }
        long sequence = in.readLong();
        String topic = in.readUTF();
        String key = in.readBoolean() ? in.readUTF() : null;
        int length = in.readInt();
        if (length < 0 || length > 16 * 1024 * 1024) {
            throw new IOException("corrupt spool record: value length " + length);
        }
        byte[] value = in.readNBytes(length);
        if (value.length != length) {
            throw new IOException("truncated spool record");
        }
        return new SpooledRecord(sequence, topic, key, value, in.readLong());
    }

    /** Bytes this record takes in a spool segment, near enough for the size bound. */
    long spoolBytes() {
        return 1 + 8 + 2 + topic.length() + 1 + (key == null ? 0 : 2 + key.length()) + 4 + value.length + 8;
    }
}
