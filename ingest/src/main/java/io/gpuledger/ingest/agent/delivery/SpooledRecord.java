package io.gpuledger.ingest.agent.delivery;

import java.io.ByteArrayOutputStream;
import java.io.DataInput;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/** A record on its way to Kafka: topic, key, value and timestamp, in the order it was made ({@code sequence}). */
public record SpooledRecord(long sequence, String topic, String key, byte[] value, long timestamp) {

    /** The largest value a spool reads back; a longer one can only be damage. */
    static final int MAX_VALUE_BYTES = 16 * 1024 * 1024;

    /** The record's fields, as a spool frame carries them. */
    byte[] payload() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(32 + topic.length() + value.length);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeLong(sequence);
            out.writeUTF(topic);
            out.writeBoolean(key != null);
            if (key != null) {
                out.writeUTF(key);
            }
            out.writeInt(value.length);
            out.write(value);
            out.writeLong(timestamp);
        } catch (IOException e) {
            throw new UncheckedIOException("writing to memory", e);
        }
        return bytes.toByteArray();
    }

    /** Reads the fields {@link #payload()} wrote; an IOException when they are not a record. */
    static SpooledRecord readPayload(DataInput in) throws IOException {
        long sequence = in.readLong();
        String topic = in.readUTF();
        String key = in.readBoolean() ? in.readUTF() : null;
        int length = in.readInt();
        if (length < 0 || length > MAX_VALUE_BYTES) {
            throw new IOException("corrupt spool record: value length " + length);
        }
        byte[] value = new byte[length];
        in.readFully(value);
        return new SpooledRecord(sequence, topic, key, value, in.readLong());
    }
}
