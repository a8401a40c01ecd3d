package io.gpuledger.alerts.recommend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class JobHoursTest {

    private static final Instant MONDAY = Instant.parse("2026-03-02T00:00:00Z");

    private final JobHours hours = new JobHours(Duration.ofHours(24), 100);

    @Test
    void shouldCountTheShareOfTheDayAJobRanAtItsSizeNow() {
        // Given a job on 8 GPUs from 08:00 to 16:00 on Monday and from 08:00 to 09:30 on Tuesday
        run("daily", 8, at(8, 0), at(16, 0));
        run("daily", 8, at(24 + 8, 0), at(24 + 9, 30));

        // When its share is asked at 09:30 on Tuesday
        JobHours.Share share = hours.share("daily", at(24 + 9, 30), 8).orElseThrow();

        // Then the day from 09:30 on Monday holds 6.5 h of Monday (09:30 to 16:00; of the hour from
        // 09:00, counted in one bucket, the half after 09:30) and 1.5 h of Tuesday: 8 h of 8 GPUs,
        // 64 GPU-hours; a third of the day, 240 hours of a 720-hour month
        assertThat(share.from()).isEqualTo(at(9, 30));
        assertThat(share.to()).isEqualTo(at(24 + 9, 30));
        assertThat(share.gpuHours()).isCloseTo(64, within(1e-9));
        assertThat(share.share()).isCloseTo(1.0 / 3, within(1e-12));
        assertThat(share.hoursPerMonth()).isCloseTo(240, within(1e-9));
    }

    @Test
    void shouldJudgeAJobOnlyOnceFollowedForTheWholeLookback() {
        // Given a job first seen at 08:00 on Monday, on 4 GPUs all the time since
        run("new", 4, at(8, 0), at(24 + 8, 0));

        // Then at 07:59 on Tuesday its day is not known; at 08:00 it is, all of it run
        assertThat(hours.share("new", at(24 + 7, 59), 4)).isEmpty();
        assertThat(hours.share("new", at(24 + 8, 0), 4)).hasValueSatisfying(
                share -> assertThat(share.share()).isCloseTo(1, within(1e-12)));
        // and a job never seen is not known at all
        assertThat(hours.share("other", at(24 + 8, 0), 4)).isEmpty();
    }

    @Test
    void shouldCountItsGpuHoursAgainstItsSizeNowAndAtMostTheWholeLookback() {
        // Given a job on 2 GPUs for the first 12 hours of a day and on 8 for the next 12
        run("grew", 2, at(0, 0), at(12, 0));
        run("grew", 8, at(12, 0), at(24, 0));

        // When its share is asked at its size now, 8 GPUs
        JobHours.Share grew = hours.share("grew", at(24, 0), 8).orElseThrow();

        // Then it held 2 x 12 + 8 x 12 = 120 GPU-hours of the 8 x 24 = 192 it would have at 8 GPUs:
        // 0.625; asked at 2 GPUs, it would be 2.5 times the day: a share is at most the whole day
        assertThat(grew.share()).isCloseTo(120.0 / 192, within(1e-12));
        assertThat(hours.share("grew", at(24, 0), 2).orElseThrow().share()).isEqualTo(1);
    }

    @Test
    void shouldForgetAJobOnceItsLookbackHoldsNothingOfItAndMakeRoomForNewOnes() {
        // Given a job that ran until 10:00 on Monday
        run("gone", 1, at(0, 0), at(10, 0));

        // When swept at 10:00 on Tuesday, its last minute (09:59) a day and a minute old, it is gone;
        // swept a minute sooner, it is not
        hours.sweep(at(24 + 9, 59));
        assertThat(hours.size()).isEqualTo(1);
        hours.sweep(at(24 + 10, 0));
        assertThat(hours.size()).isZero();

        // And a book of two jobs makes room for a third by forgetting the one heard of least recently
        JobHours two = new JobHours(Duration.ofHours(24), 2);
        two.add("a", at(1, 0), 1);
        two.add("b", at(2, 0), 1);
        two.add("c", at(3, 0), 1);
        assertThat(two.size()).isEqualTo(2);
        assertThat(two.share("a", at(24 + 3, 0), 1)).isEmpty();
        assertThat(two.share("b", at(24 + 3, 0), 1)).isPresent();
    }

    @Test
    void shouldRefuseALookbackOfNoWholeMinute() {
        assertThatThrownBy(() -> new JobHours(Duration.ofSeconds(90), 10))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("whole minutes");
    }

    /** The job's final minutes from {@code from} up to {@code to}, on {@code gpus}. */
    private void run(String job, double gpus, Instant from, Instant to) {
        for (Instant minute = from; minute.isBefore(to); minute = minute.plusSeconds(60)) {
            hours.add(job, minute, gpus);
        }
    }

    private static Instant at(int hour, int minute) {
        return MONDAY.plus(Duration.ofHours(hour)).plus(Duration.ofMinutes(minute));
    }
}
