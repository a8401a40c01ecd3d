package io.gpuledger.alerts.feed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class KeyedIntervalTest {

    private static final Instant T0 = Instant.parse("2026-12-02T12:00:00Z");

    @Test
    void shouldTakeEachKeyOnceAnInterval() {
        KeyedInterval every30s = new KeyedInterval(Duration.ofSeconds(30));

        assertThat(every30s.take("job-a", T0)).isTrue();
        assertThat(every30s.take("job-a", T0.plusSeconds(1))).isFalse();
        assertThat(every30s.take("job-b", T0.plusSeconds(1))).isTrue();
        assertThat(every30s.take("job-a", T0.plusSeconds(29))).isFalse();
        // 30 s after it was taken at T0: due again, and the next interval counts from here
        assertThat(every30s.take("job-a", T0.plusSeconds(30))).isTrue();
        assertThat(every30s.take("job-a", T0.plusSeconds(59))).isFalse();
        assertThat(every30s.take("job-a", T0.plusSeconds(60))).isTrue();
    }

    @Test
    void shouldTakeAKeyAgainWhenTheClockWentBack() {
        KeyedInterval every30s = new KeyedInterval(Duration.ofSeconds(30));
        every30s.take("job-a", T0);

        // A clock set back must not silence the key until it catches up with T0 + 30 s.
        assertThat(every30s.take("job-a", T0.minusSeconds(600))).isTrue();
        assertThat(every30s.take("job-a", T0.minusSeconds(590))).isFalse();
    }

    @Test
    void shouldForgetOnlyTheKeysWhoseIntervalIsOver() {
        KeyedInterval every30s = new KeyedInterval(Duration.ofSeconds(30));
        every30s.take("job-a", T0);
        every30s.take("job-b", T0.plusSeconds(20));

        every30s.prune(T0.plusSeconds(30));

        assertThat(every30s.size()).isEqualTo(1);
        assertThat(every30s.take("job-b", T0.plusSeconds(31))).isFalse();
    }

    @Test
    void shouldRefuseAnIntervalThatIsNotPositive() {
        assertThatThrownBy(() -> new KeyedInterval(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("positive");
    }
}
