package io.gpuledger.streams.cost;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gpuledger.model.Allocation;
import io.gpuledger.model.JobPart;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Placement;
import io.gpuledger.model.SharePolicy;
import io.gpuledger.model.TelemetrySample;
import io.gpuledger.model.UsageTotals;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A GPU's state: its coverage settled into unmonitored seconds, and its binary form. */
class GpuStateTest {

    private static final long T0 = Instant.parse("2026-03-01T12:00:00Z").toEpochMilli();
    private static final long MINUTE = GpuState.MINUTE_MILLIS;
    private static final long MAX_GAP = 900;

    @Test
    void shouldCountTheSilenceBetweenCoveredSecondsOnceWhateverOrderTheyCameIn() {
        GpuState state = new GpuState();
        cover(state, T0 + 40_000, T0 + 60_000);
        cover(state, T0, T0 + 10_000);
        cover(state, T0 + 60_000, T0 + 70_000);

        assertThat(settle(state, T0, MAX_GAP)).isEqualTo(30);
        assertThat(settle(state, T0 + MINUTE, MAX_GAP)).isZero();
    }

    @Test
    void shouldSettleASilenceThatOutlivedItsWindowWhereItEnds() {
        // Given a GPU covered until :30 of its first minute, whose next sample is not known yet
        GpuState state = new GpuState();
        cover(state, T0, T0 + 30_000);
        assertThat(settle(state, T0, MAX_GAP)).isZero();

        // When it comes back at :20 of its third minute
        cover(state, T0 + 2 * MINUTE + 20_000, T0 + 3 * MINUTE);

        // Then the next minute to settle carries the rest of the first, the whole second and the start of the third
        assertThat(settle(state, T0 + 2 * MINUTE, MAX_GAP)).isEqualTo(30 + 60 + 20);
    }

    @Test
    void shouldCountNothingAfterASilenceLongerThanTheMaximumGap() {
        GpuState state = new GpuState();
        cover(state, T0, T0 + MINUTE);
        settle(state, T0, MAX_GAP);
        cover(state, T0 + 20 * MINUTE, T0 + 21 * MINUTE);

        assertThat(settle(state, T0 + 20 * MINUTE, MAX_GAP)).isZero();
    }

    @Test
    void shouldCoverEachSecondWhoseMiddleASampleSpansSoThatSamplesInTurnShareNone() {
        // Given one-second samples a third of a second past each second, and one of a quarter second
        GpuState state = new GpuState();
        cover(state, T0 + 58_300, T0 + 59_300);
        cover(state, T0 + 59_300, T0 + 60_300);
        cover(state, T0 + 60_300, T0 + 61_300);
        cover(state, T0 + 61_600, T0 + 61_850);

        // Then each covers a second of its own, across the minute, and none covers another's
        assertThat(state.coverage()).containsExactly(java.util.Map.entry(T0, 3L << 58),
                java.util.Map.entry(T0 + MINUTE, 1L));
        // And the quarter second covers no second: no second's middle lies in it
        assertThat(GpuState.firstSecond(T0 + 61_600)).isEqualTo(GpuState.firstSecond(T0 + 61_850));
    }

    @Test
    void shouldAnswerHowManyOfASpansSecondsNoSampleCoveredBefore() {
        // Given a GPU covered from :00 to :40
        GpuState state = new GpuState();
        cover(state, T0, T0 + 40_000);

        // Then of :30 to :50, the ten seconds from :40 are new, and covered from then on
        assertThat(state.coverNew(second(30), second(50))).isEqualTo(10);
        assertThat(state.coverNew(second(30), second(50))).as("the same again").isZero();
        // And of :45 to 1:05, the ten of its first minute from :50 and the five of the next are new
        assertThat(state.coverNew(second(45), second(65))).isEqualTo(10 + 5);
    }

    @Test
    void shouldCountSecondsMarkedBeforeAndAfterACommitAsCoveredAndNeitherAfterTheyAreSettled() {
        // Given a minute covered to :30, written at a commit, then covered to :40
        GpuState state = new GpuState();
        cover(state, T0, T0 + 30_000);
        state.coverage();
        cover(state, T0 + 30_000, T0 + 40_000);
        GpuState read = GpuState.CODEC.fromBytes(GpuState.CODEC.toBytes(state));
        assertThat(state.coverNew(second(25), second(45))).as("15 covered, :40 to :45 not").isEqualTo(5);
        assertThat(read.coverNew(second(25), second(45))).as("read back").isEqualTo(5);

        // When the minute is settled, and a late sample covers its last ten seconds
        settle(state, T0, MAX_GAP);
        assertThat(state.coverage()).isEmpty();
        cover(state, T0 + 50_000, T0 + 60_000);

        // Then only those ten seconds are marked: the settled ones do not come back
        assertThat(state.coverage()).containsExactly(java.util.Map.entry(T0, ((1L << 10) - 1) << 50));
    }

    @Test
    void shouldReadBackWhatItWrote() {
        GpuState state = new GpuState();
        GpuIdentity earlier = GpuIdentity.of(sample("job-a", "team-x"));
        GpuIdentity latest = GpuIdentity.of(sample("job-b", null));
        state.identity = latest;
        GpuState.Window before = new GpuState.Window();
        before.identity = earlier;
        before.add(UsageTotals.ZERO.add(sample("job-a", "team-x"), 4.0));
        before.countIn(earlier.rollupKeys[0]);
        before.countIn(latest.rollupKeys[0]);
        GpuState.Window now = new GpuState.Window();
        now.identity = latest;
        now.add(UsageTotals.ZERO.add(sample("job-b", null), null));
        for (String key : latest.rollupKeys) {
            now.countIn(key);
        }
        state.windows.put(T0, before);
        state.windows.put(T0 + MINUTE, now);
        cover(state, T0 + 5_000, T0 + 65_000);
        state.settledUntil = T0 / 1000 - 5;

        GpuState read = GpuState.CODEC.fromBytes(GpuState.CODEC.toBytes(state));
        assertThat(read.identity).as("kept in a store of its own").isNull();
        assertThat(read.windows.get(T0 + MINUTE).identity).isNull();
        read.attach(GpuIdentity.CODEC.fromBytes(GpuIdentity.CODEC.toBytes(latest)));

        assertThat(read.settledUntil).isEqualTo(state.settledUntil);
        assertThat(read.coverage()).isEqualTo(state.coverage());
        assertThat(read.identity.jobId).isEqualTo("job-b");
        assertThat(read.windows.get(T0).identity.jobId).isEqualTo("job-a");
        assertThat(read.windows.get(T0).identity.team).isEqualTo("team-x");
        assertThat(read.windows.get(T0).counted).containsExactly("job|job-a", "job|job-b");
        assertThat(read.windows.get(T0).totals.snapshot()).isEqualTo(before.totals.snapshot());
        assertThat(read.windows.get(T0 + MINUTE).identity).isSameAs(read.identity);
        assertThat(read.windows.get(T0 + MINUTE).counted).containsExactly(latest.rollupKeys);
        assertThat(read.windows.get(T0 + MINUTE).totals.snapshot()).isEqualTo(now.totals.snapshot());
    }

    @Test
    void shouldCountASharedMinuteInAsManyRollupsAsItsStoredFormHoldsAndReadThemBack() {
        // Given a GPU's minute shared by 300 jobs
        GpuState state = new GpuState();
        state.identity = GpuIdentity.of(sample("job-a", "team-x"));
        GpuState.Window window = state.window(T0);
        window.identity = state.identity;
        window.add(UsageTotals.ZERO.add(sample("job-a", "team-x"), 4.0).sharedBy(SharePolicy.EVEN));
        int counted = 0;
        for (int job = 0; job < 300; job++) {
            counted += window.countIn("job|job-" + job) ? 1 : 0;
        }

        // Then it counts in the first 255, and reads them back
        GpuState read = GpuState.CODEC.fromBytes(GpuState.CODEC.toBytes(state));
        read.attach(state.identity);
        assertThat(counted).isEqualTo(255);
        assertThat(read.windows.get(T0).counted).hasSize(255).startsWith("job|job-0").endsWith("job|job-254");
        assertThat(read.windows.get(T0).sharingJobs()).isEqualTo(255);
        assertThat(read.coverage()).isEmpty();
    }

    @Test
    void shouldGiveAJobItsPartOfAMinuteWhoseSharedSamplesListedNoJobAfterTheStateIsReadBack() {
        // Given a minute whose one sample said its GPU was shared but listed no job: all of it the rest, no part
        GpuIdentity sharedByNone = GpuIdentity.of(sharedSample());
        UsageTotals rest = UsageTotals.ZERO.add(sharedSample(), 3.6);
        ShareTargets targets = ShareTargets.of(null, List.of(), sharedByNone);
        List<List<JobPart>> parts = new java.util.ArrayList<>();
        for (boolean readBack : List.of(false, true)) {
            GpuState state = new GpuState();
            state.identity = sharedByNone;
            GpuState.Window window = state.window(T0);
            window.identity = sharedByNone;
            window.addShared(targets, targets.split(rest, List.of(), null), null);
            if (readBack) {
                state = GpuState.CODEC.fromBytes(GpuState.CODEC.toBytes(state));
                state.attach(sharedByNone);
                window = state.windows.get(T0);
            }

            // When a sample of one job comes in the same minute
            TelemetrySample alone = sample("infer-a", "serving");
            window.addSole(window.identity, GpuIdentity.of(alone), UsageTotals.ZERO.add(alone, 3.6));
            parts.add(window.jobParts());
        }

        // Then the job has its part, 10 s at 3.60 an hour, whether or not the state was written and read back between
        for (List<JobPart> part : parts) {
            assertThat(part).singleElement().satisfies(job -> {
                assertThat(job.jobId()).isEqualTo("infer-a");
                assertThat(job.gpuSeconds()).isEqualTo(10.0);
                assertThat(job.cost()).isCloseTo(0.01, within(1e-12));
            });
        }
    }

    @Test
    void shouldKeepTheFirstReleasesFormatUntilAWindowIsSharedAndThenReadTheJobsPartsBack() {
        // Given a GPU's state of one job's minute, and the same GPU's next minute shared by two jobs
        GpuState state = new GpuState();
        state.identity = GpuIdentity.of(sample("job-a", "team-x"));
        GpuState.Window alone = state.window(T0);
        alone.identity = state.identity;
        alone.add(UsageTotals.ZERO.add(sample("job-a", "team-x"), 4.0));
        byte[] unshared = GpuState.CODEC.toBytes(state);
        GpuState.Window shared = state.window(T0 + MINUTE);
        shared.identity = state.identity;
        List<Allocation> allocations = List.of(new Allocation("infer-a", "serving", 0.5, SharePolicy.SM),
                new Allocation("notebook-b", null, 0.25, SharePolicy.SM));
        UsageTotals charged = UsageTotals.ZERO.add(sample("job-a", "team-x"), 3.6);
        ShareTargets targets = ShareTargets.of(null, allocations, state.identity);
        SharedCharge.Slots split = targets.split(charged, allocations, null);
        shared.addShared(targets, split, null);
        shared.addShared(targets, targets.split(charged, allocations, split), null);

        // When both are written and the second is read back
        byte[] withParts = GpuState.CODEC.toBytes(state);
        GpuState read = GpuState.CODEC.fromBytes(withParts);
        read.attach(state.identity);

        // Then the state of no shared minute is in the first release's format (version byte 0xC1), the other in
        // the second's, and the parts come back: two samples of 0.5 and 0.25 of the charge, the notebook on the
        // node's team
        assertThat(unshared[0]).isEqualTo((byte) 0xC1);
        assertThat(withParts[0]).isEqualTo((byte) 0xC2);
        assertThat(read.windows.get(T0).jobParts()).isEmpty();
        List<JobPart> parts = read.windows.get(T0 + MINUTE).jobParts();
        assertThat(parts).extracting(JobPart::jobId).containsExactly("infer-a", "notebook-b");
        assertThat(parts.get(1).team()).isEqualTo("team-x");
        assertThat(parts.get(0).cost()).isCloseTo(2 * 0.5 * charged.cost(), within(1e-15));
        assertThat(parts.get(1).gpuSeconds()).isCloseTo(2 * 0.25 * charged.gpuSeconds(), within(1e-12));
        assertThat(parts).isEqualTo(shared.jobParts());
    }

    @Test
    void shouldKeepTheFirstReleasesFormatForAMinuteOfOneJobAfterAnother() {
        // Given a GPU's minute whose first sample was job-a's and whose second job-b's, never shared
        GpuState state = new GpuState();
        GpuIdentity first = GpuIdentity.of(sample("job-a", "team-x"));
        GpuIdentity second = GpuIdentity.of(sample("job-b", "team-x"));
        state.identity = second;
        GpuState.Window window = state.window(T0);
        window.identity = first;
        window.addSole(null, first, UsageTotals.ZERO.add(sample("job-a", "team-x"), 4.0));
        window.identity = second;
        window.addSole(first, second, UsageTotals.ZERO.add(sample("job-b", "team-x"), 4.0));

        // When it is written and read back
        byte[] bytes = GpuState.CODEC.toBytes(state);
        GpuState read = GpuState.CODEC.fromBytes(bytes);
        read.attach(second);

        // Then it keeps each job's part while the engine runs, and is written in the first release's format, which
        // every release reads: the parts are left out
        assertThat(window.jobParts).as("kept in memory").isNotNull();
        assertThat(bytes[0]).isEqualTo((byte) 0xC1);
        assertThat(read.windows.get(T0).jobParts).isNull();
        assertThat(read.windows.get(T0).totals.samples()).isEqualTo(2);
    }

    @Test
    void shouldWriteAWindowThatChangedSinceItWasLastWrittenAsItNowStands() {
        GpuState state = new GpuState();
        state.identity = GpuIdentity.of(sample("job-a", "team-x"));
        GpuState.Window unchanged = state.window(T0);
        unchanged.identity = state.identity;
        unchanged.add(UsageTotals.ZERO.add(sample("job-a", "team-x"), 4.0));
        GpuState.Window changing = state.window(T0 + MINUTE);
        changing.identity = state.identity;
        changing.add(UsageTotals.ZERO.add(sample("job-a", "team-x"), 4.0));
        GpuState.CODEC.toBytes(state);

        changing.add(UsageTotals.ZERO.add(sample("job-a", "team-x"), 2.0));
        GpuState read = GpuState.CODEC.fromBytes(GpuState.CODEC.toBytes(state));

        assertThat(read.windows.get(T0).totals.snapshot()).isEqualTo(unchanged.totals.snapshot());
        assertThat(read.windows.get(T0 + MINUTE).totals.snapshot().samples()).isEqualTo(2);
        assertThat(read.windows.get(T0 + MINUTE).totals.snapshot()).isEqualTo(changing.totals.snapshot());
    }

    /**
     * Covers {@code [fromMillis, toMillis)} as a sample of that span does: the seconds whose
     * middle lies in it.
     */
    private static void cover(GpuState state, long fromMillis, long toMillis) {
        state.coverNew(GpuState.firstSecond(fromMillis), GpuState.firstSecond(toMillis));
    }

    private static long settle(GpuState state, long startMillis, long maxGapSeconds) {
        return state.settle(startMillis, maxGapSeconds, (from, to) -> { });
    }

    /** The epoch second {@code seconds} after T0. */
    private static long second(int seconds) {
        return T0 / 1000 + seconds;
    }

    /** A shared GPU's sample that lists no job: what a writer says of a GPU whose users it could not name. */
    private static TelemetrySample sharedSample() {
        return sample(TelemetrySample.SHARED_JOB, "platform");
    }

    private static TelemetrySample sample(String job, String team) {
        return TelemetrySample.builder().gpuUuid("GPU-1").gpuModel("A100-40GB")
                .placement(new Placement("node-a", "i-0abc", "p4d.24xlarge", "aws", "us-east-1", Lifecycle.SPOT))
                .jobId(job).team(team).time(Instant.ofEpochMilli(T0 + 10_000)).intervalSeconds(10).smActive(0.5)
                .powerWatts(300.0).build();
    }
}
