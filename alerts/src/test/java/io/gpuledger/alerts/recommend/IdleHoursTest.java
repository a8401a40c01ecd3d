package io.gpuledger.alerts.recommend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** How many hours a month a target's idle capacity stays idle, from its judged minutes and its releases. */
class IdleHoursTest {

    private static final Instant T0 = Instant.parse("2026-03-02T00:00:00Z");

    @Test
    void shouldCountTheTimeAReleasedInstanceIsGoneAsIdleThoughItClosesAMinuteAsItGoes() {
        // Given a notebook's instance judged idle for an hour (minutes 0 to 59), released on advice, which closes
        // one more minute as it goes (60), and is back three hours in (minute 180, busy)
        IdleHours hours = new IdleHours(Duration.ofDays(1), 10, Duration.ofMinutes(30));
        judgedIdle(hours, "job:nb", 0, 60);
        hours.releasedOnAdvice("job:nb", 1, true, Set.of("i-nb"), Set.of(), minute(62));
        hours.add("job:nb", minute(60), 1);
        hours.add("job:nb", minute(180), 0);

        // Then of the 181 minutes followed, all but the last were idle or gone: 61 judged idle, 119 gone
        JobHours.Share share = hours.share("job:nb", minute(181), 1).orElseThrow();
        assertThat(share.share()).isCloseTo(180.0 / 181, within(1e-9));
    }

    @Test
    void shouldEndTheTimeGoneWhenTheCapacityIsJudgedAgainAfterItWent() {
        // Given the same, acknowledged at minute 62, but the instance never went: judged busy again at minute 68,
        // six minutes on, past the five it may take to stop and close its last minute
        IdleHours hours = new IdleHours(Duration.ofDays(1), 10, Duration.ofMinutes(30));
        judgedIdle(hours, "job:nb", 0, 60);
        hours.releasedOnAdvice("job:nb", 1, true, Set.of("i-nb"), Set.of(), minute(62));
        hours.heard("job:nb", "i-nb", minute(66));
        hours.add("job:nb", minute(66), 0);
        hours.heard("job:nb", "i-nb", minute(68));
        hours.add("job:nb", minute(68), 0);
        hours.add("job:nb", minute(180), 0);

        // Then minute 66 is judged as it was (the instance stopping, as far as can be told), the time gone starts
        // after it and ends at 68, where it sends still: one minute; and as the release saved nothing, its next waits
        // two periods and claims only that minute of the day
        assertThat(hours.periods("job:nb")).isEqualTo(2);
        JobHours.Share share = hours.share("job:nb", minute(181), 1).orElseThrow();
        assertThat(share.share()).isCloseTo(1.0 / 1440, within(1e-9));
    }

    @Test
    void shouldWaitTwiceAsLongAfterEachReleaseWhoseCapacityCameBackWithinAPeriodAndOnceAfterOneThatStayedAway() {
        // Given a serving job's instance judged idle from minute 0 to 29 and released whole on advice, whose
        // controller brings a new instance up at once: its first window at minute 35, five minutes after
        IdleHours hours = new IdleHours(Duration.ofDays(1), 10, Duration.ofMinutes(30));
        judgedIdle(hours, "serve", 0, 30);
        hours.releasedOnAdvice("serve", 1, true, Set.of("i-old"), Set.of(), minute(32));
        // the old instance, acknowledged at minute 32, closes minutes 30 to 36 as it stops, which is not a return
        for (int m = 30; m < 37; m++) {
            hours.heard("serve", "i-old", minute(m));
        }
        assertThat(hours.periods("serve")).isEqualTo(1);
        hours.heard("serve", "i-new-1", minute(35));

        // Then its next release waits two periods quiet
        assertThat(hours.periods("serve")).isEqualTo(2);

        // And after the same again (released at minute 100, back at 104), four
        judgedIdle(hours, "serve", 66, 100);
        hours.releasedOnAdvice("serve", 1, true, Set.of("i-old"), Set.of(), minute(102));
        hours.heard("serve", "i-new-2", minute(104));
        assertThat(hours.periods("serve")).isEqualTo(4);
        // and once judged again (minute 140), what it claims is only the minutes its releases kept it away over
        // the day, 5 + 4 of 1,440, not the 64 minutes it was judged idle
        hours.add("serve", minute(140), 1);
        assertThat(hours.share("serve", minute(200), 1).orElseThrow().share()).isCloseTo(9.0 / 1440, within(1e-9));

        // And a release that stays away a period or more (released at 300, back at 400) sets it back to one
        judgedIdle(hours, "serve", 250, 300);
        hours.releasedOnAdvice("serve", 1, true, Set.of("i-old"), Set.of(), minute(302));
        hours.heard("serve", "i-new-3", minute(400));
        assertThat(hours.periods("serve")).isEqualTo(1);
    }

    @Test
    void shouldWaitOnePeriodAgainOnceAReleaseStayedAwayALookBackWhateverKeepsTheTargetJudged() {
        // Given a job on i-a and i-b waiting two periods (its last release of i-b came back within one), told
        // again to keep i-a and release i-b at minute 100, acknowledged at 102; i-a keeps it judged every minute
        IdleHours hours = new IdleHours(Duration.ofDays(1), 10, Duration.ofMinutes(30));
        judgedIdle(hours, "wide", 0, 30);
        assertThat(hours.following()).isFalse();
        hours.releasedOnAdvice("wide", 1, false, Set.of("i-b"), Set.of("i-a"), minute(32));
        assertThat(hours.following()).isTrue();
        hours.heard("wide", "i-c", minute(40));
        assertThat(hours.periods("wide")).isEqualTo(2);
        judgedIdle(hours, "wide", 41, 100);
        hours.releasedOnAdvice("wide", 1, false, Set.of("i-c"), Set.of("i-a"), minute(102));

        // When a day goes by with only i-a sending, and the look-back is swept
        for (int m = 100; m < 100 + 1441; m++) {
            hours.heard("wide", "i-a", minute(m));
            hours.add("wide", minute(m), 0);
        }
        hours.sweep(minute(100 + 1441));

        // Then that release stayed away: its next waits one period, and no release is followed any more, so that
        // closed windows are not looked at for one
        assertThat(hours.periods("wide")).isEqualTo(1);
        assertThat(hours.following()).isFalse();
    }

    @Test
    void shouldTakeAJobToldToShrinkAsBackOnlyOnceAnInstanceItDidNotKeepSends() {
        // Given a job on i-a and i-b told to keep i-a, released at minute 30
        IdleHours hours = new IdleHours(Duration.ofDays(1), 10, Duration.ofMinutes(30));
        judgedIdle(hours, "wide", 0, 30);
        hours.releasedOnAdvice("wide", 1, false, Set.of("i-b"), Set.of("i-a"), minute(32));

        // When i-a goes on sending, and i-b closes its last minutes, and then a new instance sends, ten minutes on
        for (int m = 30; m < 40; m++) {
            hours.heard("wide", "i-a", minute(m));
        }
        hours.heard("wide", "i-b", minute(32));
        assertThat(hours.periods("wide")).isEqualTo(1);
        hours.heard("wide", "i-c", minute(40));

        // Then the release came back within a period: two periods next time
        assertThat(hours.periods("wide")).isEqualTo(2);
    }

    @Test
    void shouldEndTheTimeGoneAtTheFirstWindowBackNotAtTheFirstJudgedMinute() {
        // Given a notebook released after minute 59, whose new instance sends from minute 120 and is first judged
        // at minute 150, once followed for its period
        IdleHours hours = new IdleHours(Duration.ofDays(1), 10, Duration.ofMinutes(30));
        judgedIdle(hours, "nb", 0, 60);
        hours.releasedOnAdvice("nb", 1, true, Set.of("i-1"), Set.of(), minute(62));
        hours.heard("nb", "i-2", minute(120));
        hours.add("nb", minute(150), 0);

        // Then minutes 60 to 119 were gone and 120 to 149 in use: 120 idle of the 151 followed
        assertThat(hours.share("nb", minute(151), 1).orElseThrow().share()).isCloseTo(120.0 / 151, within(1e-9));
    }

    /** Minutes {@code from} to {@code to} (exclusive) of the target, judged with one instance idle. */
    private static void judgedIdle(IdleHours hours, String target, int from, int to) {
        for (int m = from; m < to; m++) {
            hours.add(target, minute(m), 1);
        }
    }

    private static Instant minute(int m) {
        return T0.plusSeconds(60L * m);
    }
}
