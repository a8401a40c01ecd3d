package io.gpuledger.ingest.agent.delivery;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * How records lie in a spool segment file.
 *
 * <p>Version 2: the file starts with {@code GLSP} and the version (an int, 2); then one frame per
 * record: a magic int, the payload's length (int), a CRC32C of length and payload (int), and the
 * payload ({@link SpooledRecord#payload()}). A damaged frame (torn by a crash, a bad sector) fails
 * its check; the reader then looks for the next magic that starts a frame whose check passes and
 * goes on from there, so damage costs the records it touched, not the rest of the segment.
 *
 * <p>Version 1, written by agents before frames had checksums, has no file header: each record is
 * the byte {@code R} and its payload. It is read by its own rule: records up to the first damage.
 */
final class SpoolFormat {

    static final byte[] FILE_MAGIC = {'G', 'L', 'S', 'P'};
    static final int VERSION = 2;
    static final int HEADER_BYTES = FILE_MAGIC.length + 4;
    /** Starts every frame; a value unlikely in text or in small numbers, so resync seldom stops falsely. */
    static final int FRAME_MAGIC = 0x9E3779B9;
    static final int FRAME_OVERHEAD = 12;
    private static final int LEGACY_MARKER = 'R';
    /** Payload fields around the value: sequence, two string lengths, a flag, value length, timestamp. */
    private static final int MAX_PAYLOAD_BYTES = SpooledRecord.MAX_VALUE_BYTES + 2 * 65_535 + 64;

    private SpoolFormat() {
    }

    /**
     * What reading a segment found.
     *
     * @param damaged  stretches of bytes skipped as damage: each lost one record or more
     * @param problems what was skipped, and where, for the agent's log
     */
    record Read(ArrayDeque<SpooledRecord> records, long bytes, int damaged, List<String> problems) {
    }

    static ByteBuffer header() {
        return ByteBuffer.allocate(HEADER_BYTES).put(FILE_MAGIC).putInt(VERSION).flip();
    }

    static ByteBuffer frame(SpooledRecord record) {
        byte[] payload = record.payload();
        ByteBuffer frame = ByteBuffer.allocate(FRAME_OVERHEAD + payload.length);
        frame.putInt(FRAME_MAGIC).putInt(payload.length).putInt(crc(payload.length, payload, 0)).put(payload);
        return frame.flip();
    }

    static Read read(byte[] file, String name) {
        if (startsWithHeader(file)) {
            return readFrames(file, HEADER_BYTES, name);
        }
        if (file.length > 0 && file[0] == LEGACY_MARKER) {
            return readLegacy(file, name);
        }
        // Neither header: the header itself is damaged, or the file holds no record yet; frames may follow.
        return readFrames(file, 0, name);
    }

    private static Read readFrames(byte[] file, int start, String name) {
        ArrayDeque<SpooledRecord> records = new ArrayDeque<>();
        List<String> problems = new ArrayList<>();
        int damaged = 0;
        long bytes = start;
        int at = start;
        while (at < file.length) {
            SpooledRecord record = frameAt(file, at);
            if (record != null) {
                int length = ByteBuffer.wrap(file, at + 4, 4).getInt();
                records.addLast(record);
                at += FRAME_OVERHEAD + length;
                bytes += FRAME_OVERHEAD + length;
                continue;
            }
            int next = at + 1;
            while (next < file.length && frameAt(file, next) == null) {
                next++;
            }
            damaged++;
            problems.add(name + ": " + (next - at) + " damaged bytes at offset " + at + " skipped"
                    + (next < file.length ? ", read on from offset " + next : " (a torn end)"));
            at = next;
        }
        return new Read(records, bytes, damaged, problems);
    }

    /** The record of a frame starting at {@code at} whose check passes, or null. */
    private static SpooledRecord frameAt(byte[] file, int at) {
        if (at + FRAME_OVERHEAD > file.length) {
            return null;
        }
        ByteBuffer head = ByteBuffer.wrap(file, at, FRAME_OVERHEAD);
        if (head.getInt() != FRAME_MAGIC) {
            return null;
        }
        int length = head.getInt();
        int crc = head.getInt();
        if (length < 0 || length > MAX_PAYLOAD_BYTES || length > file.length - at - FRAME_OVERHEAD
                || crc(length, file, at + FRAME_OVERHEAD) != crc) {
            return null;
        }
        try {
            DataInputStream in = new DataInputStream(new ByteArrayInputStream(file, at + FRAME_OVERHEAD, length));
            SpooledRecord record = SpooledRecord.readPayload(in);
            return in.available() == 0 ? record : null;
        } catch (IOException e) {
            return null;
        }
    }

    private static int crc(int length, byte[] payload, int offset) {
        CRC32C crc = new CRC32C();
        crc.update(ByteBuffer.allocate(4).putInt(length).flip());
        crc.update(payload, offset, length);
        return (int) crc.getValue();
    }

    private static Read readLegacy(byte[] file, String name) {
        ArrayDeque<SpooledRecord> records = new ArrayDeque<>();
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(file));
        long bytes = 0;
        try {
            for (int marker = in.read(); marker >= 0; marker = in.read()) {
                if (marker != LEGACY_MARKER) {
                    throw new IOException("bad marker " + marker);
                }
                records.addLast(SpooledRecord.readPayload(in));
                bytes = file.length - in.available();
            }
            return new Read(records, bytes, 0, List.of());
        } catch (IOException e) {
            String why = e instanceof EOFException ? "torn record at the end" : e.getMessage();
            return new Read(records, bytes, 1, List.of(name + " (a segment without checksums, read up to its "
                    + "first damage): " + why + "; kept " + records.size() + " records before it"));
        }
    }

    private static boolean startsWithHeader(byte[] file) {
        if (file.length < HEADER_BYTES) {
            return false;
        }
        for (int i = 0; i < FILE_MAGIC.length; i++) {
            if (file[i] != FILE_MAGIC[i]) {
                return false;
            }
        }
        return ByteBuffer.wrap(file, FILE_MAGIC.length, 4).getInt() == VERSION;
    }
}
