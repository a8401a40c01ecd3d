package io.gpuledger.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Every reading, whichever it is, goes the same way: checked, carried, averaged, written and read back. */
class ReadingTest {

    private static final Instant T0 = Instant.parse("2026-12-01T10:00:00Z");
    private static final Placement PLACE = new Placement("node-1", "i-1", "p4d.24xlarge", "aws", "us-east-1",
            Lifecycle.ON_DEMAND);

    @ParameterizedTest
    @EnumSource(Reading.class)
    void shouldCarryEachReadingThroughTheSampleAndItsJson(Reading reading) {
        TelemetrySample sample = sample(reading, 0.5, 30, null);

        TelemetrySample read = TelemetryJson.read(Json.write(sample));

        assertThat(reading.of(sample)).isEqualTo(0.5);
        assertThat(reading.of(read)).isEqualTo(0.5);
        assertThat(read).isEqualTo(sample);
        assertThat(read.toBuilder().build()).isEqualTo(sample);
    }

    @ParameterizedTest
    @EnumSource(Reading.class)
    void shouldRefuseAValueOutOfEachReadingsRange(Reading reading) {
        assertThatThrownBy(() -> sample(reading, -1.0, 30, null)).isInstanceOf(InvalidRecordException.class)
                .hasMessageContaining(reading.wireName());
        double tooLarge = switch (reading.range()) {
            case RATIO -> 1.5;
            case WATTS -> TelemetrySample.MAX_POWER_WATTS + 1;
            case NON_NEGATIVE -> Double.POSITIVE_INFINITY;
        };
        assertThatThrownBy(() -> sample(reading, tooLarge, 30, null)).isInstanceOf(InvalidRecordException.class)
                .hasMessageContaining(reading.wireName());
    }

    @ParameterizedTest
    @EnumSource(Reading.class)
    void shouldKeepTheTimeWeightedMeanOfEachKeptReadingOverItsTime(Reading reading) {
        // Given two samples of a 3/7 MIG slice: the reading 0.2 for 20 s, then 0.8 for 40 s
        UsageTotals totals = UsageTotals.ZERO.add(sample(reading, 0.2, 20, 3.0 / 7), 7.0)
                .add(sample(reading, 0.8, 40, 3.0 / 7), 7.0);

        if (!reading.kept()) {
            assertThatThrownBy(() -> totals.mean(reading)).isInstanceOf(IllegalArgumentException.class);
            return;
        }
        // Then its mean is (0.2 × 20 + 0.8 × 40) / 60 = 0.6, known for the slice's charged time (its share of the
        // GPU's 60 s) or for the whole 60 s of wall time, as the reading says
        Mean mean = totals.mean(reading);
        assertThat(mean.value()).isCloseTo(0.6, within(1e-12));
        double seconds = reading.weighting() == Reading.Kept.OVER_CHARGED_TIME ? 60 * 3.0 / 7 : 60;
        assertThat(mean.seconds()).isCloseTo(seconds, within(1e-9));

        // And the totals' JSON gives the same mean back
        UsageTotals read = Json.read(Json.write(totals), UsageTotals.class);
        assertThat(read).isEqualTo(totals);
    }

    @Test
    void shouldShowOnAGaugeOnlyWhatWindowsKeep() {
        for (Reading reading : Reading.values()) {
            assertThat(reading.gpuGauge() == null || reading.kept()).as(reading + " has a gauge but no mean").isTrue();
        }
    }

    private static TelemetrySample sample(Reading reading, double value, double seconds, Double share) {
        return TelemetrySample.builder().gpuUuid("GPU-1").placement(PLACE).jobId("job-a").smActive(0.5)
                .time(T0.plusSeconds(60)).intervalSeconds(seconds).reading(reading, value)
                .migProfile(share == null ? null : "3g.40gb").gpuFraction(share).build();
    }
}
