package io.gpuledger.ingest.agent.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SpoolTest {

    @TempDir
    Path dir;

    @Test
    void shouldGiveRecordsBackInTheOrderTheyCameAcrossSegments() throws IOException {
        try (Spool spool = new Spool(dir, 1_000_000, 300)) {
            for (int i = 1; i <= 20; i++) {
                spool.append(record(i));
            }

            assertThat(segmentFiles()).hasSizeGreaterThan(1);
            assertThat(drain(spool)).containsExactlyElementsOf(sequence(1, 20));
            assertThat(spool.isEmpty()).isTrue();
        }
        assertThat(segmentFiles()).isEmpty();
    }

    @Test
    void shouldKeepWhatWasNotTakenForTheNextRun() throws IOException {
        try (Spool spool = new Spool(dir, 1_000_000, 300)) {
            for (int i = 1; i <= 10; i++) {
                spool.append(record(i));
            }
        }

        try (Spool reopened = new Spool(dir, 1_000_000, 300)) {
            assertThat(reopened.records()).isEqualTo(10);
            reopened.append(record(11));
            assertThat(drain(reopened)).containsExactlyElementsOf(sequence(1, 11));
        }
    }

    @Test
    void shouldDropTheOldestSegmentsWhenFullAndCountWhatItDropped() throws IOException {
        try (Spool spool = new Spool(dir, 1_000, 250)) {
            for (int i = 1; i <= 100; i++) {
                spool.append(record(i));
            }

            assertThat(spool.bytes()).isLessThanOrEqualTo(1_000);
            assertThat(spool.droppedRecords()).isPositive();
            List<Long> left = drain(spool);
            assertThat(left.get(left.size() - 1)).isEqualTo(100);
            assertThat(left.size() + spool.droppedRecords()).isEqualTo(100);
            assertThat(left).isSorted();
        }
    }

    @Test
    void shouldReplayPrependedRecordsFirst() throws IOException {
        try (Spool spool = new Spool(dir, 1_000_000, 300)) {
            spool.append(record(5));
            spool.append(record(6));
            spool.prepend(List.of(record(3), record(4)));

            assertThat(drain(spool)).containsExactly(3L, 4L, 5L, 6L);
        }
    }

    @Test
    void shouldKeepTheRecordsBeforeATornTail() throws IOException {
        try (Spool spool = new Spool(dir, 1_000_000, 1_000_000)) {
            spool.append(record(1));
            spool.append(record(2));
        }
        Path segment = segmentFiles().get(0);
        Files.write(segment, new byte[] {0, 0, 0, 0, 0, 0, 0, 9, 0}, StandardOpenOption.APPEND);

        try (Spool reopened = new Spool(dir, 1_000_000, 1_000_000)) {
            assertThat(drain(reopened)).containsExactly(1L, 2L);
            // The header (8 bytes) and two frames of 65 bytes: the torn end starts at 8 + 2 * 65 = 138
            assertThat(reopened.problems()).containsExactly(
                    segment.getFileName() + ": 9 damaged bytes at offset 138 skipped (a torn end)");
            assertThat(reopened.damaged()).isEqualTo(1);
        }
    }

    @Test
    void shouldSkipARecordDamagedMidSegmentAndReplayTheRecordsAfterIt() throws IOException {
        // Given a segment of five records, the third of which has four bytes of its payload overwritten
        try (Spool spool = new Spool(dir, 1_000_000, 1_000_000)) {
            for (int i = 1; i <= 5; i++) {
                spool.append(record(i));
            }
        }
        Path segment = segmentFiles().get(0);
        byte[] bytes = Files.readAllBytes(segment);
        // Each frame: 12 bytes of magic, length and CRC, and a 53-byte payload (sequence 8, topic 2 + 16,
        // key flag 1, key 2 + 5, value length 4, value 7, timestamp 8) = 65. The third starts at
        // 8 + 2 * 65 = 138, its payload at 150; bytes 170-173 lie in the middle of it.
        assertThat(bytes).hasSize(8 + 5 * 65);
        Arrays.fill(bytes, 170, 174, (byte) 0xFF);
        Files.write(segment, bytes);

        // When the spool is opened and replayed
        try (Spool reopened = new Spool(dir, 1_000_000, 1_000_000)) {

            // Then the records after the damage are delivered, and the damaged one counted
            assertThat(drain(reopened)).containsExactly(1L, 2L, 4L, 5L);
            assertThat(reopened.damaged()).isEqualTo(1);
            assertThat(reopened.problems()).containsExactly(segment.getFileName()
                    + ": 65 damaged bytes at offset 138 skipped, read on from offset 203");
        }
    }

    @Test
    void shouldReplayASegmentOfAnOlderAgentByItsOldRule() throws IOException {
        // Given a segment as agents wrote them before frames had checksums: 'R' and the fields, no file header
        ByteArrayOutputStream old = new ByteArrayOutputStream();
        for (int i = 1; i <= 3; i++) {
            old.write('R');
            old.write(record(i).payload());
        }
        Files.write(dir.resolve("segment-0000001000000000000.spool"), old.toByteArray());

        // When it is opened next to a record spooled now, Then both are replayed, oldest first
        try (Spool spool = new Spool(dir, 1_000_000, 1_000_000)) {
            spool.append(record(4));
            assertThat(drain(spool)).containsExactly(1L, 2L, 3L, 4L);
            assertThat(spool.damaged()).isZero();
        }
    }

    @Test
    void shouldLoseOnlyTheRecordThatMetAFullDiskAndGoOnInANewSegment() throws IOException {
        // Given a disk with room for the header and three frames and 27 bytes more: 8 + 3 * 65 + 27 = 230
        FillingDisk disk = new FillingDisk(230);
        try (Spool spool = new Spool(dir, 1_000_000, 1_000_000, SpoolSync.DEFAULT, disk, () -> 0L)) {
            for (int i = 1; i <= 3; i++) {
                spool.append(record(i));
            }

            // When the fourth record meets the full disk
            assertThatThrownBy(() -> spool.append(record(4))).isInstanceOf(IOException.class)
                    .hasMessageContaining("No space left on device")
                    .hasMessageContaining("the record is lost, the next one starts a new segment");

            // Then it alone is counted lost; once space is freed the next record goes to a new segment
            assertThat(spool.lostOnWrite()).isEqualTo(1);
            disk.free();
            spool.append(record(5));
            assertThat(segmentFiles()).hasSize(2);
            assertThat(drain(spool)).containsExactly(1L, 2L, 3L, 5L);
            // The torn fourth frame was cut off the first segment: nothing is left to count as damage
            assertThat(spool.damaged()).isZero();
        }
    }

    @Test
    void shouldCreateTheSpoolDirectoryAndItsSegmentsForTheAgentUserAlone() throws IOException {
        Path spoolDir = dir.resolve("agent").resolve("spool");
        try (Spool spool = new Spool(spoolDir, 1_000_000, 1_000_000)) {
            spool.append(record(1));
        }

        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(spoolDir))).isEqualTo("rwx------");
        try (Stream<Path> files = Files.list(spoolDir)) {
            assertThat(files).singleElement().satisfies(file ->
                    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
                            .isEqualTo("rw-------"));
        }
    }

    @Test
    void shouldSyncAfterEveryRecordNeverOrOnceAnIntervalHasPassed() throws IOException {
        // Given a spool for each policy over a disk that counts syncs, and a clock in our hands
        AtomicLong now = new AtomicLong();
        long second = 1_000_000_000L;

        // always: 3 records, 3 syncs; the close has nothing left to sync. never: none, not even at close
        assertThat(syncsForThreeRecords("always")).isEqualTo(3);
        assertThat(syncsForThreeRecords("never")).isZero();

        // every second, the spool opened at t = 0: records at 0 and 0.5 s wait; the one at 1 s syncs (1);
        // the timer at 1.2 s finds nothing new; a record at 1.5 s waits, the timer at 2 s syncs it (2)
        FillingDisk interval = new FillingDisk(Long.MAX_VALUE);
        try (Spool spool = new Spool(dir.resolve("interval"), 1_000_000, 1_000_000, SpoolSync.parse("spool.fsync", "1"),
                interval, now::get)) {
            spool.append(record(1));
            now.set(second / 2);
            spool.append(record(2));
            assertThat(interval.forces).hasValue(0);
            now.set(second);
            spool.append(record(3));
            assertThat(interval.forces).hasValue(1);
            now.set(second * 12 / 10);
            spool.syncIfDue();
            now.set(second * 3 / 2);
            spool.append(record(4));
            assertThat(interval.forces).hasValue(1);
            now.set(2 * second);
            spool.syncIfDue();
            assertThat(interval.forces).hasValue(2);
        }
        assertThat(interval.forces).hasValue(2);
    }

    @Test
    void shouldReadTheSyncPolicyAsWrittenInTheConfiguration() {
        assertThat(SpoolSync.parse("spool.fsync", "Always")).isEqualTo(new SpoolSync(SpoolSync.Kind.ALWAYS, null));
        assertThat(SpoolSync.parse("spool.fsync", "never")).isEqualTo(new SpoolSync(SpoolSync.Kind.NEVER, null));
        assertThat(SpoolSync.parse("spool.fsync", "0.25"))
                .isEqualTo(new SpoolSync(SpoolSync.Kind.INTERVAL, Duration.ofMillis(250)));
        assertThatThrownBy(() -> SpoolSync.parse("spool.fsync", "sometimes")).hasMessage(
                "spool.fsync must be always, never or a positive number of seconds, was 'sometimes'");
    }

    private long syncsForThreeRecords(String policy) throws IOException {
        FillingDisk disk = new FillingDisk(Long.MAX_VALUE);
        try (Spool spool = new Spool(dir.resolve(policy), 1_000_000, 1_000_000, SpoolSync.parse("spool.fsync", policy),
                disk, () -> 0L)) {
            for (int i = 1; i <= 3; i++) {
                spool.append(record(i));
            }
        }
        return disk.forces.get();
    }

    private static SpooledRecord record(long sequence) {
        return new SpooledRecord(sequence, "gpu.telemetry.v1", "GPU-" + sequence % 3,
                ("{\"n\":" + sequence + "}").getBytes(StandardCharsets.UTF_8), 1_700_000_000_000L + sequence);
    }

    private static List<Long> drain(Spool spool) {
        List<Long> taken = new ArrayList<>();
        for (SpooledRecord next = spool.peek(); next != null; next = spool.peek()) {
            taken.add(next.sequence());
            spool.take();
        }
        return taken;
    }

    private static List<Long> sequence(long from, long to) {
        return Stream.iterate(from, n -> n + 1).limit(to - from + 1).toList();
    }

    private List<Path> segmentFiles() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.sorted().toList();
        }
    }
}
