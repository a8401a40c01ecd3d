package io.gpuledger.alerts.recommend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gpuledger.alerts.UsageWindows;
import io.gpuledger.model.GpuUsage;
import io.gpuledger.model.JobEconomics;
import io.gpuledger.model.JobProgress;
import io.gpuledger.model.JobTraits;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Offer;
import io.gpuledger.model.Placement;
import io.gpuledger.model.TelemetrySample;
import io.gpuledger.model.UsageRollup;
import io.gpuledger.model.UsageTotals;
import io.gpuledger.model.WorkTotals;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JobBookTest {

    private static final Instant T0 = Instant.parse("2026-11-30T09:00:00Z");
    private static final Duration ONE_MINUTE = Duration.ofMinutes(1);

    private final JobBook book = new JobBook(GpuCatalog.defaults(), Duration.ofMinutes(5), Duration.ofMinutes(10),
            Duration.ofHours(24), 100);

    @Test
    void shouldJoinAJobsPictureFromItsWindowsRollupEconomicsAndReportsOnceItsMinuteIsFinal() {
        // Given a job on two p4d GPUs at 4.09625 USD per GPU-hour, 60% SM active, reporting 1.2M tokens a
        // minute at an overhead of 0.3, heard of in any order
        book.onProgress(new JobProgress("llm", "research", "node-1", "i-1", List.of(), T0.plusSeconds(60), 60,
                1_200_000, "tokens", 10, 60.0, 18.0, null, new JobTraits("llama-pretrain", true, 1800.0, 3.0e10)), T0);
        sendMinute("llm", 0, 1_200_000, 0.3);
        book.onWindow(window(0), T0);

        // When the minute is not final yet, there is no picture; once a minute two later has come, there is
        assertThat(book.view("llm", ONE_MINUTE)).isEmpty();
        sendMinute("llm", 1, 1_200_000, 0.3);
        assertThat(book.view("llm", ONE_MINUTE)).isEmpty();
        assertThat(sendMinute("llm", 2, 1_200_000, 0.3)).isTrue();

        // Then its picture of that minute has its pool, catalog GPU model, spend of both GPUs, work per hour
        // (1.2M x 60 = 72M) and traits; its cost per million is 2 x 4.09625 / 60 / 1.2 = 0.11378 USD
        JobView view = book.view("llm", ONE_MINUTE).orElseThrow();
        assertThat(view.pool()).isEqualTo(new Offer("aws", "us-east-1", "p4d.24xlarge", Lifecycle.ON_DEMAND));
        assertThat(view.gpuModel()).isEqualTo("A100-40GB");
        assertThat(view.gpus()).isEqualTo(2);
        assertThat(view.costPerHour()).isCloseTo(2 * 4.09625, within(1e-9));
        assertThat(view.smActive()).isCloseTo(0.6, within(1e-9));
        assertThat(view.unit()).isEqualTo("tokens");
        assertThat(view.workUnitsPerHour()).isCloseTo(72_000_000, within(1e-3));
        assertThat(view.costPerMillionUnits()).isCloseTo(2 * 4.09625 / 60 / 1.2, within(1e-12));
        assertThat(view.communicationOverheadRatio()).isCloseTo(0.3, within(1e-12));
        assertThat(view.traits().isInterruptible()).isTrue();
        assertThat(view.windowEnd()).isEqualTo(T0.plusSeconds(60));
        assertThat(book.views(ONE_MINUTE)).hasSize(1);
    }

    @Test
    void shouldKeepNoJobNamedSharedForASharedGpusWindow() {
        // Given the window of a GPU several jobs share (their shares are in their own roll-ups), and one of job llm
        book.onWindow(window(0, TelemetrySample.SHARED_JOB), T0);
        book.onWindow(window(0), T0);

        // Then the book followed llm alone: it forgets llm once it is stale, and never had a job named "shared"
        assertThat(book.sweep(T0.plus(Duration.ofMinutes(10)))).containsExactly("llm");
    }

    @Test
    void shouldTakeAMinuteInItsLastVersionAndNotJudgeTheResendsOfAnOpenOne() {
        // Given a minute re-sent as it filled: a quarter, half, then all of its 1.2M tokens
        book.onWindow(window(0), T0);
        for (double fill : new double[] {0.25, 0.5, 1.0}) {
            assertThat(book.onEconomics(economics("llm", 0, 1_200_000 * fill, fill, 0.3), T0)).isFalse();
        }
        sendMinute("llm", 1, 1_200_000, 0.3);

        // When a quarter of the minute two later comes, it makes the first final
        assertThat(book.onEconomics(economics("llm", 2, 300_000, 0.25, 0.3), T0)).isTrue();
        // and its further re-sends make nothing more final
        assertThat(book.onEconomics(economics("llm", 2, 600_000, 0.5, 0.3), T0)).isFalse();

        // Then the picture is of the whole first minute: 1.2M tokens, 72M an hour
        assertThat(book.view("llm", ONE_MINUTE).orElseThrow().workUnitsPerHour()).isCloseTo(72_000_000, within(1e-3));
    }

    @Test
    void shouldSumCostsAndUnitsOverThePeriodCountingMinutesWithoutRecordsAsNothing() {
        // Given minutes 0 and 2 of a job on two p4d GPUs (0.13654 USD each), with 1M then 3M tokens and
        // overheads 0.2 then 0.4, and no record of minute 1
        book.onWindow(window(0), T0);
        sendMinute("llm", 0, 1_000_000, 0.2);
        sendMinute("llm", 2, 3_000_000, 0.4);
        sendMinute("llm", 4, 1, 0.3);

        // When it is pictured over the three minutes 0 to 2
        JobView view = book.view("llm", Duration.ofMinutes(3)).orElseThrow();

        // Then its cost per million is the sum of costs over the sum of units, 2 x 0.13654 / 4 = 0.06827,
        // not the mean of its minutes' (0.13654 + 0.04551) / 2 = 0.09103
        double minuteCost = 2 * 4.09625 / 60;
        assertThat(view.costPerMillionUnits()).isCloseTo(2 * minuteCost / 4, within(1e-12));
        // and its rates are per hour of the three minutes: 4M tokens x 20 = 80M an hour, 2 of 3 minutes on
        // 2 GPUs = 4/3 GPUs and 2/3 of 8.1925 = 5.46167 USD an hour
        assertThat(view.workUnitsPerHour()).isCloseTo(80_000_000, within(1e-3));
        assertThat(view.gpuEquivalents()).isCloseTo(4.0 / 3, within(1e-12));
        assertThat(view.costPerHour()).isCloseTo(2 * 4.09625 * 2 / 3, within(1e-12));
        assertThat(view.gpus()).isEqualTo(2);
        // and its overhead is weighted by GPU time: (0.2 + 0.4) / 2 = 0.3
        assertThat(view.communicationOverheadRatio()).isCloseTo(0.3, within(1e-12));
        assertThat(view.windowEnd()).isEqualTo(T0.plusSeconds(180));

        // And it has no picture over a period longer than it was followed
        assertThat(book.view("llm", Duration.ofMinutes(4))).isEmpty();
    }

    @Test
    void shouldFollowAJobThatComesBackAfterItWasForgottenFromItsReturn() {
        // Given a job's minutes 0 to 9, 1M tokens each, then nothing: it is forgotten, its minutes 8 and
        // 9 not final yet (no minute two newer came)
        book.onWindow(window(0), T0);
        for (int m = 0; m < 10; m++) {
            sendMinute("llm", m, 1_000_000, 0.3);
        }
        assertThat(book.sweep(T0.plusSeconds(301))).containsExactly("llm");

        // When it comes back at minute 600, and its minute 600 is made final (and with it 8 and 9)
        book.onWindow(window(600), T0);
        for (int m = 600; m < 603; m++) {
            sendMinute("llm", m, 1_000_000, 0.3);
        }

        // Then it has no picture over three minutes: it has been followed since minute 600 only, not
        // since the minutes of before that came late
        assertThat(book.view("llm", Duration.ofMinutes(3))).isEmpty();

        // When minutes 601 and 602 are final too
        sendMinute("llm", 603, 1_000_000, 0.3);
        sendMinute("llm", 604, 1_000_000, 0.3);

        // Then its picture is of minutes 600 to 602: 3M tokens in 3 minutes, 60M an hour
        JobView view = book.view("llm", Duration.ofMinutes(3)).orElseThrow();
        assertThat(view.workUnitsPerHour()).isCloseTo(60_000_000, within(1e-3));
        assertThat(view.windowEnd()).isEqualTo(T0.plus(Duration.ofMinutes(603)));
    }

    @Test
    void shouldPictureAJobOnMigSlicesByWhatItsSlicesSpendTogether() {
        // Given a job on seven 1g.10gb slices (a seventh each) of one A100 at 10 USD per GPU-hour: its
        // slices' windows and the minute the engine sums from them
        Placement a100 = new Placement("node-1", "i-1", "a2-highgpu-1g", "gcp", "us-central1", Lifecycle.ON_DEMAND);
        for (int m = 0; m < 3; m++) {
            Instant start = T0.plusSeconds(60L * m);
            UsageTotals sum = UsageTotals.ZERO;
            for (int slice = 0; slice < 7; slice++) {
                GpuUsage window = UsageWindows.seventhSliceMinute(a100, "MIG-" + slice, "mig", "research", start,
                        10.0, 0.6, false);
                book.onWindow(window, T0);
                sum = sum.plus(window.totals());
            }
            UsageRollup rollup = new UsageRollup(UsageRollup.Dimension.JOB, "mig", start, start.plusSeconds(60),
                    "USD", 7, 7 * (1.0 / 7), sum);
            book.onRollup(rollup, T0);
            book.onEconomics(JobEconomics.of(rollup, WorkTotals.NONE), T0);
        }

        // When its picture is taken
        JobView view = book.view("mig", ONE_MINUTE).orElseThrow();

        // Then it runs on 7 slices that make 7 x 1/7 = 1 GPU and spend 7 x 10 / 7 = 10 USD an hour
        assertThat(view.gpus()).isEqualTo(7);
        assertThat(view.gpuEquivalents()).isCloseTo(1.0, within(1e-9));
        assertThat(view.costPerHour()).isCloseTo(10.0, within(1e-9));
        assertThat(view.reportsThroughput()).isFalse();
    }

    @Test
    void shouldComparePeersAsOfTenSecondsAtMost() {
        // Given a job's picture taken as the peers of another job at T0
        shouldJoinAJobsPictureFromItsWindowsRollupEconomicsAndReportsOnceItsMinuteIsFinal();
        assertThat(book.peers(T0, ONE_MINUTE)).hasSize(1);

        // When the job is forgotten
        book.sweep(T0.plusSeconds(301));

        // Then the peers stay as they were for up to ten seconds, and are taken anew after
        assertThat(book.peers(T0.plusSeconds(10), ONE_MINUTE)).hasSize(1);
        assertThat(book.peers(T0.plusSeconds(11), ONE_MINUTE)).isEmpty();
    }

    @Test
    void shouldHaveNoPictureWithoutAFinalMinuteAndForgetSilentJobs() {
        book.onWindow(window(0), T0);
        assertThat(book.view("llm", ONE_MINUTE)).isEmpty();

        assertThat(book.sweep(T0.plusSeconds(301))).containsExactly("llm");
        assertThat(book.views(ONE_MINUTE)).isEmpty();
    }

    /** The whole minute {@code m} of "llm" on its two GPUs: roll-up and economics; whether it made one final. */
    private boolean sendMinute(String job, int m, double units, double overhead) {
        book.onRollup(rollup(job, m, 1.0), T0);
        return book.onEconomics(economics(job, m, units, 1.0, overhead), T0);
    }

    /** The roll-up of minute {@code m} of two p4d GPUs at 60% SM activity once {@code fill} of it has come. */
    private static UsageRollup rollup(String job, int m, double fill) {
        Instant start = T0.plusSeconds(60L * m);
        TelemetrySample sample = TelemetrySample.builder().gpuUuid("GPU-1").gpuModel("NVIDIA A100-SXM4-40GB")
                .placement(new Placement("node-1", "i-1", "p4d.24xlarge", "aws", "us-east-1", Lifecycle.ON_DEMAND))
                .jobId(job).team("research").time(start.plusMillis(Math.round(60_000 * fill)))
                .intervalSeconds(60 * fill).smActive(0.6).build();
        UsageTotals one = GpuUsage.empty(sample, start, start.plusSeconds(60), "USD").add(sample, 4.09625).totals();
        return new UsageRollup(UsageRollup.Dimension.JOB, job, start, start.plusSeconds(60), "USD", 2, 2.0,
                one.plus(one));
    }

    /** The economics of minute {@code m} once {@code fill} of it has come, with {@code units} tokens so far. */
    private static JobEconomics economics(String job, int m, double units, double fill, double overhead) {
        return JobEconomics.of(rollup(job, m, fill),
                new WorkTotals(1, Map.of("tokens", units), 1, 1, overhead, 0));
    }

    private static GpuUsage window(int m) {
        return window(m, "llm");
    }

    private static GpuUsage window(int m, String job) {
        Instant start = T0.plusSeconds(60L * m);
        TelemetrySample sample = TelemetrySample.builder().gpuUuid("GPU-1").gpuModel("NVIDIA A100-SXM4-40GB")
                .placement(new Placement("node-1", "i-1", "p4d.24xlarge", "aws", "us-east-1", Lifecycle.ON_DEMAND))
                .jobId(job).team("research").time(start.plusSeconds(60)).intervalSeconds(60).smActive(0.6).build();
        return GpuUsage.empty(sample, start, start.plusSeconds(60), "USD").add(sample, 4.09625);
    }
}
