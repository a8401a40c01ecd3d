package io.gpuledger.ingest.agent.delivery;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * A bounded first-in first-out queue of records on disk, for the time Kafka cannot take them.
 * Records live in segment files numbered in order; only the oldest segment is ever held in
 * memory (while it is being replayed), so memory stays at one segment however long the outage.
 * When the spool would outgrow its bound, whole oldest segments are dropped and their records
 * counted: losing the oldest data of a long outage is the lesser harm than to stop sampling.
 *
 * <p>Not thread-safe: {@link Delivery} serialises access.
 */
public final class Spool implements AutoCloseable {

    private static final String PREFIX = "segment-";
    private static final String SUFFIX = ".spool";
    /** Segments are numbered from the middle of the range, so that prepending can count down. */
    private static final long FIRST_NUMBER = 1_000_000_000_000L;

    private final Path dir;
    private final long maxBytes;
    private final long segmentBytes;
    private final Deque<Segment> segments = new ArrayDeque<>();
    private final Set<String> problems = new LinkedHashSet<>();
    private DataOutputStream writer;
    private Segment writing;
    private long droppedRecords;

    private static final class Segment {
        private final long number;
        private final Path file;
        private long bytes;
        private long records;
        private ArrayDeque<SpooledRecord> unread;

        private Segment(long number, Path file) {
            this.number = number;
            this.file = file;
        }
    }

    /**
     * Opens the spool in {@code dir}, taking over what an earlier run left there.
     *
     * @param maxBytes     bound of the whole spool on disk
     * @param segmentBytes size at which a new segment file is started: the unit of dropping, and
     *                     of memory while replaying
     */
    public Spool(Path dir, long maxBytes, long segmentBytes) {
        this.dir = dir;
        this.maxBytes = maxBytes;
        this.segmentBytes = Math.max(1, Math.min(segmentBytes, maxBytes / 2));
        try {
            Files.createDirectories(dir);
            try (Stream<Path> files = Files.list(dir)) {
                files.filter(f -> f.getFileName().toString().startsWith(PREFIX)
                                && f.getFileName().toString().endsWith(SUFFIX))
                        .sorted()
                        .forEach(this::adopt);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open spool in " + dir, e);
        }
    }

    /** Appends at the end (newest). */
    public void append(SpooledRecord record) throws IOException {
        if (writing == null || writing.bytes >= segmentBytes) {
            startSegment();
        }
        record.writeTo(writer);
        writer.flush();
        writing.bytes += record.spoolBytes();
        writing.records++;
        enforceBound();
    }

    /** Puts records before everything spooled: records that were on their way when the agent stopped. */
    public void prepend(List<SpooledRecord> records) throws IOException {
        if (records.isEmpty()) {
            return;
        }
        long number = segments.isEmpty() ? FIRST_NUMBER : segments.peekFirst().number - 1;
        Segment segment = new Segment(number, segmentFile(number));
        try (DataOutputStream out = open(segment.file)) {
            for (SpooledRecord record : records) {
                record.writeTo(out);
                segment.bytes += record.spoolBytes();
                segment.records++;
            }
        }
        segments.addFirst(segment);
        enforceBound();
    }

    /** The oldest record not yet taken, or null when the spool is empty. */
    public SpooledRecord peek() {
        while (!segments.isEmpty()) {
            Segment first = segments.peekFirst();
            if (first == writing) {
                seal();
            }
            if (first.unread == null) {
                load(first);
            }
            if (!first.unread.isEmpty()) {
                return first.unread.peekFirst();
            }
            delete(segments.removeFirst());
        }
        return null;
    }

    /** Takes the oldest record off the spool, once it was handed on; an emptied segment file is deleted. */
    public void take() {
        if (peek() == null) {
            return;
        }
        Segment first = segments.peekFirst();
        first.unread.removeFirst();
        first.records--;
        if (first.unread.isEmpty()) {
            delete(segments.removeFirst());
        }
    }

    public boolean isEmpty() {
        return segments.stream().allMatch(s -> s.records == 0);
    }

    public long records() {
        return segments.stream().mapToLong(s -> s.records).sum();
    }

    public long bytes() {
        return segments.stream().mapToLong(s -> s.bytes).sum();
    }

    /** Records dropped, oldest first, to keep the spool within its bound. */
    public long droppedRecords() {
        return droppedRecords;
    }

    /** Problems met reading segments, such as a tail cut short by a crash. */
    public List<String> problems() {
        return List.copyOf(problems);
    }

    @Override
    public void close() throws IOException {
        seal();
    }

    private void adopt(Path file) {
        String name = file.getFileName().toString();
        long number = Long.parseLong(name.substring(PREFIX.length(), name.length() - SUFFIX.length()));
        Segment segment = new Segment(number, file);
        load(segment);
        segment.unread = null;
        segments.addLast(segment);
    }

    private void startSegment() throws IOException {
        seal();
        long number = segments.isEmpty() ? FIRST_NUMBER : segments.peekLast().number + 1;
        writing = new Segment(number, segmentFile(number));
        writer = open(writing.file);
        segments.addLast(writing);
    }

    /** Closes the segment being written: from now on it is only read. */
    private void seal() {
        if (writer != null) {
            try {
                writer.close();
            } catch (IOException e) {
                problems.add("cannot close " + writing.file + ": " + e.getMessage());
            }
        }
        writer = null;
        writing = null;
    }

    private void enforceBound() {
        while (bytes() > maxBytes && segments.size() > 1) {
            Segment oldest = segments.removeFirst();
            droppedRecords += oldest.records;
            delete(oldest);
        }
    }

    private void load(Segment segment) {
        ArrayDeque<SpooledRecord> records = new ArrayDeque<>();
        long bytes = 0;
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(segment.file)))) {
            for (SpooledRecord record = SpooledRecord.readFrom(in); record != null; record = SpooledRecord.readFrom(in)) {
                records.addLast(record);
                bytes += record.spoolBytes();
            }
        } catch (IOException e) {
            // A segment cut short by a crash keeps the records before the damage.
            String why = e instanceof EOFException ? "torn record at the end" : e.getMessage();
            problems.add(segment.file.getFileName() + ": " + why + "; kept " + records.size() + " records before it");
        }
        segment.unread = records;
        segment.bytes = bytes;
        segment.records = records.size();
    }

    private void delete(Segment segment) {
        try {
            Files.deleteIfExists(segment.file);
        } catch (IOException e) {
            problems.add("cannot delete " + segment.file + ": " + e.getMessage());
        }
    }

    private Path segmentFile(long number) {
        return dir.resolve(PREFIX + String.format("%019d", number) + SUFFIX);
    }

    private static DataOutputStream open(Path file) throws IOException {
        return new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(file,
                StandardOpenOption.CREATE, StandardOpenOption.APPEND)));
    }
}
