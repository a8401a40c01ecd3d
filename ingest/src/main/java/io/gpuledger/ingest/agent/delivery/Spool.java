// Over 400 lines: segments, replay and the size bound change together; the record format is SpoolFormat.
package io.gpuledger.ingest.agent.delivery;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.LongSupplier;
import java.util.stream.Stream;

/**
 * A bounded first-in first-out queue of records on disk, for the time Kafka cannot take them.
 * Records live in segment files numbered in order; only the oldest segment is ever held in
 * memory (while it is being replayed), so memory stays at one segment however long the outage.
 * When the spool would outgrow its bound, whole oldest segments are dropped and their records
 * counted: losing the oldest data of a long outage is the lesser harm than to stop sampling.
 *
 * <p>Each record is framed with a checksum ({@link SpoolFormat}): a record damaged on disk is
 * skipped and counted, and the records after it are replayed. A write that fails (a full disk)
 * loses that record, counted, and the next record starts a new segment. When written bytes are
 * made durable is {@link SpoolSync}'s to say. The directory and its files are the agent user's
 * alone (0700, 0600): they hold the node's telemetry.
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
    private final SpoolSync sync;
    private final Opener opener;
    private final LongSupplier nanos;
    private SegmentChannel writer;
    private Segment segmentBeingWritten;
    private long droppedRecords;
    private long lostOnWrite;
    private long damagedStretches;
    private boolean unsynced;
    private long lastSync;

    /** Where a segment's bytes go: a file on disk, or, in tests, one on a disk that fills up. */
    interface SegmentChannel extends Closeable {

        /** Writes all of {@code bytes}, or throws. */
        void write(ByteBuffer bytes) throws IOException;

        void force() throws IOException;

        void truncate(long size) throws IOException;
    }

    /** Opens a segment file for appending, creating it. */
    interface Opener {
        SegmentChannel open(Path file) throws IOException;
    }

    private static final class Segment {
        private final long number;
        private final Path file;
        private long bytes;
        private long records;
        private ArrayDeque<SpooledRecord> unread;
        /** Its damage was counted when it was first read; later readings count none again. */
        private boolean inspected;

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
        this(dir, maxBytes, segmentBytes, SpoolSync.DEFAULT);
    }

    /** @param sync when written records are made durable */
    public Spool(Path dir, long maxBytes, long segmentBytes, SpoolSync sync) {
        this(dir, maxBytes, segmentBytes, sync, Spool::onDisk, System::nanoTime);
    }

    Spool(Path dir, long maxBytes, long segmentBytes, SpoolSync sync, Opener opener, LongSupplier nanos) {
        this.dir = dir;
        this.maxBytes = maxBytes;
        this.segmentBytes = Math.max(1, Math.min(segmentBytes, maxBytes / 2));
        this.sync = sync;
        this.opener = opener;
        this.nanos = nanos;
        this.lastSync = nanos.getAsLong();
        try {
            createPrivate(dir);
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

    /**
     * Appends at the end (newest).
     *
     * @throws IOException when the record could not be written: it is lost and counted, and the
     *                     next record starts a new segment
     */
    public void append(SpooledRecord record) throws IOException {
        ByteBuffer frame = SpoolFormat.frame(record);
        try {
            if (segmentBeingWritten == null || segmentBeingWritten.bytes >= segmentBytes) {
                startSegment();
            }
            writer.write(frame);
        } catch (IOException e) {
            lostOnWrite++;
            abandonWriting();
            throw new IOException("cannot write to the spool in " + dir + ": " + e.getMessage()
                    + "; the record is lost, the next one starts a new segment", e);
        }
        segmentBeingWritten.bytes += frame.limit();
        segmentBeingWritten.records++;
        unsynced = true;
        if (sync.kind() == SpoolSync.Kind.ALWAYS || syncDue()) {
            syncNow();
        }
        enforceBound();
    }

    /** Makes written records durable if the sync interval has passed since the last time; for a timer to call. */
    public void syncIfDue() {
        if (syncDue()) {
            syncNow();
        }
    }

    /** Puts records before everything spooled: records that were on their way when the agent stopped. */
    public void prepend(List<SpooledRecord> records) throws IOException {
        if (records.isEmpty()) {
            return;
        }
        long number = segments.isEmpty() ? FIRST_NUMBER : segments.peekFirst().number - 1;
        Segment segment = new Segment(number, segmentFile(number));
        try (SegmentChannel out = opener.open(segment.file)) {
            out.write(SpoolFormat.header());
            segment.bytes = SpoolFormat.HEADER_BYTES;
            for (SpooledRecord record : records) {
                ByteBuffer frame = SpoolFormat.frame(record);
                out.write(frame);
                segment.bytes += frame.limit();
                segment.records++;
            }
            if (sync.kind() != SpoolSync.Kind.NEVER) {
                out.force();
            }
        } catch (IOException e) {
            lostOnWrite += records.size();
            delete(segment);
            throw new IOException("cannot write to the spool in " + dir + ": " + e.getMessage() + "; "
                    + records.size() + " records lost", e);
        }
        segments.addFirst(segment);
        enforceBound();
    }

    /** The oldest record not yet taken, or null when the spool is empty. */
    public SpooledRecord peek() {
        while (!segments.isEmpty()) {
            Segment first = segments.peekFirst();
            if (first == segmentBeingWritten) {
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

    /** Records lost because they could not be written (a full disk, an I/O error). */
    public long lostOnWrite() {
        return lostOnWrite;
    }

    /** Damaged stretches skipped while reading segments back; each cost one record or more. */
    public long damaged() {
        return damagedStretches;
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
        Segment segment = new Segment(number, segmentFile(number));
        writer = opener.open(segment.file);
        segmentBeingWritten = segment;
        segments.addLast(segment);
        writer.write(SpoolFormat.header());
        segment.bytes = SpoolFormat.HEADER_BYTES;
    }

    /**
     * After a failed write: cut the segment back to its last whole record, so that no torn frame is
     * left to count as damage later, and close it; a segment left without records goes.
     */
    private void abandonWriting() {
        Segment broken = segmentBeingWritten;
        SegmentChannel channel = writer;
        segmentBeingWritten = null;
        writer = null;
        unsynced = false;
        if (broken == null) {
            return;
        }
        if (channel != null) {
            try {
                channel.truncate(broken.bytes);
            } catch (IOException e) {
                problems.add("cannot cut " + broken.file.getFileName() + " back to its last whole record: "
                        + e.getMessage());
            }
            try {
                channel.close();
            } catch (IOException e) {
                problems.add("cannot close " + broken.file + ": " + e.getMessage());
            }
        }
        if (broken.records == 0) {
            segments.remove(broken);
            delete(broken);
        }
    }

    /** Closes the segment being written, durable unless syncing is off: from now on it is only read. */
    private void seal() {
        if (writer != null) {
            if (sync.kind() != SpoolSync.Kind.NEVER) {
                syncNow();
            }
            try {
                writer.close();
            } catch (IOException e) {
                problems.add("cannot close " + segmentBeingWritten.file + ": " + e.getMessage());
            }
        }
        writer = null;
        segmentBeingWritten = null;
    }

    private boolean syncDue() {
        return sync.kind() == SpoolSync.Kind.INTERVAL && unsynced
                && nanos.getAsLong() - lastSync >= sync.every().toNanos();
    }

    private void syncNow() {
        if (writer != null && unsynced) {
            try {
                writer.force();
            } catch (IOException e) {
                problems.add("cannot sync " + segmentBeingWritten.file.getFileName() + " to disk: " + e.getMessage());
            }
        }
        unsynced = false;
        lastSync = nanos.getAsLong();
    }

    private void enforceBound() {
        while (bytes() > maxBytes && segments.size() > 1) {
            Segment oldest = segments.removeFirst();
            droppedRecords += oldest.records;
            delete(oldest);
        }
    }

    private void load(Segment segment) {
        SpoolFormat.Read read;
        try {
            read = SpoolFormat.read(Files.readAllBytes(segment.file), segment.file.getFileName().toString());
        } catch (IOException e) {
            read = new SpoolFormat.Read(new ArrayDeque<>(), 0, 1,
                    List.of(segment.file.getFileName() + ": cannot be read: " + e.getMessage()));
        }
        if (!segment.inspected) {
            damagedStretches += read.damaged();
            problems.addAll(read.problems());
            segment.inspected = true;
        }
        segment.unread = read.records();
        segment.bytes = read.bytes();
        segment.records = read.records().size();
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

    /** Creates the directory readable by the agent's user alone, where the file system has such permissions. */
    private static void createPrivate(Path dir) throws IOException {
        if (Files.isDirectory(dir)) {
            return;
        }
        if (dir.getFileSystem().supportedFileAttributeViews().contains("posix")) {
            Files.createDirectories(dir,
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        } else {
            Files.createDirectories(dir);
        }
    }

    private static SegmentChannel onDisk(Path file) throws IOException {
        Set<OpenOption> options = Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.APPEND);
        FileAttribute<?>[] attributes = file.getFileSystem().supportedFileAttributeViews().contains("posix")
                ? new FileAttribute<?>[] {
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"))}
                : new FileAttribute<?>[0];
        FileChannel channel = FileChannel.open(file, options, attributes);
        return new SegmentChannel() {
            @Override
            public void write(ByteBuffer bytes) throws IOException {
                while (bytes.hasRemaining()) {
                    channel.write(bytes);
                }
            }

            @Override
            public void force() throws IOException {
                channel.force(false);
            }

            @Override
            public void truncate(long size) throws IOException {
                channel.truncate(size);
            }

            @Override
            public void close() throws IOException {
                channel.close();
            }
        };
    }
}
