package io.gpuledger.alerts.anomaly;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gpuledger.alerts.UsageWindows;
import io.gpuledger.model.AnomalyKind;
import io.gpuledger.model.CapacityEvent;
import io.gpuledger.model.CapacityEventKind;
import io.gpuledger.model.CostAnomaly;
import io.gpuledger.model.GpuUsage;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Placement;
import io.micrometer.prometheus.PrometheusConfig;
import io.micrometer.prometheus.PrometheusMeterRegistry;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A GPU silent beyond the engine's horizon, with no notice that its instance stopped, is shown and raised. */
class DarkGpusTest {

    private static final Instant T0 = Instant.parse("2026-11-30T09:00:00Z");
    private static final Placement NODE_1 = new Placement("node-1", "i-1", "g5.xlarge", "aws", "us-east-1",
            Lifecycle.ON_DEMAND);
    private static final Placement NODE_2 = new Placement("node-2", "i-2", "g5.xlarge", "aws", "us-east-1",
            Lifecycle.ON_DEMAND);
    private static final String DARK = "gpuledger_gpus_dark{instance_type=\"g5.xlarge\",lifecycle=\"on-demand\","
            + "provider=\"aws\",region=\"us-east-1\",}";

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final DarkGpus dark = new DarkGpus(registry, DarkGpus.HORIZON, DarkGpus.FORGET_AFTER);
    private final List<CostAnomaly> found = new ArrayList<>();

    @Test
    void shouldShowAndRaiseAGpuDarkBeyondTheHorizonUntilItsInstanceIsSaidToStop() {
        // Given GPU-1 (8 USD/h) reporting for two minutes, then silent, while GPU-2 goes on reporting
        minutes(NODE_1, "GPU-1", 0, 2);
        minutes(NODE_2, "GPU-2", 0, 17);

        // Then at minute 17 GPU-1 is 15 minutes silent (last window ended at minute 2): not dark yet
        assertThat(scrape()).doesNotContain(DARK + " 1.0");
        assertThat(found).isEmpty();

        // When GPU-2's window of minute 17 ends at minute 18, 16 minutes after GPU-1's last
        minutes(NODE_2, "GPU-2", 17, 25);

        // Then GPU-1, and only it, is dark in its pool, and raised once, with what it would spend an hour
        assertThat(scrape()).contains(DARK + " 1.0");
        assertThat(dark.dark()).isEqualTo(1);
        assertThat(found).hasSize(1);
        CostAnomaly anomaly = found.get(0);
        assertThat(anomaly.kind()).isEqualTo(AnomalyKind.GPU_DARK);
        assertThat(anomaly.subject()).isEqualTo("GPU-1");
        assertThat(anomaly.windowStart()).isEqualTo(T0.plusSeconds(120));
        // a 60-second window charged at 8 USD/h: 60 × 8/3600 USD, spent at 8 USD an hour of wall time
        assertThat(anomaly.actual()).isCloseTo(8.0, within(1e-9));
        assertThat(anomaly.summary()).contains("GPU-1", "i-1");

        // When a notice says i-1 is taken back
        dark.onNotice(notice(T0.plusSeconds(1500)));
        minutes(NODE_2, "GPU-2", 25, 30);

        // Then no GPU of the pool is dark any more, and nothing more is raised
        assertThat(scrape()).contains(DARK + " 0.0");
        assertThat(found).hasSize(1);
    }

    @Test
    void shouldTakeAGpuThatReportsAgainAsNoLongerDark() {
        minutes(NODE_1, "GPU-1", 0, 1);
        minutes(NODE_2, "GPU-2", 0, 20);
        assertThat(dark.dark()).isEqualTo(1);

        // When GPU-1 reports again
        minutes(NODE_1, "GPU-1", 20, 21);

        assertThat(dark.dark()).isZero();
        assertThat(scrape()).contains(DARK + " 0.0");
    }

    @Test
    void shouldNotTakeAGpuThatReportedUntilItsInstancesDeadlineAsDark() {
        // Given a spot notice for i-1 at minute 1, and GPU-1 reporting up to its deadline, minute 3
        dark.onNotice(notice(T0.plusSeconds(60)));
        minutes(NODE_1, "GPU-1", 0, 3);

        // When GPU-2 goes on reporting for half an hour
        minutes(NODE_2, "GPU-2", 0, 30);

        // Then GPU-1's silence is explained: not dark, nothing raised
        assertThat(dark.dark()).isZero();
        assertThat(found).isEmpty();
    }

    @Test
    void shouldTakeAGpuOfAnInstanceStartedAgainAfterItsNoticeAsDarkWhenItFallsSilent() {
        // Given a notice for i-1 at minute 0, and GPU-1 reporting again from minute 40 to 42, then silent
        dark.onNotice(notice(T0));
        minutes(NODE_1, "GPU-1", 40, 42);
        minutes(NODE_2, "GPU-2", 40, 60);

        // Then GPU-1 is dark: the notice was for an earlier run of its instance
        assertThat(dark.dark()).isEqualTo(1);
        assertThat(found).extracting(CostAnomaly::subject).containsExactly("GPU-1");
    }

    @Test
    void shouldTakeTheGpusOfAnInstanceItsAgentSaysIsStoppingAsNoLongerDark() {
        // Given GPU-1 dark: silent since minute 1 while GPU-2 reports to minute 20
        minutes(NODE_1, "GPU-1", 0, 1);
        minutes(NODE_2, "GPU-2", 0, 20);
        assertThat(dark.dark()).isEqualTo(1);

        // When i-1's agent says, late, that the instance is stopping
        dark.onNotice(stopping(NODE_1, T0.plusSeconds(60L * 20)));
        minutes(NODE_2, "GPU-2", 20, 25);

        // Then GPU-1 is no longer dark, and nothing more is raised
        assertThat(dark.dark()).isZero();
        assertThat(scrape()).contains(DARK + " 0.0");
        assertThat(found).hasSize(1);
    }

    @Test
    void shouldNeverTakeTheGpusOfAnInstanceThatSaidItStoppedAsDark() {
        // Given GPU-1 reporting for 5 minutes, its agent saying at minute 5 that i-1 is stopping
        minutes(NODE_1, "GPU-1", 0, 5);
        dark.onNotice(stopping(NODE_1, T0.plusSeconds(60L * 5)));

        // When GPU-2 goes on reporting for an hour
        minutes(NODE_2, "GPU-2", 0, 60);

        // Then GPU-1's silence is explained: not dark, nothing raised
        assertThat(dark.dark()).isZero();
        assertThat(found).isEmpty();
    }

    /** What the agent of {@code node} publishes when the host's shutdown asks it to. */
    private static CapacityEvent stopping(Placement node, Instant noticedAt) {
        return new CapacityEvent(1, CapacityEvent.idOf(node.provider(), node.instanceId(),
                CapacityEventKind.INSTANCE_STOPPING, noticedAt.toString()), node.provider(), node.region(),
                node.instanceId(), node.instanceType(), node.host(), node.lifecycle(),
                CapacityEventKind.INSTANCE_STOPPING, "shutdown", noticedAt, null, "agent", null);
    }

    private static CapacityEvent notice(Instant noticedAt) {
        return new CapacityEvent(1, "aws:i-1:SPOT_INTERRUPTION", "aws", "us-east-1", "i-1", "g5.xlarge", "node-1",
                Lifecycle.SPOT, CapacityEventKind.SPOT_INTERRUPTION, "terminate", noticedAt,
                noticedAt.plusSeconds(120), "test", null);
    }

    /** Closed windows of {@code gpu} for minutes {@code [from, to)} at 8 USD/h. */
    @Test
    void shouldNameTheJobOfTheLastUpdateOfAWindowWhenTheJobChangedWithinIt() {
        // Given GPU-1's window of minute 0 sent open under job "old", then updated under job "new"
        dark.onWindow(UsageWindows.minute(NODE_1, "GPU-1", "old", "red", T0, 8.0, 0.5, false), T0.plusSeconds(30));
        dark.onWindow(UsageWindows.minute(NODE_1, "GPU-1", "new", "red", T0, 8.0, 0.5, false), T0.plusSeconds(50));

        // When GPU-2 reports on for 17 minutes and GPU-1 stays silent
        minutes(NODE_2, "GPU-2", 0, 17);

        // Then GPU-1's anomaly names the job it last reported: "new"
        assertThat(found).singleElement().satisfies(anomaly ->
                assertThat(anomaly.evidence()).containsEntry("jobId", "new"));
    }

    private void minutes(Placement placement, String gpu, int from, int to) {
        for (int minute = from; minute < to; minute++) {
            GpuUsage window = UsageWindows.minute(placement, gpu, "job", "red", T0.plusSeconds(60L * minute), 8.0,
                    0.5, true);
            found.addAll(dark.onWindow(window, T0.plusSeconds(60L * minute + 61)));
        }
    }

    private String scrape() {
        return registry.scrape();
    }
}
