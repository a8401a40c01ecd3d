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
import java.util.Optional;
import org.junit.jupiter.api.Test;

class IdleGpuRuleTest {

    private static final Instant T0 = Instant.parse("2026-03-01T12:00:00Z");
    /** Ten minutes of evidence, raised under 5% SM activity, withdrawn at 10%; 30 s of activity a minute. */
    private static final RecommendationRules.Evidence TEN_MINUTES =
            new RecommendationRules.Evidence(Duration.ofMinutes(10), 0.05, 0.10);
    private final IdleGpuRule rule = new IdleGpuRule(TEN_MINUTES, 30, Duration.ofMinutes(10));

    @Test
    void shouldRecommendReclaimingAGpuIdleOverThePeriodForWhatItSpentAnHour() {
        // Given ten closed minutes of a GPU at 1% SM activity, charged 2 USD/h
        IdlePeriod idle = period(10, 6, 0.01, 2.0);

        // When the rule judges them
        Recommendation recommendation = rule.evaluate(idle, false, T0.plusSeconds(601)).orElseThrow();

        // Then it is reclaimed for 2 USD/h: 2 x 720 = 1440 a month, fully observed (0.5 + 0.4)
        assertThat(recommendation.id()).isEqualTo("reclaim_idle:gpu:GPU-1");
        assertThat(recommendation.estimatedMonthlySaving()).isCloseTo(2.0 * 720, within(1e-9));
        assertThat(recommendation.currency()).isEqualTo("USD");
        assertThat(recommendation.expiresAt()).isEqualTo(T0.plusSeconds(601 + 600));
        assertThat(recommendation.confidence()).isCloseTo(0.9, within(1e-9));
        assertThat((double) recommendation.evidence().get("smActive")).isCloseTo(0.01, within(1e-12));
        assertThat(recommendation.evidence()).containsEntry("jobId", "job-1").containsEntry("periodMinutes", 10L)
                .containsEntry("periodStart", T0.toString())
                .containsEntry("periodEnd", T0.plusSeconds(600).toString())
                .containsEntry("secondsObserved", 600.0).containsEntry("withdrawSmActive", 0.10);
        assertThat(recommendation.summary()).contains("idle for 10 minutes");
        // and it says what the month assumes: a GPU taken back by its user sooner saves its rate only
        // for the hours it stays released
        assertThat(recommendation.evidence()).containsEntry("hoursPerMonth", 720.0);
        assertThat(recommendation.summary()).contains("saves 2.00 USD per hour it stays released");
    }

    @Test
    void shouldReclaimAnIdleMigSliceForWhatTheSliceItselfSpends() {
        // Given ten closed minutes of a 1g.10gb slice (a seventh) of an A100 priced 14 USD per GPU-hour,
        // idle, each of six 10-second samples
        GpuMinutes minutes = new GpuMinutes(TEN_MINUTES.period());
        Optional<IdlePeriod> period = Optional.empty();
        for (int m = 0; m < 10; m++) {
            Instant start = T0.plusSeconds(60L * m);
            GpuUsage idle = null;
            for (int i = 1; i <= 6; i++) {
                TelemetrySample sample = TelemetrySample.builder().gpuUuid("MIG-1").gpuModel("A100-80GB")
                        .placement(new Placement("node-1", "i-1", "a2-highgpu-1g", "gcp", "us-central1",
                                Lifecycle.ON_DEMAND))
                        .jobId("job-1").time(start.plusSeconds(10L * i)).intervalSeconds(10).smActive(0.0)
                        .migProfile("1g.10gb").gpuFraction(1.0 / 7).build();
                idle = (idle == null ? GpuUsage.empty(sample, start, start.plusSeconds(60), "USD") : idle)
                        .add(sample, 14.0);
            }
            period = minutes.add(closed(idle), start.plusSeconds(61));
        }

        // When the rule judges them
        Recommendation recommendation = rule.evaluate(period.orElseThrow(), false, T0.plusSeconds(601)).orElseThrow();

        // Then they were observed for 10 x 6 x 10 = 600 s of wall time, all of the period, and reclaiming
        // the slice saves its own rate, 14 / 7 = 2 USD an hour: 2 x 720 = 1440 USD a month
        assertThat(recommendation.evidence()).containsEntry("secondsObserved", 600.0);
        assertThat(recommendation.estimatedMonthlySaving()).isCloseTo(2.0 * 720, within(1e-9));
        assertThat(recommendation.confidence()).isCloseTo(0.9, within(1e-9));
    }

    @Test
    void shouldNotJudgeAPeriodWithTooLittleObservedTime() {
        // Given ten minutes of two 10-second samples each: 200 s of activity, under 10 x 30 = 300 s
        IdlePeriod sparse = period(10, 2, 0.0, 2.0);

        assertThat(rule.judges(sparse)).isFalse();
        assertThat(rule.evaluate(sparse, false, T0)).isEmpty();
        // while three samples a minute, 300 s, are enough
        assertThat(rule.judges(period(10, 3, 0.0, 2.0))).isTrue();
    }

    @Test
    void shouldLeaveBusyGpusAlone() {
        IdlePeriod busy = period(10, 6, 0.06, 2.0);

        assertThat(rule.judges(busy)).isTrue();
        assertThat(rule.evaluate(busy, false, T0)).isEmpty();
    }

    @Test
    void shouldHoldARaisedReclaimUntilTheActivityReachesTheWithdrawalThreshold() {
        // Given GPUs at 7% and at 12% SM activity over the period
        IdlePeriod waking = period(10, 6, 0.07, 2.0);
        IdlePeriod working = period(10, 6, 0.12, 2.0);

        // Then 7% raises nothing new (over 5%) but keeps a reclaim that stands (under 10%)
        assertThat(rule.evaluate(waking, false, T0)).isEmpty();
        assertThat(rule.evaluate(waking, true, T0)).isPresent();
        // and 12%, over 10%, withdraws it
        assertThat(rule.evaluate(working, true, T0)).isEmpty();
    }

    @Test
    void shouldNotJudgeAGpuWhoseActivityIsUnknown() {
        // Given ten minutes of a GPU whose samples had no activity reading
        IdlePeriod unknown = period(10, 6, null, 2.0);

        // Then it is neither idle nor judged: its 600 s were charged, but nothing says it was idle
        assertThat(unknown.secondsObserved()).isEqualTo(600.0);
        assertThat(rule.judges(unknown)).isFalse();
        assertThat(rule.evaluate(unknown, false, T0.plusSeconds(601))).isEmpty();
    }

    /**
     * What {@code minutes} closed minutes of GPU-1 add up to, each of {@code samples} 10-second samples
     * at {@code smActive}, priced {@code pricePerHour}.
     */
    @Test
    void shouldBeLessSureOfAPeriodItSawOnlyPartOf() {
        // Given ten idle minutes seen whole (six 10 s samples a minute) and ten seen half (three a minute)
        IdlePeriod whole = period(10, 6, 0.01, 2.0);
        IdlePeriod half = period(10, 3, 0.01, 2.0);

        // When the rule judges each
        double sureOfWhole = rule.evaluate(whole, false, T0.plusSeconds(601)).orElseThrow().confidence();
        double sureOfHalf = rule.evaluate(half, false, T0.plusSeconds(601)).orElseThrow().confidence();

        // Then idleness it did not see weighs less: half seen is less sure, and still above a coin toss
        assertThat(sureOfHalf).isLessThan(sureOfWhole).isGreaterThan(0.5);
    }

    private static IdlePeriod period(int minutes, int samples, Double smActive, double pricePerHour) {
        GpuMinutes gpu = new GpuMinutes(Duration.ofMinutes(minutes));
        Optional<IdlePeriod> period = Optional.empty();
        for (int m = 0; m < minutes; m++) {
            Instant start = T0.plusSeconds(60L * m);
            GpuUsage usage = null;
            for (int i = 1; i <= samples; i++) {
                TelemetrySample sample = TelemetrySample.builder().gpuUuid("GPU-1").gpuModel("T4")
                        .placement(new Placement("node-1", "i-1", "g4dn.xlarge", "aws", "us-east-1",
                                Lifecycle.ON_DEMAND))
                        .jobId("job-1").time(start.plusSeconds(10L * i)).intervalSeconds(10).smActive(smActive)
                        .build();
                usage = (usage == null ? GpuUsage.empty(sample, start, start.plusSeconds(60), "USD") : usage)
                        .add(sample, pricePerHour);
            }
            period = gpu.add(closed(usage), start.plusSeconds(61));
        }
        return period.orElseThrow();
    }

    static GpuUsage closed(GpuUsage open) {
        return new GpuUsage(open.gpuUuid(), open.gpuIndex(), open.gpuModel(), open.host(), open.instanceId(),
                open.instanceType(), open.provider(), open.region(), open.lifecycle(), open.jobId(), open.team(),
                open.windowStart(), open.windowEnd(), open.currency(), open.totals(), true, open.gpuFraction());
    }
}
