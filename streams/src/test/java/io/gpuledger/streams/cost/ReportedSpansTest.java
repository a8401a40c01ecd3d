package io.gpuledger.streams.cost;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The time a node of a job reported work for: joined, judged, forgotten and read back. */
class ReportedSpansTest {

    private static final long T0 = 1_772_366_400_000L;

    @Test
    void shouldJoinReportsThatFollowEachOtherAndTellTimeReportedTwice() {
        // Given reports of 10 s, each a few milliseconds off the end of the one before, and one after a silence
        ReportedSpans spans = new ReportedSpans();
        spans.add(T0, T0 + 10_000);
        spans.add(T0 + 10_040, T0 + 20_040);
        spans.add(T0 + 19_990, T0 + 29_990);
        spans.add(T0 + 60_000, T0 + 70_000);

        // Then the first three are one span, and only time more than half reported is reported
        assertThat(spans.spans()).isEqualTo(2);
        assertThat(spans.mostlyReported(T0 + 5_000, T0 + 15_000)).isTrue();
        assertThat(spans.mostlyReported(T0 + 25_000, T0 + 35_000)).as("exactly half").isFalse();
        assertThat(spans.mostlyReported(T0 + 30_000, T0 + 60_000)).as("the silence").isFalse();
        assertThat(spans.mostlyReported(T0 + 55_000, T0 + 65_000)).as("half and half").isFalse();
        assertThat(spans.mostlyReported(T0 + 61_000, T0 + 65_000)).isTrue();

        // When a report fills the silence, the spans become one
        spans.add(T0 + 30_000, T0 + 60_000);
        assertThat(spans.spans()).isEqualTo(1);
        assertThat(spans.latestEnd()).isEqualTo(T0 + 70_000);
    }

    @Test
    void shouldForgetTimeAnHourBeforeTheLatestAndKeepAtMostItsLimit() {
        ReportedSpans spans = new ReportedSpans();
        for (int i = 0; i < ReportedSpans.MAX_SPANS + 10; i++) {
            spans.add(T0 + i * 20_000L, T0 + i * 20_000L + 10_000);
        }
        assertThat(spans.spans()).isEqualTo(ReportedSpans.MAX_SPANS);
        assertThat(spans.mostlyReported(T0, T0 + 10_000)).as("the oldest, past the limit").isFalse();

        spans.add(T0 + 3 * ReportedSpans.KEPT_MILLIS, T0 + 3 * ReportedSpans.KEPT_MILLIS + 10_000);
        assertThat(spans.spans()).isEqualTo(1);

        ReportedSpans read = ReportedSpans.CODEC.fromBytes(ReportedSpans.CODEC.toBytes(spans));
        assertThat(read.spans()).isEqualTo(1);
        assertThat(read.mostlyReported(T0 + 3 * ReportedSpans.KEPT_MILLIS, T0 + 3 * ReportedSpans.KEPT_MILLIS + 9_000))
                .isTrue();
    }
}
