package io.gpuledger.alerts.recommend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gpuledger.alerts.UsageWindows;
import io.gpuledger.model.GpuUsage;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Placement;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class GpuMinutesTest {

    private static final Instant T0 = Instant.parse("2026-03-01T12:00:00Z");
    private static final Placement G5 = new Placement("node-1", "i-1", "g5.xlarge", "aws", "us-east-1",
            Lifecycle.ON_DEMAND);

    private final GpuMinutes minutes = new GpuMinutes(Duration.ofMinutes(3));

    @Test
    void shouldAddUpTheClosedMinutesOfThePeriodOnceTheGpuWasFollowedForAllOfIt() {
        // Given a GPU's closed minutes at 1%, 4% and 10% SM activity, charged 1, 2 and 3 USD/h
        assertThat(minutes.add(minute(0, 1.0, 0.01, true), T0)).isEmpty();
        assertThat(minutes.add(minute(1, 2.0, 0.04, true), T0)).isEmpty();

        // When the third closes
        IdlePeriod period = minutes.add(minute(2, 3.0, 0.10, true), T0).orElseThrow();

        // Then the period is its three minutes: activity (0.01 + 0.04 + 0.10) / 3 = 0.05, and it spent
        // (1 + 2 + 3) / 60 = 0.1 USD in 3 minutes, 2 USD/h
        assertThat(period.from()).isEqualTo(T0);
        assertThat(period.to()).isEqualTo(T0.plusSeconds(180));
        assertThat(period.smActive()).isCloseTo(0.05, within(1e-12));
        assertThat(period.costPerHour()).isCloseTo(2.0, within(1e-12));

        // And the next minute slides it: (0.04 + 0.10 + 0.13) / 3 = 0.09
        IdlePeriod next = minutes.add(minute(3, 3.0, 0.13, true), T0).orElseThrow();
        assertThat(next.from()).isEqualTo(T0.plusSeconds(60));
        assertThat(next.smActive()).isCloseTo(0.09, within(1e-12));
    }

    @Test
    void shouldPassOverOpenWindowsAndClosedOnesSeenBefore() {
        for (int m = 0; m < 3; m++) {
            minutes.add(minute(m, 1.0, 0.01, true), T0);
        }

        // An update of the open minute after, and the last closed minute sent again, add nothing
        assertThat(minutes.add(minute(3, 1.0, 0.9, false), T0)).isEmpty();
        assertThat(minutes.add(minute(2, 1.0, 0.9, true), T0)).isEmpty();
        assertThat(minutes.add(minute(3, 1.0, 0.01, true), T0).orElseThrow().smActive()).isCloseTo(0.01,
                within(1e-12));
    }

    @Test
    void shouldNotTakeMinutesThatSentNothingForQuiet() {
        // Given a GPU at work in its first three minutes, then silent for three (no window: its agent was down, or the
        // engine's longest gap passed), then at 1% for three
        for (int m = 0; m < 3; m++) {
            minutes.add(minute(m, 1.0, 0.4, true), T0);
        }
        IdlePeriod period = null;
        for (int m = 6; m < 9; m++) {
            period = minutes.add(minute(m, 1.0, 0.01, true), T0).orElse(null);
        }

        // Then it has been quiet since it sent again, three minutes, not since it was last at work: nothing says
        // what it did while silent
        assertThat(period).isNotNull();
        assertThat(period.quietSince()).isEqualTo(T0.plusSeconds(360));
        assertThat(period.quietFor(Duration.ofMinutes(3))).isTrue();
        assertThat(period.quietFor(Duration.ofMinutes(4))).isFalse();
    }

    @Test
    void shouldNameThePoolsInstancesItFollowsThoseNotYetFollowedForAPeriodToo() {
        // Given a GPU of i-1 followed for three minutes, one of i-2 heard once (not yet a period), and one of i-3 in
        // another pool (spot)
        Placement i2 = new Placement("node-2", "i-2", "g5.xlarge", "aws", "us-east-1", Lifecycle.ON_DEMAND);
        Placement i3 = new Placement("node-3", "i-3", "g5.xlarge", "aws", "us-east-1", Lifecycle.SPOT);
        for (int m = 0; m < 3; m++) {
            minutes.add(minute(m, 1.0, 0.01, true), T0);
        }
        minutes.add(UsageWindows.minute(i2, "GPU-2", "unknown", "team-a", T0.plusSeconds(120), 1.0, 0.01, true), T0);
        minutes.add(UsageWindows.minute(i3, "GPU-3", "unknown", "team-a", T0.plusSeconds(120), 0.4, 0.01, true), T0);

        // Then the on-demand pool's followed instances are i-1 and i-2, and none once they are swept as stale
        assertThat(minutes.instancesOf(G5.offer())).containsExactlyInAnyOrder("i-1", "i-2");
        assertThat(minutes.instancesOf(i3.offer())).containsExactly("i-3");
        minutes.sweep(T0.plusSeconds(1));
        assertThat(minutes.instancesOf(G5.offer())).isEmpty();
    }

    @Test
    void shouldForgetGpusNotHeardOfSinceTheCutoff() {
        minutes.add(minute(0, 1.0, 0.01, true), T0);

        assertThat(minutes.sweep(T0)).isEmpty();
        assertThat(minutes.sweep(T0.plusSeconds(1))).containsExactly("GPU-1");
        assertThat(minutes.size()).isZero();
    }

    private static GpuUsage minute(int m, double pricePerHour, double smActive, boolean closed) {
        return UsageWindows.minute(G5, "GPU-1", "job-1", "team-a", T0.plusSeconds(60L * m), pricePerHour, smActive,
                closed);
    }
}
