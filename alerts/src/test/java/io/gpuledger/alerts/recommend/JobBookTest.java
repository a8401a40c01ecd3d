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
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JobBookTest {

    private static final Instant T0 = Instant.parse("2026-11-30T09:00:00Z");

    private final JobBook book = new JobBook(GpuCatalog.defaults(), Duration.ofMinutes(5));

    @Test
    void shouldJoinAJobsPictureFromItsWindowsRollupEconomicsAndReports() {
        // Given a job on two p4d GPUs at 4.09625 USD per GPU-hour, 60% SM active, reporting 1.2M tokens a minute
        GpuUsage window = window();
        UsageRollup minute = new UsageRollup(UsageRollup.Dimension.JOB, "llm", T0, T0.plusSeconds(60), "USD", 2,
                null, window.totals().plus(window.totals()));
        JobEconomics economics = new JobEconomics("llm", T0, T0.plusSeconds(60), "USD", 2, 120, 0, 0.1365, 8.19, true,
                Map.of("tokens", 1_200_000.0), Map.of("tokens", 0.11375), Map.of("tokens", 10_000.0), 0.3, 0);
        JobProgress report = new JobProgress("llm", "research", "node-1", "i-1", List.of(), T0.plusSeconds(60), 60,
                1_200_000, "tokens", 10, 60.0, 18.0, null, new JobTraits("llama-pretrain", true, 1800.0, 3.0e10));

        // When the book hears of them, in any order
        book.onProgress(report, T0);
        book.onEconomics(economics, T0);
        book.onWindow(window, T0);
        book.onRollup(minute, T0);

        // Then its picture has its pool, catalog GPU model, spend of both GPUs, work per hour and traits
        JobView view = book.view("llm").orElseThrow();
        assertThat(view.pool()).isEqualTo(new Offer("aws", "us-east-1", "p4d.24xlarge", Lifecycle.ON_DEMAND));
        assertThat(view.gpuModel()).isEqualTo("A100-40GB");
        assertThat(view.gpus()).isEqualTo(2);
        assertThat(view.costPerHour()).isCloseTo(2 * 4.09625, within(1e-9));
        assertThat(view.smActive()).isCloseTo(0.6, within(1e-9));
        assertThat(view.unit()).isEqualTo("tokens");
        assertThat(view.workUnitsPerHour()).isCloseTo(72_000_000, within(1e-3));
        assertThat(view.costPerMillionUnits()).isCloseTo(0.11375, within(1e-12));
        assertThat(view.communicationOverheadRatio()).isEqualTo(0.3);
        assertThat(view.traits().isInterruptible()).isTrue();
        assertThat(book.views()).hasSize(1);
    }

    @Test
    void shouldPictureAJobOnMigSlicesByWhatItsSlicesSpendTogether() {
        // Given a job on seven 1g.10gb slices (a seventh each) of one A100 at 10 USD per GPU-hour: its
        // slices' windows and the minute the engine sums from them
        Placement a100 = new Placement("node-1", "i-1", "a2-highgpu-1g", "gcp", "us-central1", Lifecycle.ON_DEMAND);
        UsageTotals sum = UsageTotals.ZERO;
        for (int slice = 0; slice < 7; slice++) {
            GpuUsage window = UsageWindows.seventhSliceMinute(a100, "MIG-" + slice, "mig", "research", T0, 10.0,
                    0.6, false);
            book.onWindow(window, T0);
            sum = sum.plus(window.totals());
        }
        book.onRollup(new UsageRollup(UsageRollup.Dimension.JOB, "mig", T0, T0.plusSeconds(60), "USD", 7,
                7 * (1.0 / 7), sum), T0);

        // When its picture is taken
        JobView view = book.view("mig").orElseThrow();

        // Then it runs on 7 slices that make 7 x 1/7 = 1 GPU and spend 7 x 10 / 7 = 10 USD an hour
        assertThat(view.gpus()).isEqualTo(7);
        assertThat(view.gpuEquivalents()).isCloseTo(1.0, within(1e-9));
        assertThat(view.costPerHour()).isCloseTo(10.0, within(1e-9));
    }

    @Test
    void shouldComparePeersAsOfTenSecondsAtMost() {
        // Given a job's picture taken as the peers of another job at T0
        shouldJoinAJobsPictureFromItsWindowsRollupEconomicsAndReports();
        assertThat(book.peers(T0)).hasSize(1);

        // When the job is forgotten
        book.sweep(T0.plusSeconds(301));

        // Then the peers stay as they were for up to ten seconds, and are taken anew after
        assertThat(book.peers(T0.plusSeconds(10))).hasSize(1);
        assertThat(book.peers(T0.plusSeconds(11))).isEmpty();
    }

    @Test
    void shouldHaveNoPictureWithoutAPricedMinuteAndForgetSilentJobs() {
        book.onWindow(window(), T0);
        assertThat(book.view("llm")).isEmpty();

        assertThat(book.sweep(T0.plusSeconds(301))).containsExactly("llm");
        assertThat(book.views()).isEmpty();
    }

    private static GpuUsage window() {
        TelemetrySample sample = TelemetrySample.builder().gpuUuid("GPU-1").gpuModel("NVIDIA A100-SXM4-40GB")
                .placement(new Placement("node-1", "i-1", "p4d.24xlarge", "aws", "us-east-1", Lifecycle.ON_DEMAND))
                .jobId("llm").team("research").time(T0.plusSeconds(60)).intervalSeconds(60).smActive(0.6).build();
        return GpuUsage.empty(sample, T0, T0.plusSeconds(60), "USD").add(sample, 4.09625);
    }
}
