package io.gpuledger.streams.cost;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gpuledger.model.CurrencyRates;
import io.gpuledger.model.DeadLetters;
import io.gpuledger.model.GpuUsage;
import io.gpuledger.model.Json;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Placement;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.TelemetrySample;
import io.gpuledger.model.UsageRollup;
import io.gpuledger.streams.state.LiveStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Windows closing at their end plus grace: the last record of each, its unmonitored time (gaps
 * between a GPU's samples), and the state the engine lets go of afterwards.
 */
class WindowCloseTest {

    private static final Instant T0 = Instant.parse("2026-03-01T12:00:00Z");
    private static final Duration GRACE = CostDriver.GRACE;
    private static final double GPU_PER_HOUR = 32.0 / 8;

    private CostDriver cost;
    private TopologyTestDriver driver;
    private TestInputTopic<String, byte[]> telemetry;
    private TestOutputTopic<String, GpuUsage> usage;
    private TestOutputTopic<String, UsageRollup> rollups;
    private TestOutputTopic<String, byte[]> deadLetters;
    private Instant wallClock = T0;
    private final List<GpuUsage> closed = new ArrayList<>();

    @BeforeEach
    void startDriver() {
        cost = new CostDriver("window-close-test", T0);
        cost.publish(new PriceQuote("aws", "us-east-1", "p4d.24xlarge", Lifecycle.ON_DEMAND, "A100-40GB", 8, 32.0,
                "USD", T0.minus(Duration.ofDays(1)), "test"));
        driver = cost.driver;
        telemetry = cost.telemetry;
        usage = cost.usage;
        rollups = cost.rollups;
        deadLetters = cost.telemetryDeadLetters;
    }

    @AfterEach
    void stopDriver() {
        cost.close();
    }

    @Test
    void shouldWriteAGpusOpenWindowToItsChangelogAsEachSampleChangesIt() {
        // Given three 10-second samples of one GPU in its first minute, each committed apart
        // (the second and third change the GPU's state in place)
        tenSecondSamples("GPU-1", 0, 30);

        // Then the GPU's state last written to its changelog, as a restore reads it back, holds
        // the open window with all three: 3 x 10 s = 30 GPU seconds
        GpuState written = null;
        for (var record : driver.createOutputTopic("window-close-test-" + CostTopology.USAGE_STORE + "-changelog",
                new StringDeserializer(), new ByteArrayDeserializer()).readKeyValuesToList()) {
            if (record.key.equals("GPU-1")) {
                written = GpuState.CODEC.fromBytes(record.value);
            }
        }
        assertThat(written).isNotNull();
        assertThat(written.windows.get(T0.toEpochMilli()).totals.snapshot().gpuSeconds()).isEqualTo(30.0);
    }

    @Test
    void shouldCloseAWindowOnceWithItsTotalsAndTheSilenceInsideIt() {
        // Given 10-second samples of one GPU, silent from :20 to :40 of its first minute
        tenSecondSamples("GPU-1", 0, 20);
        tenSecondSamples("GPU-1", 40, 300);

        // Then the first minute closed once, when the samples passed its end plus grace
        List<GpuUsage> first = closedWindows("GPU-1", T0);
        assertThat(first).hasSize(1);
        GpuUsage window = first.get(0);
        assertThat(window.secondsObserved()).isEqualTo(40.0);
        assertThat(window.cost()).isCloseTo(40 * GPU_PER_HOUR / 3600, within(1e-12));
        assertThat(window.totals().unmonitoredSeconds()).isEqualTo(20.0);
        // And the minutes after it, fully covered, had no silence
        assertThat(closedWindows("GPU-1", T0.plusSeconds(60)).get(0).totals().unmonitoredSeconds()).isZero();
        // And the job's minute carries the same silence
        assertThat(latestRollup("job|train|" + T0 + "|PT1M").totals().unmonitoredSeconds()).isEqualTo(20.0);
    }

    @Test
    void shouldCountWholeSilentMinutesInWindowsOfTheirOwn() {
        // Given a GPU that reports for a minute, falls silent for two, and comes back
        tenSecondSamples("GPU-1", 0, 60);
        tenSecondSamples("GPU-1", 180, 480);

        // Then each silent minute closed as a window of no samples and 60 unmonitored seconds
        for (int minute = 1; minute <= 2; minute++) {
            GpuUsage silent = closedWindows("GPU-1", T0.plusSeconds(60L * minute)).get(0);
            assertThat(silent.samples()).isZero();
            assertThat(silent.secondsObserved()).isZero();
            assertThat(silent.totals().unmonitoredSeconds()).isEqualTo(60.0);
            assertThat(silent.jobId()).isEqualTo("train");
        }
        assertThat(closedWindows("GPU-1", T0).get(0).totals().unmonitoredSeconds()).isZero();
        assertThat(closedWindows("GPU-1", T0.plusSeconds(180)).get(0).totals().unmonitoredSeconds()).isZero();
        // And the pool's hour holds the silence once
        assertThat(latestRollup("pool|aws|us-east-1|p4d.24xlarge|on-demand|" + T0 + "|PT1H").totals()
                .unmonitoredSeconds()).isEqualTo(120.0);
    }

    @Test
    void shouldTakeAGpuSilentForLongerThanTheMaximumGapToHaveStopped() {
        // Given GPU-1 reports for a minute, then nothing for 20 minutes, while GPU-2 keeps time
        tenSecondSamples("GPU-1", 0, 60);
        tenSecondSamples("GPU-2", 0, 1200);
        tenSecondSamples("GPU-1", 1200, 1500);
        tenSecondSamples("GPU-2", 1200, 1500);

        // Then none of GPU-1's silence counts as unmonitored, and its silent minutes have no windows
        assertThat(closed).filteredOn(window -> window.gpuUuid().equals("GPU-1"))
                .allSatisfy(window -> assertThat(window.totals().unmonitoredSeconds()).isZero())
                .noneMatch(window -> window.samples() == 0);
        assertThat(closedWindows("GPU-1", T0.plusSeconds(600))).isEmpty();
    }

    @Test
    void shouldSettleSamplesThatArriveOutOfOrderWithoutCountingAnythingTwice() {
        // Given samples of the first minute, one of them arriving after those of the next minute
        send(sample("GPU-1", 10, 10));
        send(sample("GPU-1", 60, 30));
        send(sample("GPU-1", 70, 10));
        send(sample("GPU-1", 30, 20));
        tenSecondSamples("GPU-1", 70, 300);

        // Then the window holds each sample once and no gap
        GpuUsage window = closedWindows("GPU-1", T0).get(0);
        assertThat(window.samples()).isEqualTo(3);
        assertThat(window.secondsObserved()).isEqualTo(60.0);
        assertThat(window.totals().unmonitoredSeconds()).isZero();
    }

    @Test
    void shouldCountNoGapBetweenSamplesThatStraddleMinutes() {
        // Given 10-second samples ending at :05, :15, ... each straddling a minute boundary in turn
        for (int end = 5; end <= 365; end += 10) {
            send(sample("GPU-1", end, 10));
        }

        assertThat(closed).isNotEmpty().allSatisfy(window ->
                assertThat(window.totals().unmonitoredSeconds()).as("window at " + window.windowStart()).isZero());
    }

    @Test
    void shouldRefuseASampleForAClosedWindowOrFromTheFutureAndKeepGoing() {
        tenSecondSamples("GPU-1", 0, 240);

        // When a sample of the first minute arrives after it closed, and one dated a day ahead
        send(sample("GPU-1", 30, 10));
        telemetry.pipeInput(new TestRecord<>("GPU-1", Json.write(sample("GPU-1", 86_400, 10)), T0));
        tenSecondSamples("GPU-1", 240, 300);

        // Then both went to the dead-letter topic with their reason, and nothing else changed
        List<TestRecord<String, byte[]>> refused = deadLetters.readRecordsToList();
        assertThat(refused).hasSize(2);
        assertThat(DeadLetters.header(refused.get(0).headers(), DeadLetters.REASON)).startsWith("time: late:");
        assertThat(DeadLetters.header(refused.get(1).headers(), DeadLetters.REASON))
                .startsWith("time: from the future:");
        assertThat(closedWindows("GPU-1", T0).get(0).samples()).isEqualTo(6);
        assertThat(closedWindows("GPU-1", T0.plusSeconds(60))).hasSize(1);
    }

    @Test
    void shouldLetGoOfGpusAndRollUpsLongGone() {
        // Given two hours and a half of one GPU, then only another, in minute samples
        samples("GPU-1", 0, 9000, 60);
        samples("GPU-2", 9000, 9000 + 1800 + 1200, 60);

        // Then the first GPU, its job's old minutes and its finished hours are no longer held
        LiveStore<?> gpus = (LiveStore<?>) driver.getStateStore(CostTopology.USAGE_STORE);
        assertThat(gpus.entries()).containsOnlyKeys("GPU-2");
        assertThat(((LiveStore<?>) driver.getStateStore(CostTopology.IDENTITY_STORE)).entries())
                .containsOnlyKeys("GPU-2");
        assertThat(((LiveStore<?>) driver.getStateStore(CostTopology.RECENT_STORE)).entries())
                .containsOnlyKeys("GPU-2");
        LiveStore<?> rollupStore = (LiveStore<?>) driver.getStateStore(CostTopology.ROLLUP_STORE);
        assertThat(rollupStore.entries()).doesNotContainKey("job|train-1");
        RollupState job = (RollupState) rollupStore.entries().get("job|train-2");
        assertThat(job.minutes.size()).isLessThanOrEqualTo(RollupWindows.ROLLING_MINUTES + 2 + 10 + 2);
        assertThat(job.hours.size()).isLessThanOrEqualTo(2);
        // And the minutes' own store holds those of the job still held, no more
        LiveStore<?> minuteStore = (LiveStore<?>) driver.getStateStore(CostTopology.ROLLUP_MINUTES_STORE);
        assertThat(minuteStore.entries().keySet()).noneMatch(key -> key.startsWith("job|train-1@"))
                .filteredOn(key -> key.startsWith("job|train-2@")).hasSize(job.minutes.size());
    }

    @Test
    void shouldSendEachGpusOwnRollingFiveMinutesAndHourOnceTheirMinutesClose() {
        // Given 10-second samples of one GPU for an hour and ten minutes
        tenSecondSamples("GPU-1", 0, 4200);

        // Then each closed minute came with the GPU's rolling five minutes that end with it, once
        List<UsageRollup> views = gpuViews("GPU-1");
        List<UsageRollup> rolling = views.stream()
                .filter(view -> Duration.between(view.windowStart(), view.windowEnd()).equals(Duration.ofMinutes(5)))
                .toList();
        assertThat(rolling).extracting(UsageRollup::windowEnd).doesNotHaveDuplicates();
        UsageRollup first = only(rolling, T0.minus(Duration.ofMinutes(4)));
        assertThat(first.totals().gpuSeconds()).isEqualTo(60.0);
        UsageRollup tenth = only(rolling, T0.plus(Duration.ofMinutes(5)));
        assertThat(tenth.totals().gpuSeconds()).isEqualTo(300.0);
        assertThat(tenth.totals().cost()).isCloseTo(300 * GPU_PER_HOUR / 3600, within(1e-12));
        assertThat(tenth.totals().samples()).isEqualTo(30);
        assertThat(tenth.gpus()).isEqualTo(1);
        assertThat(tenth.key()).isEqualTo("gpu|GPU-1");
        assertThat(tenth.dimension()).isEqualTo(UsageRollup.Dimension.GPU);
        // And its first hour once, complete: an hour of a GPU at 4 USD/h
        List<UsageRollup> hours = views.stream()
                .filter(view -> Duration.between(view.windowStart(), view.windowEnd()).equals(Duration.ofHours(1)))
                .toList();
        assertThat(hours).hasSize(1);
        assertThat(hours.get(0).windowStart()).isEqualTo(T0);
        assertThat(hours.get(0).totals().gpuSeconds()).isEqualTo(3600.0);
        assertThat(hours.get(0).totals().cost()).isCloseTo(GPU_PER_HOUR, within(1e-9));
        assertThat(hours.get(0).totals().unmonitoredSeconds()).isZero();
    }

    @Test
    void shouldSendTheHourOfAGpuThatFellSilentBeforeItsEnd() {
        // Given a GPU that reported for the first 20 minutes of an hour, then only another GPU, for two hours
        tenSecondSamples("GPU-1", 0, 1200);
        samples("GPU-2", 1200, 7200, 60);

        // Then the silent GPU's hour went out once, with what it reported
        List<UsageRollup> hours = gpuViews("GPU-1").stream()
                .filter(view -> Duration.between(view.windowStart(), view.windowEnd()).equals(Duration.ofHours(1)))
                .toList();
        assertThat(hours).hasSize(1);
        assertThat(hours.get(0).windowStart()).isEqualTo(T0);
        assertThat(hours.get(0).totals().gpuSeconds()).isEqualTo(1200.0);
        assertThat(hours.get(0).totals().cost()).isCloseTo(1200 * GPU_PER_HOUR / 3600, within(1e-12));
        // And nothing of it is held any more
        LiveStore<?> views = (LiveStore<?>) driver.getStateStore(CostTopology.RECENT_STORE);
        assertThat(views.entries()).doesNotContainKey("GPU-1").containsKey("GPU-2");
    }

    @Test
    void shouldSendTheHourOfAGpuBackWithinTheMaximumGapOnceWithTheGapInIt() {
        // Given a GPU that reported for the first 50 minutes of an hour, then nothing while another GPU reported
        // into the next hour, and back 13 min 50 s later (within the 15-minute maximum gap: unmonitored time)
        tenSecondSamples("GPU-1", 0, 3000);
        samples("GPU-2", 3000, 3830, 10);
        tenSecondSamples("GPU-1", 3830, 4200);
        samples("GPU-2", 3830, 7200, 60);

        // Then its hour went out once, with what it reported and the 10 minutes of the gap that lie in it: not
        // first without the gap and then again with the gap alone, which finance takes for a correction of the
        // whole hour to the gap
        List<UsageRollup> hours = gpuViews("GPU-1").stream()
                .filter(view -> Duration.between(view.windowStart(), view.windowEnd()).equals(Duration.ofHours(1))
                        && view.windowStart().equals(T0))
                .toList();
        assertThat(hours).hasSize(1);
        assertThat(hours.get(0).totals().gpuSeconds()).isEqualTo(3000.0);
        assertThat(hours.get(0).totals().unmonitoredSeconds()).isEqualTo(600.0);
    }

    @Test
    void shouldHoldBackUpdatesOfReplayedWindowsUntilTheBacklogIsWorkedOff() {
        // Given a backlog: samples of a day ago, worked off while the wall clock shows now
        Instant dayAgo = T0.minus(Duration.ofDays(1));
        replay(dayAgo);

        // Then only closed windows and the roll-ups of complete minutes came out while samples kept coming
        List<GpuUsage> duringBacklog = usage.readValuesToList();
        assertThat(duringBacklog).isNotEmpty().allMatch(GpuUsage::closed);
        List<UsageRollup> rollupsDuringBacklog = rollups.readValuesToList();
        assertThat(rollupsDuringBacklog).isNotEmpty().allSatisfy(rollup ->
                assertThat(rollup.windowEnd().plus(GRACE)).isBefore(dayAgo.plusSeconds(300)));

        // When no sample comes for an update interval
        advance(CostSettings.DEFAULT_UPDATE_INTERVAL);
        advance(CostSettings.DEFAULT_UPDATE_INTERVAL);

        // Then the windows still open (the newest and those within grace) and their roll-ups are sent as they stand
        List<GpuUsage> afterBacklog = usage.readValuesToList();
        assertThat(afterBacklog).extracting(GpuUsage::windowStart).containsExactly(dayAgo.plusSeconds(120),
                dayAgo.plusSeconds(180), dayAgo.plusSeconds(240));
        assertThat(afterBacklog).allSatisfy(window -> {
            assertThat(window.closed()).isFalse();
            assertThat(window.samples()).isEqualTo(6);
        });
        assertHoldsTheNewestJobMinute(rollups.readValuesToList(), dayAgo);
    }

    @Test
    void shouldTakeTheRollupBacklogAsWorkedOffOnlyAfterACommitIntervalWithoutPartials() {
        // Given an engine that commits at least every 5 s while behind: partials may come 5 s apart
        cost.close();
        CostSettings settings = CostSettings.of(GRACE, CurrencyRates.shipped("USD"))
                .committingEvery(Duration.ofSeconds(5));
        assertThat(settings.quietUpdates()).isEqualTo(4);
        cost = new CostDriver("window-close-quiet-test", T0, settings);
        driver = cost.driver;
        rollups = cost.rollups;
        Instant dayAgo = T0.minus(Duration.ofDays(1));
        replay(dayAgo);
        rollups.readValuesToList();

        // When no partial comes for three updates after the replay's last (6 s): not yet a commit
        // interval and an update
        for (int update = 0; update < 3; update++) {
            advance(CostSettings.DEFAULT_UPDATE_INTERVAL);
        }

        // Then the newest minute's roll-ups are still held back
        assertThat(rollups.readValuesToList()).noneMatch(rollup -> rollup.windowStart().equals(
                dayAgo.plusSeconds(240)));

        // And after the fourth quiet update they are sent as they stand
        advance(CostSettings.DEFAULT_UPDATE_INTERVAL);
        assertHoldsTheNewestJobMinute(rollups.readValuesToList(), dayAgo);
    }

    @Test
    void shouldCountQuietUpdatesFromTheLongestCommitInterval() {
        CostSettings settings = CostSettings.of(GRACE, CurrencyRates.shipped("USD"));
        assertThat(settings.quietUpdates()).isEqualTo(1);
        assertThat(settings.committingEvery(Duration.ofMillis(200)).quietUpdates()).isEqualTo(2);
        assertThat(settings.committingEvery(Duration.ofSeconds(1)).quietUpdates()).isEqualTo(2);
        assertThat(settings.committingEvery(Duration.ofSeconds(6)).quietUpdates()).isEqualTo(4);
    }

    @Test
    void shouldAskForABacklogCommitAnUpdateBeforeTheLongestCommitIntervalWouldPass() {
        CostSettings settings = CostSettings.of(GRACE, CurrencyRates.shipped("USD"));
        assertThat(settings.backlogCommitUpdates()).isEqualTo(1);
        assertThat(settings.committingEvery(Duration.ofMillis(200)).backlogCommitUpdates()).isEqualTo(1);
        assertThat(settings.committingEvery(Duration.ofSeconds(5)).backlogCommitUpdates()).isEqualTo(1);
        assertThat(settings.committingEvery(Duration.ofSeconds(8)).backlogCommitUpdates()).isEqualTo(3);
        assertThat(settings.committingEvery(Duration.ofMinutes(2)).backlogCommitUpdates()).isEqualTo(59);
    }

    /** A backlog: five minutes of GPU-1's samples from {@code dayAgo}, worked off while the wall clock shows now. */
    private void replay(Instant dayAgo) {
        advance(Duration.ofSeconds(1));
        for (int end = 10; end <= 300; end += 10) {
            TelemetrySample sample = sample("GPU-1", end, 10).toBuilder().time(dayAgo.plusSeconds(end)).build();
            cost.telemetry.pipeInput(new TestRecord<>("GPU-1", Json.write(sample), sample.time()));
            advance(CostSettings.DEFAULT_UPDATE_INTERVAL);
        }
    }

    /** The job's newest minute of the backlog ({@link #replay}) is among {@code sent}, as it stands. */
    private static void assertHoldsTheNewestJobMinute(List<UsageRollup> sent, Instant dayAgo) {
        assertThat(sent).anySatisfy(rollup -> {
            assertThat(rollup.key()).isEqualTo("job|train");
            assertThat(rollup.windowStart()).isEqualTo(dayAgo.plusSeconds(240));
            assertThat(rollup.totals().samples()).isEqualTo(6);
        });
    }

    /** Samples of {@code gpu} covering {@code [fromSecond, toSecond)} after T0, ten seconds each. */
    @Test
    void shouldSendTheLiveWindowsAheadOfAMinutesClosing() {
        // Given two GPUs followed live for three minutes, a sample every 10 s, the wall clock with them
        for (int end = 10; end <= 170; end += 10) {
            send(sample("GPU-1", end, 10));
            send(sample("GPU-2", end, 10));
        }
        advance(Duration.between(wallClock, T0.plusSeconds(180)));

        // When GPU-2's sample ending at 3:00 changes its live minute (2:00-3:00), and before the next
        // update GPU-1's sample of 3:00-3:10 takes the engine's time to 3:05, past the first
        // minute's end plus grace (1:00 + 2:00), which closes that minute for both GPUs
        telemetry.pipeInput(new TestRecord<>("GPU-2", Json.write(sample("GPU-2", 180, 10)), T0.plusSeconds(180)));
        telemetry.pipeInput(new TestRecord<>("GPU-1", Json.write(sample("GPU-1", 190, 10)), T0.plusSeconds(190)));
        advance(CostSettings.DEFAULT_UPDATE_INTERVAL);
        advance(CostSettings.DEFAULT_UPDATE_INTERVAL);

        // Then GPU-2's live minute, with all six of its samples (60 s), went out ahead of the closed
        // windows: a reader shows it without first working through the minute's closing
        List<GpuUsage> sent = usage.readValuesToList();
        int live = indexOf(sent, u -> u.gpuUuid().equals("GPU-2") && !u.closed()
                && u.windowStart().equals(T0.plusSeconds(120)) && u.secondsObserved() == 60.0);
        int firstClosed = indexOf(sent, GpuUsage::closed);
        assertThat(firstClosed).as("the first minute closed").isNotNegative();
        assertThat(sent.get(firstClosed).windowStart()).isEqualTo(T0);
        assertThat(live).as("GPU-2's live minute").isNotNegative().isLessThan(firstClosed);
    }

    private static int indexOf(List<GpuUsage> updates, Predicate<GpuUsage> which) {
        for (int i = 0; i < updates.size(); i++) {
            if (which.test(updates.get(i))) {
                return i;
            }
        }
        return -1;
    }

    private void tenSecondSamples(String gpu, int fromSecond, int toSecond) {
        samples(gpu, fromSecond, toSecond, 10);
    }

    private void samples(String gpu, int fromSecond, int toSecond, int interval) {
        for (int end = fromSecond + interval; end <= toSecond; end += interval) {
            send(sample(gpu, end, interval));
        }
    }

    private void send(TelemetrySample sample) {
        // The wall clock keeps up with the samples (it is at the sample's end when the sample
        // comes), and passes two update intervals after each one: the GPU windows send their
        // partials, then the roll-ups theirs.
        Duration behind = Duration.between(wallClock, sample.time());
        if (!behind.isNegative() && !behind.isZero()) {
            advance(behind);
        }
        telemetry.pipeInput(new TestRecord<>(sample.gpuUuid(), Json.write(sample), sample.time()));
        advance(CostSettings.DEFAULT_UPDATE_INTERVAL);
        advance(CostSettings.DEFAULT_UPDATE_INTERVAL);
        for (GpuUsage update : usage.readValuesToList()) {
            if (update.closed()) {
                closed.add(update);
            }
        }
    }

    private void advance(Duration by) {
        driver.advanceWallClockTime(by);
        wallClock = wallClock.plus(by);
    }

    private List<GpuUsage> closedWindows(String gpu, Instant start) {
        return closed.stream().filter(window -> window.gpuUuid().equals(gpu) && window.windowStart().equals(start))
                .toList();
    }

    /** The GPU's own views sent so far (reads the roll-ups topic). */
    private List<UsageRollup> gpuViews(String gpu) {
        return rollups.readValuesToList().stream().filter(rollup -> rollup.key().equals("gpu|" + gpu)).toList();
    }

    private static UsageRollup only(List<UsageRollup> views, Instant start) {
        List<UsageRollup> matching = views.stream().filter(view -> view.windowStart().equals(start)).toList();
        assertThat(matching).as("views starting at %s", start).hasSize(1);
        return matching.get(0);
    }

    private UsageRollup latestRollup(String keyStartPeriod) {
        UsageRollup latest = null;
        for (UsageRollup rollup : rollups.readValuesToList()) {
            String id = rollup.key() + "|" + rollup.windowStart() + "|"
                    + Duration.between(rollup.windowStart(), rollup.windowEnd());
            if (id.equals(keyStartPeriod)) {
                latest = rollup;
            }
        }
        return latest;
    }

    private static TelemetrySample sample(String gpu, int endSecond, double interval) {
        String job = gpu.equals("GPU-1") ? "train" : "train-2";
        return TelemetrySample.builder().gpuUuid(gpu).gpuModel("A100-40GB")
                .placement(new Placement("node-a1", "i-0abc", "p4d.24xlarge", "aws", "us-east-1", Lifecycle.ON_DEMAND))
                .jobId(job).time(T0.plusSeconds(endSecond)).intervalSeconds(interval).smActive(0.5).build();
    }
}
