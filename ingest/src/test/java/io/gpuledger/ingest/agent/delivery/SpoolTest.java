package io.gpuledger.ingest.agent.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
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
            assertThat(reopened.problems()).singleElement().asString().contains("kept 2 records");
        }
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
