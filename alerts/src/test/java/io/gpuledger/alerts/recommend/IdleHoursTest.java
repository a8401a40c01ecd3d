package io.gpuledger.alerts.recommend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** How many hours a month a target's idle capacity stays idle, from its judged minutes and its releases. */
class IdleHoursTest {

    private static final Instant T0 = Instant.parse("2026-03-02T00:00:00Z");

    @Test
    void shouldCountTheTimeAReleasedInstanceIsGoneAsIdleThoughItClosesAMinuteAsItGoes() {
        // Given a notebook's instance judged idle for an hour (minutes 0 to 59), released on advice, which closes
        // one more minute as it goes (60), and is back three hours in (minute 180, busy)
        IdleHours hours = new IdleHours(Duration.ofDays(1), 10);
        for (int m = 0; m < 60; m++) {
            hours.add("job:nb", minute(m), 1);
        }
        hours.releasedOnAdvice("job:nb", 1);
        hours.add("job:nb", minute(60), 1);
        hours.add("job:nb", minute(180), 0);

        // Then of the 181 minutes followed, all but the last were idle or gone: 61 judged idle, 119 gone
        JobHours.Share share = hours.share("job:nb", minute(181), 1).orElseThrow();
        assertThat(share.share()).isCloseTo(180.0 / 181, within(1e-9));
    }

    @Test
    void shouldEndTheTimeGoneWhenTheCapacityIsJudgedAgainAfterItWent() {
        // Given the same, but the instance never went: judged busy again at minute 63, three minutes on
        IdleHours hours = new IdleHours(Duration.ofDays(1), 10);
        for (int m = 0; m < 60; m++) {
            hours.add("job:nb", minute(m), 1);
        }
        hours.releasedOnAdvice("job:nb", 1);
        hours.add("job:nb", minute(63), 0);
        hours.add("job:nb", minute(180), 0);

        // Then the minutes 60 to 62 count as gone, and nothing after: 63 idle of 181
        JobHours.Share share = hours.share("job:nb", minute(181), 1).orElseThrow();
        assertThat(share.share()).isCloseTo(63.0 / 181, within(1e-9));
    }

    private static Instant minute(int m) {
        return T0.plusSeconds(60L * m);
    }
}
