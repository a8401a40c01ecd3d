package io.gpuledger.alerts.recommend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gpuledger.alerts.AlertSettings;
import io.gpuledger.alerts.TestSettings;
import io.gpuledger.model.GpuUsage;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Placement;
import io.gpuledger.model.Recommendation;
import io.gpuledger.model.RecommendationAction;
import io.gpuledger.model.RecommendationEvidence;
import io.gpuledger.model.TelemetrySample;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * What the reclaim rule makes of the instances a job (or no job) holds, judged as the bill is: whole
 * instances. The periods are built as the rules build them, from closed windows of 10-second samples.
 */
class IdleGpuRuleTest {

    private static final Instant T0 = Instant.parse("2026-03-01T12:00:00Z");
    /** Ten minutes of evidence, raised under 5% SM activity and withdrawn at 10%, 30 s observed per minute. */
    private static final AlertSettings TEN_MINUTES = TestSettings.with(
            "gpuledger.recommendation.reclaim-idle.period", "10m",
            "gpuledger.idle.sm-active-threshold", "0.05",
            "gpuledger.recommendation.reclaim-idle.withdraw-sm-active", "0.10",
            "gpuledger.idle.min-observed-seconds", "30",
            "gpuledger.recommendation.ttl", "10m");
    private final IdleGpuRule rule = new IdleGpuRule(TEN_MINUTES.recommendation(), TEN_MINUTES.idle());

    @Test
    void shouldReleaseTheInstanceOfAJobWhoseGpusAllIdleForWhatItCostsTheHoursItIsIdle() {
        // Given ten closed minutes of the one GPU of a g4dn.xlarge held by a job that reports no work, at
        // 1% SM activity, charged 2 USD/h; idle half the look-back
        IdleGpuRule.Holding holding = holding("job-1", false, instance("i-1", 1, 6, 0.01, 2.0));

        // When the rule judges it
        IdleGpuRule.Release release = rule.release(holding, false).orElseThrow();
        Recommendation recommendation = rule.recommend(holding, release, halfTheDay(1), T0.plusSeconds(601));

        // Then the instance is released, keeping none: 2 USD an hour for the 360 idle hours of a month
        // (half of 720), fully observed (0.5 + 0.4)
        assertThat(recommendation.id()).isEqualTo("reclaim_idle:job:job-1");
        assertThat(recommendation.action()).isEqualTo(RecommendationAction.ReclaimIdle.ofJob("job-1", List.of("i-1"), 0,
                ((RecommendationAction.ReclaimIdle) recommendation.action()).gpuUuids()));
        assertThat(recommendation.estimatedMonthlySaving()).isCloseTo(2.0 * 360, within(1e-9));
        assertThat(recommendation.currency()).isEqualTo("USD");
        assertThat(recommendation.expiresAt()).isEqualTo(T0.plusSeconds(601 + 600));
        assertThat(recommendation.confidence()).isCloseTo(0.9, within(1e-9));
        var evidence = (RecommendationEvidence.ReclaimIdle) recommendation.evidence();
        assertThat(evidence.smActive()).isCloseTo(0.01, within(1e-12));
        assertThat(evidence.jobId()).isEqualTo("job-1");
        assertThat(evidence.periodMinutes()).isEqualTo(10);
        assertThat(evidence.periodStart()).isEqualTo(T0);
        assertThat(evidence.periodEnd()).isEqualTo(T0.plusSeconds(600));
        assertThat(evidence.secondsObserved()).isEqualTo(600.0);
        assertThat(evidence.withdrawSmActive()).isEqualTo(0.10);
        assertThat(evidence.hoursPerMonth()).isEqualTo(360.0);
    }

    @Test
    void shouldReleaseAnInstanceWhoseMigSlicesAllIdleForTheWholeGpu() {
        // Given the seven 1g.10gb slices (a seventh each) of the one A100 of an instance priced 14 USD per
        // GPU-hour, all idle for ten closed minutes
        IdleInstances.Snapshot mig = slices("i-mig", 7, 6, 0.0, 14.0);
        IdleGpuRule.Holding holding = holding("job-1", false, mig);

        // When the rule judges them
        IdleGpuRule.Release release = rule.release(holding, false).orElseThrow();

        // Then releasing the instance saves the whole GPU's 14 USD an hour: 7 slices of 2 each
        assertThat(release.costPerHour()).isCloseTo(14.0, within(1e-9));
        assertThat(release.idle().secondsObserved()).isEqualTo(7 * 600.0);
    }

    @Test
    void shouldHoldAnInstanceOfASharedGpuAsSharedNotAsAJobNamedShared() {
        // Given ten idle minutes of an instance whose one GPU several jobs share (its windows say jobId "shared")
        IdleInstances.Snapshot shared = build("i-shared", TelemetrySample.SHARED_JOB, 1, 6, 0.01, 2.0, 1.0);

        // Then it is held by several jobs, judged by the GPU's whole use, as an instance whose GPUs hold
        // different jobs is
        assertThat(shared.holder()).isEqualTo(IdleInstances.SHARED);
        assertThat(build("i-two", "job-1", 1, 6, 0.01, 2.0, 1.0).holder()).isEqualTo("job-1");
    }

    @Test
    void shouldNotReleaseAnInstanceOneOfWhoseSlicesWorks() {
        // Given the seven slices of one GPU, one busy at 40%
        IdleGpuRule.Holding holding = holding("job-1", false, slices("i-mig", 7, 6, 0.0, 14.0, 0.4));

        // Then nothing can be released: the GPU, and its instance, are still in use
        assertThat(rule.release(holding, false)).isEmpty();
    }

    @Test
    void shouldShrinkAJobOnTwoInstancesWhoseBusyGpusFitOnOne() {
        // Given a job reporting work on two 8-GPU instances: all of the first idle, 3 of the second busy
        IdleInstances.Snapshot idle = instance("i-a", 8, 6, 0.01, 4.09625);
        IdleInstances.Snapshot busy = instance("i-b", 8, 6, 0.01, 4.09625, 0.8, 0.8, 0.8);
        IdleGpuRule.Holding holding = holding("job-2", true, busy, idle);

        // When the rule judges it
        IdleGpuRule.Release release = rule.release(holding, false).orElseThrow();

        // Then it keeps one instance for its 3 busy GPUs and releases the idle one, whole: 8 x 4.09625
        assertThat(release.instancesNeeded()).isEqualTo(1);
        assertThat(release.released()).extracting(IdleInstances.Snapshot::instanceId).containsExactly("i-a");
        assertThat(release.busyGpus()).isEqualTo(3.0);
        assertThat(release.costPerHour()).isCloseTo(32.77, within(1e-9));
        // and it is less sure than of a release: the job has to be made to run on one instance
        Recommendation shrink = rule.recommend(holding, release, halfTheDay(1), T0.plusSeconds(601));
        assertThat(shrink.confidence()).isLessThan(0.9);
        assertThat(shrink.summary()).contains("shrink it to 1");
    }

    @Test
    void shouldNotReleaseTheGpusOfAJobThatReportsWorkHoweverIdleTheyLook() {
        // Given a serving job's two one-GPU instances at 1% SM activity, and its reports of requests served
        IdleGpuRule.Holding serving = holding("serve", true, instance("i-1", 1, 6, 0.01, 0.526),
                instance("i-2", 1, 6, 0.01, 0.526));

        // Then neither is released: it serves at a quiet hour
        assertThat(rule.release(serving, false)).isEmpty();
    }

    @Test
    void shouldNotJudgeAPeriodWithTooLittleObservedTime() {
        // Given ten minutes of two 10-second samples each: 200 s of activity, under 10 x 30 = 300 s
        IdleInstances.Snapshot sparse = instance("i-1", 1, 2, 0.0, 2.0);

        assertThat(rule.judges(sparse.gpus().get(0).period())).isFalse();
        assertThat(rule.release(holding("job-1", false, sparse), false)).isEmpty();
        // while three samples a minute, 300 s, are enough
        assertThat(rule.judges(instance("i-1", 1, 3, 0.0, 2.0).gpus().get(0).period())).isTrue();
    }

    @Test
    void shouldLeaveBusyGpusAlone() {
        assertThat(rule.release(holding("job-1", false, instance("i-1", 1, 6, 0.06, 2.0)), false)).isEmpty();
    }

    @Test
    void shouldHoldARaisedReclaimUntilItsGpusWorkOrTheirMeanReachesAWithdrawalThresholdSetUnderFivePercent() {
        // Given a rule raised under 2% and withdrawn at 4%, and instances whose samples all stay at 3%, at 4.5%
        // (none at work: under the engine's 5%) and at 7% (every one at work)
        AlertSettings low = TestSettings.with("gpuledger.recommendation.reclaim-idle.period", "10m",
                "gpuledger.idle.sm-active-threshold", "0.02",
                "gpuledger.recommendation.reclaim-idle.withdraw-sm-active", "0.04",
                "gpuledger.idle.min-observed-seconds", "30");
        IdleGpuRule lowRule = new IdleGpuRule(low.recommendation(), low.idle());
        IdleGpuRule.Holding waking = holding("job-1", false, instance("i-1", 1, 6, 0.03, 2.0));
        IdleGpuRule.Holding nearly = holding("job-1", false, instance("i-1", 1, 6, 0.045, 2.0));
        IdleGpuRule.Holding working = holding("job-1", false, instance("i-1", 1, 6, 0.07, 2.0));

        // Then 3% raises nothing new (over 2%) but keeps a reclaim that stands (under 4%)
        assertThat(lowRule.release(waking, false)).isEmpty();
        assertThat(lowRule.release(waking, true)).isPresent();
        // and 4.5% withdraws it, as does 7% under the documented thresholds (5%, withdrawn at 10%): its samples work
        assertThat(lowRule.release(nearly, true)).isEmpty();
        assertThat(rule.release(working, true)).isEmpty();
        assertThat(rule.release(working, false)).isEmpty();
    }

    @Test
    void shouldNotRaiseAReclaimOfAGpuThatRanOneCellInItsPeriodNorHoldOneRaised() {
        // Given ten minutes of a notebook's GPU at 0.5% SM activity but for one 10 s sample at 40% in the
        // fifth minute (a cell run), which leaves the period's mean at 0.5% + 0.4 / 60 = 1.16%, under 5%;
        // and a MIG slice of a seventh of a GPU, the same
        Activity oneCell = (minute, gpu, sample) -> minute == 4 && sample == 3 ? 0.4 : 0.005;
        IdleGpuRule.Holding notebook = holding("nb", false, build("i-nb", "nb", 1, 6, 1.006, 1.0, oneCell));
        IdleGpuRule.Holding slice = holding("nb", false, build("i-mig", "nb", 1, 6, 3.67, 1.0 / 7, oneCell));

        // Then it is not raised: its user needs it, the mean notwithstanding
        assertThat(notebook.instances().get(0).gpus().get(0).period().smActive()).isCloseTo(0.005 + 0.4 / 60 - 0.005
                / 60, within(1e-12));
        assertThat(notebook.instances().get(0).gpus().get(0).period().quietSince()).isEqualTo(T0.plusSeconds(300));
        assertThat(slice.instances().get(0).gpus().get(0).period().quietSince()).isEqualTo(T0.plusSeconds(300));
        assertThat(rule.release(notebook, false)).isEmpty();
        assertThat(rule.release(slice, false)).isEmpty();
        // nor does one raised before stand: its user is back
        assertThat(rule.release(notebook, true)).isEmpty();
        // and a period quiet throughout is raised
        assertThat(rule.release(holding("nb", false, instance("i-q", 1, 6, 0.049, 1.006)), false)).isPresent();
    }

    @Test
    void shouldRaiseAReclaimOnlyOnceItsGpusHaveBeenQuietForAsLongAsItIsAskedToWait() {
        // Given ten minutes of a GPU whose last cell ran in the fifth minute: quiet since its end, five minutes
        Activity oneCell = (minute, gpu, sample) -> minute == 4 && sample == 3 ? 0.4 : 0.005;
        IdleGpuRule.Holding notebook = holding("nb", false, build("i-nb", "nb", 1, 6, 1.006, 1.0, oneCell));

        // Then asked to wait five minutes quiet it is raised, and six not yet; a standing one waits no longer than
        // its period was quiet (ten minutes: withdrawn)
        assertThat(rule.release(notebook, false, Duration.ofMinutes(5))).isPresent();
        assertThat(rule.release(notebook, false, Duration.ofMinutes(6))).isEmpty();
        assertThat(rule.release(notebook, true, Duration.ofMinutes(5))).isEmpty();

        // And one that waited twenty minutes quiet, twice its period, says why and what it claims; one that waited
        // its period says nothing of it
        IdleGpuRule.Holding quiet = holding("nb", false, build("i-q", "nb", 1, 6, 1.006, 1.0, 25,
                (minute, gpu, sample) -> 0.01));
        Recommendation waited = rule.recommend(quiet, rule.release(quiet, false, Duration.ofMinutes(20)).orElseThrow(),
                halfTheDay(1), T0.plusSeconds(1501));
        assertThat(waited.summary()).endsWith(". Its capacity came back within 10 minutes of its last release followed:"
                + " this one waited 20 minutes quiet, and claims only the time its releases kept it away; scale down"
                + " what brings it back");
        assertThat(((RecommendationEvidence.ReclaimIdle) waited.evidence()).quietMinutes()).isEqualTo(20);
        assertThat(rule.recommend(quiet, rule.release(quiet, false).orElseThrow(), halfTheDay(1), T0.plusSeconds(1501))
                .summary()).doesNotContain("came back");
    }

    @Test
    void shouldTellTheGpusKeptForNotYetQuietLongEnoughFromTheBusyOnes() {
        // Given a job on two one-GPU instances, that waits twenty minutes quiet (its capacity came back by itself
        // after its last release), over 25 minutes: the first GPU quiet throughout, the second since its last cell
        // in the tenth minute, fifteen minutes, longer than the ten-minute period
        IdleInstances.Snapshot quietLong = build("i-a", "job-w", 1, 6, 1.006, 1.0, 25, (minute, gpu, sample) -> 0.01);
        IdleInstances.Snapshot quietLess = build("i-b", "job-w", 1, 6, 1.006, 1.0, 25,
                (minute, gpu, sample) -> minute == 9 && sample == 6 ? 0.4 : 0.01);
        IdleGpuRule.Holding holding = holding("job-w", false, quietLong, quietLess);

        // When the rule judges it
        IdleGpuRule.Release release = rule.release(holding, false, Duration.ofMinutes(20)).orElseThrow();
        Recommendation shrink = rule.recommend(holding, release, halfTheDay(1), T0.plusSeconds(1501));

        // Then it releases the first and keeps the second: not busy, at 1% for fifteen minutes, but not yet quiet
        // twenty, and it says so rather than that it keeps a GPU busy
        assertThat(release.released()).extracting(IdleInstances.Snapshot::instanceId).containsExactly("i-a");
        assertThat(shrink.summary()).startsWith("Job job-w keeps 0.0 GPU(s) busy and 1.0 quiet for under 20 minutes"
                + " on its 2 g4dn.xlarge instance(s): shrink it to 1 and release 1");
        var evidence = (RecommendationEvidence.ReclaimIdle) shrink.evidence();
        assertThat(evidence.busyGpuEquivalents()).isZero();
        assertThat(evidence.waitingGpuEquivalents()).isEqualTo(1.0);
        assertThat(evidence.quietMinutes()).isEqualTo(20);
        assertThat(evidence.instancesNeeded()).isEqualTo(1);
        // and judged on its period alone (no wait of its own), both GPUs are released; standing, it still waits as
        // long as when it was raised, and releases the same one
        assertThat(rule.release(holding, false).orElseThrow().count()).isEqualTo(2);
        assertThat(rule.release(holding, true, Duration.ofMinutes(20)).orElseThrow().released())
                .extracting(IdleInstances.Snapshot::instanceId).containsExactly("i-a");
    }

    @Test
    void shouldNotTakeAMinuteWithoutAnActivityReadingForQuiet() {
        // Given ten minutes of a GPU at 0.5% but for its ninth minute, whose samples had no activity reading
        Activity blind = (minute, gpu, sample) -> minute == 8 ? null : 0.005;
        IdleGpuRule.Holding holding = holding("nb", false, build("i-b", "nb", 1, 6, 1.006, 1.0, blind));

        // Then it has been quiet only since that minute's end, and is not raised before it was for a period
        assertThat(holding.instances().get(0).gpus().get(0).period().quietSince()).isEqualTo(T0.plusSeconds(540));
        assertThat(rule.release(holding, false)).isEmpty();
        assertThat(rule.release(holding, false, Duration.ofMinutes(1))).isPresent();
    }

    @Test
    void shouldNotJudgeAGpuWhoseActivityIsUnknown() {
        // Given ten minutes of a GPU whose samples had no activity reading
        IdleInstances.Snapshot unknown = instance("i-1", 1, 6, null, 2.0);

        // Then it counts as busy: its 600 s were charged, but nothing says it was idle
        assertThat(unknown.gpus().get(0).period().secondsObserved()).isEqualTo(600.0);
        assertThat(rule.release(holding("job-1", false, unknown), false)).isEmpty();
    }

    @Test
    void shouldBeLessSureOfAPeriodItSawOnlyPartOf() {
        // Given ten idle minutes seen whole (six 10 s samples a minute) and ten seen half (three a minute)
        IdleGpuRule.Holding whole = holding("job-1", false, instance("i-1", 1, 6, 0.01, 2.0));
        IdleGpuRule.Holding half = holding("job-1", false, instance("i-1", 1, 3, 0.01, 2.0));

        // When the rule judges each
        double sureOfWhole = rule.recommend(whole, rule.release(whole, false).orElseThrow(), halfTheDay(1), T0)
                .confidence();
        double sureOfHalf = rule.recommend(half, rule.release(half, false).orElseThrow(), halfTheDay(1), T0)
                .confidence();

        // Then idleness it did not see weighs less: half seen is less sure, and still above a coin toss
        assertThat(sureOfHalf).isLessThan(sureOfWhole).isGreaterThan(0.5);
    }

    /** Half of a day's look-back idle, for {@code instances} instances. */
    private static JobHours.Share halfTheDay(int instances) {
        return new JobHours.Share(T0.minus(Duration.ofDays(1)), T0, 12.0 * instances, 0.5);
    }

    private static IdleGpuRule.Holding holding(String jobId, boolean reportedWork,
            IdleInstances.Snapshot... instances) {
        return new IdleGpuRule.Holding(Recommendation.Target.job(jobId), jobId, List.of(instances), reportedWork);
    }

    private static IdleInstances.Snapshot instance(String id, int gpus, int samples, Double smActive,
            double pricePerHour, double... busy) {
        return build(id, gpus, samples, smActive, pricePerHour, 1.0, busy);
    }

    /** As {@link #instance}, of the one GPU of an instance split into {@code count} slices. */
    private static IdleInstances.Snapshot slices(String id, int count, int samples, Double smActive,
            double pricePerHour, double... busy) {
        return build(id, count, samples, smActive, pricePerHour, 1.0 / count, busy);
    }

    /**
     * Ten closed minutes of an instance's {@code gpus} GPUs (or slices of {@code fraction} of one),
     * each of {@code samples} 10-second samples at {@code smActive} (the first ones at {@code busy}),
     * priced {@code pricePerHour} a GPU; as the instance stands once its last minute is complete.
     */
    private static IdleInstances.Snapshot build(String id, int gpus, int samples, Double smActive,
            double pricePerHour, double fraction, double... busy) {
        return build(id, "job-1", gpus, samples, smActive, pricePerHour, fraction, busy);
    }

    private static IdleInstances.Snapshot build(String id, String job, int gpus, int samples, Double smActive,
            double pricePerHour, double fraction, double... busy) {
        return build(id, job, gpus, samples, pricePerHour, fraction,
                (minute, gpu, sample) -> gpu < busy.length ? Double.valueOf(busy[gpu]) : smActive);
    }

    /** The SM activity of a sample ({@code sample} from 1) of a GPU's minute; null: no reading. */
    private interface Activity {
        Double at(int minute, int gpu, int sample);
    }

    private static IdleInstances.Snapshot build(String id, String job, int gpus, int samples, double pricePerHour,
            double fraction, Activity activity) {
        return build(id, job, gpus, samples, pricePerHour, fraction, 10, activity);
    }

    /** As {@link #build}, over {@code closedMinutes} closed minutes: the instance as it stands after the last one. */
    private static IdleInstances.Snapshot build(String id, String job, int gpus, int samples, double pricePerHour,
            double fraction, int closedMinutes, Activity activity) {
        IdleInstances instances = new IdleInstances();
        GpuMinutes minutes = new GpuMinutes(TEN_MINUTES.recommendation().reclaimIdle().period());
        List<IdleInstances.Snapshot> complete = new ArrayList<>();
        for (int m = 0; m < closedMinutes; m++) {
            Instant start = T0.plusSeconds(60L * m);
            for (int g = 0; g < gpus; g++) {
                GpuUsage usage = null;
                for (int i = 1; i <= samples; i++) {
                    TelemetrySample.Builder sample = TelemetrySample.builder().gpuUuid(id + "-gpu-" + g)
                            .gpuModel("A100-40GB")
                            .placement(new Placement("node-" + id, id, "g4dn.xlarge", "aws", "us-east-1",
                                    Lifecycle.ON_DEMAND))
                            .jobId(job).time(start.plusSeconds(10L * i)).intervalSeconds(10)
                            .smActive(activity.at(m, g, i));
                    if (fraction < 1) {
                        sample.migProfile("1g.10gb").gpuFraction(fraction);
                    }
                    TelemetrySample built = sample.build();
                    usage = (usage == null ? GpuUsage.empty(built, start, start.plusSeconds(60), "USD") : usage)
                            .add(built, pricePerHour);
                }
                Optional<IdlePeriod> period = minutes.add(closed(usage), start.plusSeconds(61));
                period.flatMap(p -> instances.add(p, (int) Math.round(gpus * fraction))).ifPresent(complete::add);
            }
        }
        return complete.get(complete.size() - 1);
    }

    static GpuUsage closed(GpuUsage open) {
        return open.toBuilder().closed(true).build();
    }
}
