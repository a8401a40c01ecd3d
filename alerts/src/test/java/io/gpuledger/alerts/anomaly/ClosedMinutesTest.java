package io.gpuledger.alerts.anomaly;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gpuledger.alerts.UsageWindows;
import io.gpuledger.model.GpuUsage;
import io.gpuledger.model.JobEconomics;
import io.gpuledger.model.JobPart;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Placement;
import io.gpuledger.model.TelemetrySample;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ClosedMinutesTest {

    private static final Instant T0 = Instant.parse("2026-11-10T08:00:00Z");

    private final ClosedMinutes minutes = new ClosedMinutes();

    @Test
    void shouldAddClosedWindowsUpToEachTeamJobAndPoolWithTheirSplit() {
        // Given minute T0: two GPUs of job a (team red) at 3 USD/h and one of job b (team red) at 6 USD/h
        minutes.add(closed("GPU-1", "a", "red", T0, 3));
        minutes.add(closed("GPU-2", "a", "red", T0, 3));
        minutes.add(closed("GPU-3", "b", "red", T0, 6));

        // When a window two minutes newer closes
        List<SpendMinute> done = minutes.add(closed("GPU-1", "a", "red", T0.plusSeconds(120), 3));

        // Then minute T0 is complete: red spent 12 USD/h, split 6 to job a and 6 to job b
        SpendMinute red = done.stream().filter(m -> m.dimension().equals("team")).findFirst().orElseThrow();
        assertThat(red.subject()).isEqualTo("red");
        assertThat(red.minuteStart()).isEqualTo(T0);
        assertThat(red.perHour()).isCloseTo(12, within(1e-9));
        assertThat(red.parts().get("job")).containsOnlyKeys("a", "b");
        assertThat(red.parts().get("job").get("a")).isCloseTo(0.1, within(1e-12));
        assertThat(done).extracting(m -> m.dimension() + ":" + m.subject())
                .containsExactlyInAnyOrder("team:red", "job:a", "job:b", "pool:aws|us-east-1|g5.xlarge|on-demand");
    }

    @Test
    void shouldCountASharedGpuForItsTeamAndPoolButNotAsAJobNamedShared() {
        // Given minute T0: a GPU of job a at 3 USD/h and a shared GPU (its jobs in their own roll-ups) at 6 USD/h
        minutes.add(closed("GPU-1", "a", "red", T0, 3));
        minutes.add(closed("GPU-2", TelemetrySample.SHARED_JOB, "red", T0, 6));

        List<SpendMinute> done = minutes.add(closed("GPU-1", "a", "red", T0.plusSeconds(120), 3));

        // Then red and the pool spent 9 USD/h, red's jobs split names job a only, and no job "shared" is judged
        assertThat(done).extracting(m -> m.dimension() + ":" + m.subject())
                .containsExactlyInAnyOrder("team:red", "job:a", "pool:aws|us-east-1|g5.xlarge|on-demand");
        SpendMinute red = done.stream().filter(m -> m.dimension().equals("team")).findFirst().orElseThrow();
        assertThat(red.perHour()).isCloseTo(9, within(1e-9));
        assertThat(red.parts().get("job")).containsOnlyKeys("a");
    }

    @Test
    void shouldCountEachJobsPartOfASharedGpuForItAndItsTeamAndTheRestForTheNodesTeam() {
        // Given minute T0: a shared GPU of team red's node at 6 USD/h (0.1 USD), job x of team blue took 0.05 USD
        // of it and job y (red) 0.03 USD; the other 0.02 USD no job took
        GpuUsage shared = closed("GPU-2", TelemetrySample.SHARED_JOB, "red", T0, 6).toBuilder()
                .jobParts(List.of(new JobPart("x", "blue", 30, 0.05, 0, 0), new JobPart("y", null, 18, 0.03, 0, 0)))
                .build();
        minutes.add(shared);

        List<SpendMinute> done = minutes.add(closed("GPU-1", "a", "red", T0.plusSeconds(120), 3));

        // Then blue spent 3 USD/h on job x, red 3 USD/h (job y's 1.8 and the unallocated 1.2), the pool 6 USD/h
        Map<String, SpendMinute> byKey = new java.util.HashMap<>();
        done.forEach(m -> byKey.put(m.dimension() + ":" + m.subject(), m));
        assertThat(byKey).containsOnlyKeys("team:red", "team:blue", "job:x", "job:y",
                "pool:aws|us-east-1|g5.xlarge|on-demand");
        assertThat(byKey.get("team:blue").perHour()).isCloseTo(3, within(1e-9));
        assertThat(byKey.get("team:red").perHour()).isCloseTo(3, within(1e-9));
        assertThat(byKey.get("job:y").perHour()).isCloseTo(1.8, within(1e-9));
        assertThat(byKey.get("job:x").parts().get("team")).containsOnlyKeys("blue");
        assertThat(byKey.get("team:red").parts().get("job")).containsOnlyKeys("y");
        assertThat(byKey.get("pool:aws|us-east-1|g5.xlarge|on-demand").perHour()).isCloseTo(6, within(1e-9));
    }

    @Test
    void shouldJudgeTheJobsPastThoseAWindowListsWithTheirTeamsOnly() {
        // Given minute T0: a shared GPU of team red's node at 6 USD/h (0.1 USD), job x of blue took 0.05 USD and
        // the jobs past those listed ('unlisted') 0.02 USD of blue's and 0.01 USD of green's
        GpuUsage shared = closed("GPU-2", TelemetrySample.SHARED_JOB, "red", T0, 6).toBuilder()
                .jobParts(List.of(new JobPart("x", "blue", 30, 0.05, 0, 0),
                        new JobPart(JobPart.UNLISTED_JOB, "blue", 12, 0.02, 0, 0),
                        new JobPart(JobPart.UNLISTED_JOB, "green", 6, 0.01, 0, 0)))
                .build();
        minutes.add(shared);

        List<SpendMinute> done = minutes.add(closed("GPU-1", "a", "red", T0.plusSeconds(120), 3));

        // Then blue spent 4.2 USD/h, green 0.6, red the 1.2 no job took, and no job is judged as 'unlisted'
        Map<String, SpendMinute> byKey = new java.util.HashMap<>();
        done.forEach(m -> byKey.put(m.dimension() + ":" + m.subject(), m));
        assertThat(byKey).containsOnlyKeys("team:red", "team:blue", "team:green", "job:x",
                "pool:aws|us-east-1|g5.xlarge|on-demand");
        assertThat(byKey.get("team:blue").perHour()).isCloseTo(4.2, within(1e-9));
        assertThat(byKey.get("team:green").perHour()).isCloseTo(0.6, within(1e-9));
        assertThat(byKey.get("team:red").perHour()).isCloseTo(1.2, within(1e-9));
    }

    @Test
    void shouldWaitForSlackAndLeaveOutWindowsClosingAfterTheirMinuteWasJudged() {
        assertThat(minutes.add(closed("GPU-1", "a", "red", T0, 3))).isEmpty();
        assertThat(minutes.add(closed("GPU-1", "a", "red", T0.plusSeconds(60), 3))).isEmpty();
        assertThat(minutes.add(closed("GPU-1", "a", "red", T0.plusSeconds(120), 3))).hasSize(3);

        assertThat(minutes.add(closed("GPU-2", "a", "red", T0, 3))).isEmpty();
        assertThat(minutes.late()).isEqualTo(1);
    }

    @Test
    void shouldIgnoreOpenWindows() {
        GpuUsage open = window("GPU-1", "a", "red", T0, 3, false);
        assertThat(minutes.add(open)).isEmpty();
        assertThat(minutes.add(closed("GPU-1", "a", "red", T0.plusSeconds(180), 3))).isEmpty();
    }

    @Test
    void shouldGiveEachJobMinuteOnceInItsLastVersion() {
        FinalWindows<JobEconomics> windows = new FinalWindows<>(2, Duration.ofMinutes(5));
        assertThat(offer(windows, "a", 0, 1)).isEmpty();
        assertThat(offer(windows, "a", 0, 2)).isEmpty();
        assertThat(offer(windows, "a", 2, 5)).extracting(JobEconomics::cost).containsExactly(2.0);
        assertThat(offer(windows, "a", 0, 3)).isEmpty();
        // A third job makes room by forgetting the quietest
        offer(windows, "b", 10, 1);
        offer(windows, "c", 10, 1);
        assertThat(windows.subjects()).isEqualTo(2);
    }

    @Test
    void shouldGiveTheLastMinutesOfAJobThatEndedOnceItHasBeenQuietWhileOthersWentOn() {
        // Given job a's minutes 0 to 9, each sent a minute and 10 s after it starts, then a ends; job b goes on
        FinalWindows<JobEconomics> windows = new FinalWindows<>(10, Duration.ofMinutes(5));
        List<Double> finalOfA = bothJobs(windows, 10);
        // (a minute is final once its job has one two minutes newer: 0 to 7 so far)
        assertThat(finalOfA).containsExactly(0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0);

        // When b's minutes 10 and 11 come, a quiet for two minutes of the wall clock: a job may go that long
        // between two versions of its minutes
        collect(offer(windows, "b", 10, 110), "a", finalOfA);
        collect(offer(windows, "b", 11, 111), "a", finalOfA);
        assertThat(finalOfA).hasSize(8);

        // Then once a has been quiet for three minutes, its minutes 8 and 9, in their last versions, are final
        collect(offer(windows, "b", 12, 112), "a", finalOfA);
        assertThat(finalOfA).containsExactly(0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0);

        // And a version of them coming after that is left out
        collect(offer(windows, "a", 9, 99), "a", finalOfA);
        collect(offer(windows, "b", 30, 130), "a", finalOfA);
        assertThat(finalOfA).hasSize(10);
    }

    @Test
    void shouldGiveAnEndedJobsLastMinutesWhileItsReaderStillHoldsTheJob() {
        // Given jobs forgotten after two minutes not heard of (gpuledger.metrics.stale-after=2m): job a ends after its
        // minute 9, b goes on
        FinalWindows<JobEconomics> windows = new FinalWindows<>(10, Duration.ofMinutes(2));
        List<Double> finalOfA = bothJobs(windows, 10);

        // Then a's last minutes are final once b's minutes went two minutes past them, a quiet for two minutes: at
        // least half of the two it is held, not the three an ended job is waited for otherwise
        collect(offer(windows, "b", 10, 110), "a", finalOfA);
        collect(offer(windows, "b", 11, 111), "a", finalOfA);
        assertThat(finalOfA).containsExactly(0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0);
    }

    @Test
    void shouldGiveAnEndedJobsLastMinutesWithinTheQuietTimeAfterTheWallClockSteppedBack() {
        // Given job a's minutes 0 to 9 and b's, then a ends, and the wall clock steps back an hour (NTP)
        FinalWindows<JobEconomics> windows = new FinalWindows<>(10, Duration.ofMinutes(5));
        List<Double> finalOfA = bothJobs(windows, 10);
        Instant steppedBack = minute(11).minus(Duration.ofHours(1));

        // When b's minutes 10 to 13 come, a minute apart by the stepped-back clock
        for (int m = 10; m < 14; m++) {
            collect(windows.offer("b", minute(m), economics("b", minute(m), 100 + m),
                    steppedBack.plus(Duration.ofMinutes(m - 10))), "a", finalOfA);
        }

        // Then a's minutes 8 and 9 are final three minutes after the step, not an hour and three minutes
        assertThat(finalOfA).containsExactly(0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0);
    }

    @Test
    void shouldNotTakeAQuietJobsMinutesAsFinalBeforeAnotherJobsMinutesAreTwoMinutesNewer() {
        // Given job a's minutes 0 to 4 and b's 0 to 4, a then quiet while b sends its minute 5 again and again
        FinalWindows<JobEconomics> windows = new FinalWindows<>(10, Duration.ofMinutes(5));
        List<Double> finalOfA = bothJobs(windows, 5);
        for (int s = 0; s < 600; s += 20) {
            collect(windows.offer("b", minute(5), economics("b", minute(5), 105),
                    minute(6).plusSeconds(10 + s)), "a", finalOfA);
        }
        // Then a's minute 4 waits: no minute of the fleet is two minutes newer (its task may be behind b's)
        assertThat(finalOfA).containsExactly(0.0, 1.0, 2.0, 3.0);
        // And it is final once b's minute 6 comes
        collect(windows.offer("b", minute(6), economics("b", minute(6), 106), minute(17)), "a", finalOfA);
        assertThat(finalOfA).containsExactly(0.0, 1.0, 2.0, 3.0, 4.0);
    }

    /** Minutes 0 to {@code minutes - 1} of job a (costing m) and b (100 + m); the costs of a's minutes made final. */
    private static List<Double> bothJobs(FinalWindows<JobEconomics> windows, int minutes) {
        List<Double> finalOfA = new ArrayList<>();
        for (int m = 0; m < minutes; m++) {
            collect(offer(windows, "a", m, m), "a", finalOfA);
            offer(windows, "b", m, 100 + m);
        }
        return finalOfA;
    }

    private static Instant minute(int m) {
        return T0.plusSeconds(60L * m);
    }

    /** Job {@code job}'s minute {@code m}, costing {@code cost}, offered a minute and 10 s after it starts. */
    private static List<JobEconomics> offer(FinalWindows<JobEconomics> windows, String job, int m, double cost) {
        return windows.offer(job, minute(m), economics(job, minute(m), cost), minute(m + 1).plusSeconds(10));
    }

    private static void collect(List<JobEconomics> done, String job, List<Double> costs) {
        done.stream().filter(e -> e.jobId().equals(job)).forEach(e -> costs.add(e.cost()));
    }

    private static JobEconomics economics(String job, Instant start, double cost) {
        return new JobEconomics(job, start, start.plusSeconds(60), "USD", 1, 60, 0, cost, cost * 60, false, Map.of(),
                Map.of(), Map.of(), null, 0);
    }

    private static GpuUsage closed(String gpu, String job, String team, Instant start, double pricePerHour) {
        return window(gpu, job, team, start, pricePerHour, true);
    }

    private static GpuUsage window(String gpu, String job, String team, Instant start, double pricePerHour,
            boolean closed) {
        return UsageWindows.minute(new Placement("node-1", "i-1", "g5.xlarge", "aws", "us-east-1", Lifecycle.ON_DEMAND),
                gpu, job, team, start, pricePerHour, 0.5, closed);
    }
}
