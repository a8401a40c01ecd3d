package io.gpuledger.alerts.recommend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gpuledger.model.GpuUsage;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Placement;
import io.gpuledger.model.Recommendation;
import io.gpuledger.model.TelemetrySample;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class IdleGpuRuleTest {

    private static final Instant T0 = Instant.parse("2026-03-01T12:00:00Z");
    private final IdleGpuRule rule = new IdleGpuRule(0.05, 30, Duration.ofMinutes(10));

    @Test
    void shouldRecommendReclaimingAGpuIdleOverTheWindowWithItsMonthlyCost() {
        GpuUsage idle = window(6, 0.01);

        Recommendation recommendation = rule.evaluate(idle, T0.plusSeconds(61)).orElseThrow();

        assertThat(recommendation.id()).isEqualTo("reclaim_idle:gpu:GPU-1");
        assertThat(recommendation.estimatedMonthlySaving()).isCloseTo(2.0 * 720, within(1e-9));
        assertThat(recommendation.currency()).isEqualTo("USD");
        assertThat(recommendation.expiresAt()).isEqualTo(T0.plusSeconds(61 + 600));
        assertThat(recommendation.confidence()).isCloseTo(0.9, within(1e-9));
        assertThat(recommendation.evidence()).containsEntry("smActive", 0.01).containsEntry("jobId", "job-1");
    }

    @Test
    void shouldReclaimAnIdleMigSliceForWhatTheSliceItselfSpends() {
        // Given a 1g.10gb slice (a seventh) of an A100 priced 14 USD per GPU-hour, idle for a whole
        // minute of six 10-second samples
        GpuUsage idle = null;
        for (int i = 1; i <= 6; i++) {
            TelemetrySample sample = TelemetrySample.builder().gpuUuid("MIG-1").gpuModel("A100-80GB")
                    .placement(new Placement("node-1", "i-1", "a2-highgpu-1g", "gcp", "us-central1",
                            Lifecycle.ON_DEMAND))
                    .jobId("job-1").time(T0.plusSeconds(10L * i)).intervalSeconds(10).smActive(0.0)
                    .migProfile("1g.10gb").gpuFraction(1.0 / 7).build();
            idle = (idle == null ? GpuUsage.empty(sample, T0, T0.plusSeconds(60), "USD") : idle).add(sample, 14.0);
        }

        // When the rule judges it
        Recommendation recommendation = rule.evaluate(idle, T0.plusSeconds(61)).orElseThrow();

        // Then it was observed for 6 x 10 = 60 s of wall time, all of its minute, and reclaiming it
        // saves its own rate, 14 / 7 = 2 USD an hour: 2 x 720 = 1440 USD a month
        assertThat(recommendation.evidence()).containsEntry("secondsObserved", 60.0);
        assertThat(recommendation.estimatedMonthlySaving()).isCloseTo(2.0 * 720, within(1e-9));
        assertThat(recommendation.confidence()).isCloseTo(0.9, within(1e-9));
    }

    @Test
    void shouldNotJudgeAWindowWithTooLittleObservedTime() {
        assertThat(rule.evaluate(window(2, 0.0), T0)).isEmpty();
        assertThat(rule.judges(window(2, 0.0))).isFalse();
    }

    @Test
    void shouldLeaveBusyGpusAlone() {
        assertThat(rule.evaluate(window(6, 0.05), T0)).isEmpty();
        assertThat(rule.judges(window(6, 0.05))).isTrue();
    }

    @Test
    void shouldNotJudgeAGpuWhoseActivityIsUnknown() {
        // Given a minute of a GPU whose six samples had no activity reading
        GpuUsage unknown = window(6, null);

        // Then it is neither idle nor judged: its 60 s were charged, but nothing says it was idle
        assertThat(rule.judges(unknown)).isFalse();
        assertThat(rule.evaluate(unknown, T0.plusSeconds(61))).isEmpty();
    }

    @Test
    void shouldJudgeOnlyTheTimeWhoseActivityIsKnown() {
        // Given two idle samples (20 s, under the rule's 30 s) then four without an activity reading
        GpuUsage usage = window(2, 0.01);
        usage = continued(usage, 3, 6, null);

        // Then 20 s of known activity are too little to judge, whatever was charged besides
        assertThat(usage.secondsObserved()).isEqualTo(60.0);
        assertThat(rule.judges(usage)).isFalse();
        assertThat(rule.evaluate(usage, T0.plusSeconds(61))).isEmpty();
    }

    /** A window of {@code samples} 10-second samples of one GPU priced 2 USD per hour. */
    private static GpuUsage window(int samples, Double smActive) {
        return continued(null, 1, samples, smActive);
    }

    /** {@code usage} (or a new window) with the 10-second samples ending at 10 × {@code first} … {@code last} s. */
    private static GpuUsage continued(GpuUsage usage, int first, int last, Double smActive) {
        for (int i = first; i <= last; i++) {
            TelemetrySample sample = TelemetrySample.builder().gpuUuid("GPU-1").gpuModel("T4")
                    .placement(new Placement("node-1", "i-1", "g4dn.xlarge", "aws", "us-east-1", Lifecycle.ON_DEMAND))
                    .jobId("job-1").time(T0.plusSeconds(10L * i)).intervalSeconds(10).smActive(smActive).build();
            usage = (usage == null ? GpuUsage.empty(sample, T0, T0.plusSeconds(60), "USD") : usage).add(sample, 2.0);
        }
        return usage;
    }
}
