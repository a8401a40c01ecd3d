package io.gpuledger.streams.cost;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.assertj.core.api.Assertions.within;

import io.gpuledger.model.Allocation;
import io.gpuledger.model.GpuHour;
import io.gpuledger.model.GpuUsage;
import io.gpuledger.model.JobEconomics;
import io.gpuledger.model.JobPart;
import io.gpuledger.model.JobProgress;
import io.gpuledger.model.Json;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Placement;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.SharePolicy;
import io.gpuledger.model.TelemetrySample;
import io.gpuledger.model.UsageRollup;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A GPU shared by several jobs, charged to each by its share, through the engine's own topology. */
class SharedGpuTest {

    private static final Instant T0 = Instant.parse("2026-03-01T12:00:00Z");
    /** 36 USD/h for 8 GPUs. */
    private static final double GPU_PER_HOUR = 4.5;
    private static final double GPU_MINUTE = GPU_PER_HOUR / 60;
    private static final String POOL = "pool|aws|us-east-1|p4d.24xlarge|on-demand";
    private static final List<Allocation> INFERENCE_AND_NOTEBOOK = List.of(
            new Allocation("infer-a", "serving", 0.5, SharePolicy.SM),
            new Allocation("notebook-b", "research", 0.3, SharePolicy.SM));

    private CostDriver cost;

    @BeforeEach
    void startDriver() {
        cost = new CostDriver("shared-gpu-test", T0);
        cost.publish(new PriceQuote("aws", "us-east-1", "p4d.24xlarge", Lifecycle.ON_DEMAND, "A100-40GB", 8, 36.0,
                "USD", T0.minus(Duration.ofDays(1)), "test"));
    }

    @AfterEach
    void stopDriver() {
        cost.close();
    }

    @Test
    void shouldSplitASharedGpuAmongItsJobsByShareAndKeepTheRestUnallocatedInItsPool() {
        // Given a GPU of the platform team's node shared for a minute: half by an inference job, 30% by a notebook
        sendMinuteOf(shared("GPU-s", INFERENCE_AND_NOTEBOOK));

        // Then each job's roll-up holds its share of the GPU's cost, time and energy
        Map<String, UsageRollup> rollups = latestRollups();
        UsageRollup inference = rollups.get("job|infer-a");
        assertThat(inference.totals().cost()).isCloseTo(0.5 * GPU_MINUTE, within(1e-12));
        assertThat(inference.totals().gpuSeconds()).isCloseTo(30, within(1e-9));
        assertThat(inference.totals().sharedGpuSeconds()).isCloseTo(30, within(1e-9));
        assertThat(inference.totals().energyKwh()).isCloseTo(0.5 * 300 * 60 / 3.6e6, within(1e-12));
        assertThat(inference.totals().unallocatedCost()).isZero();
        assertThat(inference.gpus()).isEqualTo(1);
        assertThat(inference.costPerHour()).isCloseTo(0.5 * GPU_PER_HOUR, within(1e-9));
        assertThat(rollups.get("job|notebook-b").totals().cost()).isCloseTo(0.3 * GPU_MINUTE, within(1e-12));
        assertThat(rollups).doesNotContainKey("job|shared");
        // And each team its jobs' shares, the node's team the unallocated rest
        assertThat(rollups.get("team|serving").totals().cost()).isCloseTo(0.5 * GPU_MINUTE, within(1e-12));
        assertThat(rollups.get("team|research").totals().cost()).isCloseTo(0.3 * GPU_MINUTE, within(1e-12));
        UsageRollup platform = rollups.get("team|platform");
        assertThat(platform.totals().cost()).isCloseTo(0.2 * GPU_MINUTE, within(1e-12));
        assertThat(platform.totals().unallocatedCost()).isCloseTo(0.2 * GPU_MINUTE, within(1e-12));
        // And the pool the whole GPU, the rest as unallocated
        UsageRollup pool = rollups.get(POOL);
        assertThat(pool.totals().cost()).isCloseTo(GPU_MINUTE, within(1e-12));
        assertThat(pool.totals().unallocatedCost()).isCloseTo(0.2 * GPU_MINUTE, within(1e-12));
        assertThat(pool.costPerHour()).isCloseTo(GPU_PER_HOUR, within(1e-9));
        // And the GPU's own window the whole GPU, how many jobs shared it, by what, and what no job took
        GpuUsage window = latestWindow("GPU-s");
        assertThat(window.cost()).isCloseTo(GPU_MINUTE, within(1e-12));
        assertThat(window.sharingJobs()).isEqualTo(2);
        assertThat(window.measuredBy()).isEqualTo(SharePolicy.SM);
        assertThat(window.totals().unallocatedCost()).isCloseTo(0.2 * GPU_MINUTE, within(1e-12));
        assertThat(Json.writeString(window)).contains("\"sharingJobs\":2,\"jobParts\":[{\"jobId\":\"infer-a\"")
                .contains("\"measuredBy\":\"sm\"");
    }

    @Test
    void shouldWriteEachJobsPartInTheSharedWindowSoThatPartsAndTheRestMakeTheWholeGpu() {
        // Given the shared GPU's minute, and a minute later a GPU of another job, so that the first one closes
        sendMinuteOf(shared("GPU-s", INFERENCE_AND_NOTEBOOK));
        cost.send(tenSeconds(oneJob("GPU-u", "train"), T0.plusSeconds(200)));
        cost.advance(Duration.ofSeconds(30));
        cost.sendUpdates();

        // Then its closed window names each job with its share of the minute (by hand: half and 30% of 60 s at
        // 300 W and GPU_MINUTE), the inference job's team as its allocation says
        GpuUsage window = latestWindow("GPU-s");
        assertThat(window.closed()).isTrue();
        assertThat(window.jobParts()).extracting(JobPart::jobId, JobPart::team)
                .containsExactly(tuple("infer-a", "serving"), tuple("notebook-b", "research"));
        JobPart inference = window.jobParts().get(0);
        assertThat(inference.cost()).isCloseTo(0.5 * GPU_MINUTE, within(1e-12));
        assertThat(inference.gpuSeconds()).isCloseTo(30, within(1e-9));
        assertThat(inference.energyKwh()).isCloseTo(0.5 * 300 * 60 / 3.6e6, within(1e-12));
        assertThat(inference.unpricedSeconds()).isZero();
        assertThat(window.jobParts().get(1).cost()).isCloseTo(0.3 * GPU_MINUTE, within(1e-12));
        // And the parts with the unallocated rest are the window's whole cost, to the last rounding
        double parts = window.jobParts().stream().mapToDouble(JobPart::cost).sum();
        assertThat(parts + window.totals().unallocatedCost()).isCloseTo(window.cost(), within(1e-15));
    }

    @Test
    void shouldGiveAJobItsSamplesOfTheGpuAloneInAMinuteThatWasAlsoShared() {
        // Given a minute whose first half the GPU is shared (the inference job half, the notebook 30%) and whose
        // second half the inference job has it alone, as an agent samples a GPU one of whose jobs left; and a
        // minute the other way round
        for (int i = 1; i <= 6; i++) {
            TelemetrySample shared = shared("GPU-s", INFERENCE_AND_NOTEBOOK);
            TelemetrySample alone = shared.toBuilder().jobId("infer-a").team("serving").allocations(List.of())
                    .build();
            cost.send(tenSeconds(i <= 3 ? shared : alone, T0.plusSeconds(10L * i)));
            cost.send(tenSeconds(i <= 3 ? alone : shared, T0.plusSeconds(60 + 10L * i)));
        }
        cost.send(tenSeconds(oneJob("GPU-u", "train"), T0.plusSeconds(300)));
        cost.advance(Duration.ofSeconds(30));
        cost.sendUpdates();

        // Then in both, by hand: the inference job took 0.5 × 30 s and all of 30 s, the notebook 0.3 × 30 s, and
        // 0.2 × 30 s is unallocated; the parts and the rest make the minute, whichever job its last sample named
        List<GpuUsage> windows = cost.usage.readValuesToList();
        for (Instant start : List.of(T0, T0.plusSeconds(60))) {
            GpuUsage window = windows.stream().filter(w -> w.gpuUuid().equals("GPU-s") && w.closed()
                    && w.windowStart().equals(start)).findFirst().orElseThrow();
            assertThat(window.jobParts()).extracting(JobPart::jobId).containsExactlyInAnyOrder("infer-a",
                    "notebook-b");
            JobPart inference = window.jobParts().stream().filter(part -> part.jobId().equals("infer-a"))
                    .findFirst().orElseThrow();
            assertThat(inference.cost()).isCloseTo(0.75 * GPU_MINUTE, within(1e-12));
            assertThat(inference.team()).isEqualTo("serving");
            assertThat(inference.gpuSeconds()).isCloseTo(45, within(1e-9));
            assertThat(window.totals().unallocatedCost()).isCloseTo(0.1 * GPU_MINUTE, within(1e-12));
            double parts = window.jobParts().stream().mapToDouble(JobPart::cost).sum();
            assertThat(parts + window.totals().unallocatedCost()).isCloseTo(window.cost(), within(1e-15));
        }
    }

    @Test
    void shouldGiveEachJobItsOwnSamplesOfTheMinuteBeforeTheGpuWasShared() {
        // Given a minute whose first ten seconds the inference job has the GPU alone, the next ten the notebook, and
        // the rest of which they share (half and 30%)
        TelemetrySample shared = shared("GPU-s", INFERENCE_AND_NOTEBOOK);
        cost.send(tenSeconds(shared.toBuilder().jobId("infer-a").team("serving").allocations(List.of()).build(),
                T0.plusSeconds(10)));
        cost.send(tenSeconds(shared.toBuilder().jobId("notebook-b").team("research").allocations(List.of()).build(),
                T0.plusSeconds(20)));
        for (int i = 3; i <= 6; i++) {
            cost.send(tenSeconds(shared, T0.plusSeconds(10L * i)));
        }
        cost.send(tenSeconds(oneJob("GPU-u", "train"), T0.plusSeconds(300)));
        cost.advance(Duration.ofSeconds(30));
        cost.sendUpdates();

        // Then, by hand: the inference job took its 10 s and 0.5 × 40 s, the notebook its 10 s and 0.3 × 40 s,
        // 0.2 × 40 s is unallocated
        GpuUsage window = cost.usage.readValuesToList().stream().filter(w -> w.gpuUuid().equals("GPU-s")
                && w.closed() && w.windowStart().equals(T0)).findFirst().orElseThrow();
        assertThat(window.jobParts()).extracting(JobPart::jobId, JobPart::team)
                .containsExactlyInAnyOrder(tuple("infer-a", "serving"), tuple("notebook-b", "research"));
        for (JobPart part : window.jobParts()) {
            double seconds = part.jobId().equals("infer-a") ? 30 : 22;
            assertThat(part.gpuSeconds()).as(part.jobId()).isCloseTo(seconds, within(1e-9));
            assertThat(part.cost()).as(part.jobId()).isCloseTo(seconds * GPU_MINUTE / 60, within(1e-12));
        }
        assertThat(window.totals().unallocatedCost()).isCloseTo(8 * GPU_MINUTE / 60, within(1e-12));
    }

    @Test
    void shouldGiveEachJobOfAMinuteOfOneJobAfterAnotherItsOwnPartOfTheHour() {
        // Given a GPU that runs one job for the first half of a minute and another for the second, never shared
        cost.send(oneJob("GPU-u", "train").toBuilder().time(T0.plusSeconds(30)).intervalSeconds(30).build());
        cost.send(oneJob("GPU-u", "eval").toBuilder().time(T0.plusSeconds(60)).intervalSeconds(30).build());
        // and a sample of another GPU long after, which closes the hour
        closeTheHour();

        // Then its minute names the latest job, with no parts
        GpuUsage minute = cost.usage.readValuesToList().stream().filter(w -> w.gpuUuid().equals("GPU-u")
                && w.closed() && w.windowStart().equals(T0)).findFirst().orElseThrow();
        assertThat(minute.jobId()).isEqualTo("eval");
        assertThat(minute.jobParts()).isEmpty();
        // and its hour gives each job the half its own sample covered, by hand: 30 s at 4.5 USD/h each
        GpuHour hour = latestHourOf("GPU-u");
        assertThat(hour.jobParts()).extracting(JobPart::jobId, JobPart::gpuSeconds)
                .containsExactlyInAnyOrder(tuple("train", 30.0), tuple("eval", 30.0));
        assertThat(hour.jobParts()).allSatisfy(part -> assertThat(part.cost()).isCloseTo(30 * GPU_PER_HOUR / 3600,
                within(1e-12)));
    }

    @Test
    void shouldNameTheNodesTeamInASharedGpusHourForWhatNoJobTook() {
        // Given a minute of a GPU of the platform team's node, shared by two jobs that leave a fifth of it
        sharedMinuteOf("GPU-s", T0);
        // and a sample of another GPU long after, which closes the hour
        closeTheHour();

        // Then its hour names the node's team as the one that takes the rest: a fifth of the minute, by hand
        GpuHour hour = latestHourOf("GPU-s");
        assertThat(hour.team()).isEqualTo("platform");
        assertThat(hour.unallocatedCost()).isCloseTo(0.2 * GPU_MINUTE, within(1e-12));
    }

    @Test
    void shouldNameTheTeamOfTheHoursOwnLastMinuteNotOfTheNextHoursFirstSample() {
        // Given the last minute of an hour of a GPU of the platform team's node, shared by two jobs that leave a
        // fifth of it, and the GPU's next sample, of the next hour, of job train of team research alone
        sharedMinuteOf("GPU-s", T0.plus(Duration.ofMinutes(59)));
        cost.send(tenSeconds(oneJob("GPU-s", "train"), T0.plus(Duration.ofMinutes(60)).plusSeconds(10)));
        // and a sample of another GPU long after, which closes the hour
        closeTheHour();

        // Then the hour names the node's team, which took its rest, not research, whose sample came after it
        GpuHour hour = latestHourOf("GPU-s");
        assertThat(hour.team()).isEqualTo("platform");
        assertThat(hour.unallocatedCost()).isCloseTo(0.2 * GPU_MINUTE, within(1e-12));
    }

    @Test
    void shouldNameTheNodesTeamForTheRestOfAnHourWhoseLastMinuteWasOneJobs() {
        // Given an hour of a GPU of the platform team's node shared by two jobs that leave a fifth of it in its minute
        // 58, then job train of team research alone on it in its minute 59
        sharedMinuteOf("GPU-s", T0.plus(Duration.ofMinutes(58)));
        for (int i = 1; i <= 6; i++) {
            cost.send(tenSeconds(oneJob("GPU-s", "train"), T0.plus(Duration.ofMinutes(59)).plusSeconds(10L * i)));
        }
        closeTheHour();

        // Then the hour names the node's team for its rest, as the roll-ups gave it, not research, whose job had the
        // hour's last minute and took all of it as its part
        GpuHour hour = latestHourOf("GPU-s");
        assertThat(hour.team()).isEqualTo("platform");
        assertThat(hour.unallocatedCost()).isCloseTo(0.2 * GPU_MINUTE, within(1e-12));
        assertThat(hour.jobParts()).extracting(JobPart::jobId, JobPart::team).contains(tuple("train", "research"));
    }

    @Test
    void shouldCountTheGpuInTheNodesTeamOnlyForARestItTook() {
        // Given three GPUs of the platform team's node in one minute: GPU-s split evenly between the two jobs
        // throughout, nothing left; GPU-t split so for its first half, then half and 30%, a fifth left; GPU-v
        // split among the same two jobs throughout, by SM: half and half, then half and 30% in its last sample
        List<Allocation> even = List.of(new Allocation("infer-a", "serving", 0.5, SharePolicy.EVEN),
                new Allocation("notebook-b", "research", 0.5, SharePolicy.EVEN));
        List<Allocation> halves = List.of(new Allocation("infer-a", "serving", 0.5, SharePolicy.SM),
                new Allocation("notebook-b", "research", 0.5, SharePolicy.SM));
        for (int i = 1; i <= 6; i++) {
            cost.send(tenSeconds(shared("GPU-s", even), T0.plusSeconds(10L * i)));
            cost.send(tenSeconds(shared("GPU-t", i <= 3 ? even : INFERENCE_AND_NOTEBOOK), T0.plusSeconds(10L * i)));
            cost.send(tenSeconds(shared("GPU-v", i <= 5 ? halves : INFERENCE_AND_NOTEBOOK),
                    T0.plusSeconds(10L * i)));
        }
        cost.send(tenSeconds(oneJob("GPU-u", "train"), T0.plusSeconds(300)));
        cost.advance(Duration.ofSeconds(30));
        cost.sendUpdates();

        // Then the jobs' teams count all three GPUs, the pool all three, and the node's team only GPU-t and GPU-v,
        // which left a rest
        Map<String, UsageRollup> rollups = latestRollups();
        assertThat(rollups.get("team|serving").gpus()).isEqualTo(3);
        assertThat(rollups.get(POOL).gpus()).isEqualTo(3);
        assertThat(rollups.get("team|platform").gpus()).isEqualTo(2);
        // the rest: a fifth of GPU-t's last 30 s and of GPU-v's last 10 s
        assertThat(rollups.get("team|platform").totals().cost()).isCloseTo(0.2 * 40 * GPU_MINUTE / 60, within(1e-12));
    }

    @Test
    void shouldCountAGpuSharedByMoreJobsThanAMinuteCountsInItsPoolAndTeamsAndItsFirstJobs() {
        // Given a GPU shared for a minute by 300 jobs of the serving team, 0.3% each: 90% of it, a tenth left
        List<Allocation> crowd = new ArrayList<>();
        for (int j = 0; j < 300; j++) {
            crowd.add(new Allocation("job-" + j, "serving", 0.003, SharePolicy.SM));
        }
        sendMinuteOf(shared("GPU-s", crowd));
        cost.send(tenSeconds(oneJob("GPU-u", "train"), T0.plusSeconds(300)));
        cost.advance(Duration.ofSeconds(30));
        cost.sendUpdates();

        // Then the pool and both teams count the GPU once, and the pool's rate is the whole GPU's
        Map<String, UsageRollup> rollups = latestRollups();
        assertThat(rollups.get(POOL).gpus()).isEqualTo(1);
        assertThat(rollups.get(POOL).costPerHour()).isCloseTo(GPU_PER_HOUR, within(1e-9));
        assertThat(rollups.get("team|serving").gpus()).isEqualTo(1);
        assertThat(rollups.get("team|platform").gpus()).isEqualTo(1);
        // and the first jobs count it too: 255 keys a minute, less the two teams and the pool
        assertThat(rollups.get("job|job-0").gpus()).isEqualTo(1);
        assertThat(rollups.get("job|job-251").gpus()).isEqualTo(1);
        assertThat(rollups.get("job|job-252").gpus()).isZero();
        // while every job is still charged its share: 0.3% of a GPU's minute
        assertThat(rollups.get("job|job-299").totals().cost()).isCloseTo(0.003 * GPU_MINUTE, within(1e-12));
    }

    @Test
    void shouldChargeNoJobForASharedGpusSampleThatListsNone() {
        // Given a GPU whose samples say it is shared but list no job (a job really named so, or a writer's slip)
        sendMinuteOf(shared("GPU-s", List.of()));
        cost.send(tenSeconds(oneJob("GPU-u", "train"), T0.plusSeconds(300)));
        cost.advance(Duration.ofSeconds(30));
        cost.sendUpdates();

        // Then no job took any of it: its team and pool have it all, as its window says
        Map<String, UsageRollup> rollups = latestRollups();
        assertThat(rollups).doesNotContainKey("job|shared");
        for (String key : List.of("team|platform", POOL)) {
            assertThat(rollups.get(key).totals().cost()).as(key).isCloseTo(GPU_MINUTE, within(1e-12));
            assertThat(rollups.get(key).totals().unallocatedCost()).as(key).isCloseTo(GPU_MINUTE, within(1e-12));
        }
        GpuUsage window = latestWindow("GPU-s");
        assertThat(window.sharedByJobs()).isTrue();
        assertThat(window.jobParts()).isEmpty();
        assertThat(window.totals().unallocatedCost()).isCloseTo(GPU_MINUTE, within(1e-12));
    }

    @Test
    void shouldGiveNoJobAPartOfASampleThatListsNoneInAMinuteThatWasShared() {
        // Given a minute whose first half the GPU is shared (the inference job half, the notebook 30%) and whose
        // second half its samples say it is shared but list no job (a writer that saw no process then)
        for (int i = 1; i <= 6; i++) {
            cost.send(tenSeconds(shared("GPU-s", i <= 3 ? INFERENCE_AND_NOTEBOOK : List.of()),
                    T0.plusSeconds(10L * i)));
        }
        cost.send(tenSeconds(oneJob("GPU-u", "train"), T0.plusSeconds(300)));
        cost.advance(Duration.ofSeconds(30));
        cost.sendUpdates();

        // Then its window's parts are the two jobs' only, by hand 0.5 and 0.3 of the first half; the rest, 0.2 of the
        // first half and all the second, is unallocated: parts and rest make the minute, no job named "shared"
        GpuUsage window = latestWindow("GPU-s");
        assertThat(window.jobParts()).extracting(JobPart::jobId).containsExactly("infer-a", "notebook-b");
        assertThat(window.jobParts().get(0).cost()).isCloseTo(0.25 * GPU_MINUTE, within(1e-12));
        assertThat(window.jobParts().get(1).cost()).isCloseTo(0.15 * GPU_MINUTE, within(1e-12));
        assertThat(window.totals().unallocatedCost()).isCloseTo(0.6 * GPU_MINUTE, within(1e-12));
        double parts = window.jobParts().stream().mapToDouble(JobPart::cost).sum();
        assertThat(parts + window.totals().unallocatedCost()).isCloseTo(window.cost(), within(1e-15));
        assertThat(latestRollups()).doesNotContainKey("job|shared");
    }

    @Test
    void shouldKeepASampleThatListsNoneOutOfEveryJobsPartWhereverItFallsInTheMinute() {
        // Given three GPUs' minutes, each half of samples that say the GPU is shared but list no job: before the
        // shared samples of GPU-1, before the inference job's own samples of GPU-2, after the training job's of GPU-3
        List<Allocation> none = List.of();
        for (int i = 1; i <= 6; i++) {
            Instant end = T0.plusSeconds(10L * i);
            cost.send(tenSeconds(shared("GPU-1", i <= 3 ? none : INFERENCE_AND_NOTEBOOK), end));
            cost.send(tenSeconds(i <= 3 ? shared("GPU-2", none) : oneJob("GPU-2", "infer-a"), end));
            cost.send(tenSeconds(i <= 3 ? oneJob("GPU-3", "train") : shared("GPU-3", none), end));
        }
        cost.send(tenSeconds(oneJob("GPU-u", "other"), T0.plusSeconds(300)));
        cost.advance(Duration.ofSeconds(30));
        cost.sendUpdates();

        // Then by hand: GPU-1's inference job took 0.5 of its second half, the notebook 0.3, the rest 0.2 of it and
        // all the first; GPU-2's inference job its second half, GPU-3's training job its first; the rest of each is
        // unallocated, no job is named "shared", and the parts and the rest make each GPU's minute
        Map<String, List<Double>> expected = Map.of(
                "GPU-1", List.of(0.25, 0.15, 0.6), "GPU-2", List.of(0.5, 0.5), "GPU-3", List.of(0.5, 0.5));
        Map<String, GpuUsage> closed = new LinkedHashMap<>();
        cost.usage.readValuesToList().stream().filter(GpuUsage::closed).forEach(w -> closed.put(w.gpuUuid(), w));
        expected.forEach((gpu, figures) -> {
            GpuUsage window = closed.get(gpu);
            assertThat(window.jobParts()).as(gpu).extracting(JobPart::jobId).doesNotContain(TelemetrySample.SHARED_JOB)
                    .hasSize(figures.size() - 1);
            for (int i = 0; i < figures.size() - 1; i++) {
                assertThat(window.jobParts().get(i).cost()).as(gpu).isCloseTo(figures.get(i) * GPU_MINUTE,
                        within(1e-12));
            }
            assertThat(window.totals().unallocatedCost()).as(gpu)
                    .isCloseTo(figures.get(figures.size() - 1) * GPU_MINUTE, within(1e-12));
            double parts = window.jobParts().stream().mapToDouble(JobPart::cost).sum();
            assertThat(parts + window.totals().unallocatedCost()).as(gpu).isCloseTo(window.cost(), within(1e-15));
        });
        // And the jobs' roll-ups took what their parts say: the inference job 0.25 + 0.5 of a GPU minute
        Map<String, UsageRollup> rollups = latestRollups();
        assertThat(rollups).doesNotContainKey("job|shared");
        assertThat(rollups.get("job|infer-a").totals().cost()).isCloseTo(0.75 * GPU_MINUTE, within(1e-12));
        assertThat(rollups.get("job|train").totals().cost()).isCloseTo(0.5 * GPU_MINUTE, within(1e-12));
    }

    @Test
    void shouldSetEachJobsShareOfTheCostAgainstItsOwnWork() {
        // Given the shared GPU's minute, and the inference job's 1M requests in it
        sendMinuteOf(shared("GPU-s", INFERENCE_AND_NOTEBOOK));
        cost.report(new JobProgress("infer-a", "serving", "node-s", "i-node-s", List.of("GPU-s"), T0.plusSeconds(60),
                60, 1_000_000, "requests", 600, 60.0, null, null, null));

        // Then its economics hold its share of the cost, over its own work
        Map<String, JobEconomics> economics = latestEconomics();
        JobEconomics inference = economics.get("infer-a");
        assertThat(inference.cost()).isCloseTo(0.5 * GPU_MINUTE, within(1e-12));
        assertThat(inference.gpuSeconds()).isCloseTo(30, within(1e-9));
        assertThat(inference.sharedGpuSeconds()).isCloseTo(30, within(1e-9));
        assertThat(inference.costPerHour()).isCloseTo(0.5 * GPU_PER_HOUR, within(1e-9));
        assertThat(inference.costPerMillionUnits().get("requests")).isCloseTo(0.5 * GPU_MINUTE, within(1e-12));
        assertThat(inference.unitsPerGpuSecond().get("requests")).isCloseTo(1_000_000.0 / 30, within(1e-6));
        JobEconomics notebook = economics.get("notebook-b");
        assertThat(notebook.cost()).isCloseTo(0.3 * GPU_MINUTE, within(1e-12));
        assertThat(notebook.throughputReported()).isFalse();
        assertThat(economics).doesNotContainKey("shared");
    }

    @Test
    void shouldChargeAGpuOfOneJobAsBeforeBesideASharedOne() {
        // Given a GPU of one job, as every sample before shares were sent, beside a shared GPU
        sendMinuteOf(shared("GPU-s", INFERENCE_AND_NOTEBOOK), oneJob("GPU-u", "train"));

        // Then the job has the whole GPU, nothing shared, nothing unallocated
        Map<String, UsageRollup> rollups = latestRollups();
        UsageRollup train = rollups.get("job|train");
        assertThat(train.totals().cost()).isCloseTo(GPU_MINUTE, within(1e-12));
        assertThat(train.totals().gpuSeconds()).isEqualTo(60);
        assertThat(train.totals().sharedGpuSeconds()).isZero();
        assertThat(train.gpuEquivalents()).isEqualTo(1);
        // And its window says nothing of sharing
        GpuUsage window = latestWindow("GPU-u");
        assertThat(window.sharingJobs()).isZero();
        assertThat(window.jobParts()).isEmpty();
        assertThat(window.measuredBy()).isNull();
        assertThat(window.totals().unallocatedCost()).isZero();
        assertThat(Json.writeString(window)).doesNotContain("sharingJobs").doesNotContain("measuredBy")
                .doesNotContain("jobParts");
        // And its team has it beside the notebook's share; the pool both GPUs, only the shared one's rest unallocated
        assertThat(rollups.get("team|research").totals().cost()).isCloseTo(1.3 * GPU_MINUTE, within(1e-12));
        assertThat(rollups.get(POOL).totals().cost()).isCloseTo(2 * GPU_MINUTE, within(1e-12));
        assertThat(rollups.get(POOL).totals().unallocatedCost()).isCloseTo(0.2 * GPU_MINUTE, within(1e-12));
        assertThat(rollups.get(POOL).gpus()).isEqualTo(2);
    }

    @Test
    void shouldChargeAJobWhoseShareChangesBySampleForEachSamplesShare() {
        // Given a GPU the inference job uses all of for half a minute and a quarter of for the other half
        for (int i = 1; i <= 6; i++) {
            double share = i <= 3 ? 1.0 : 0.25;
            cost.send(shared("GPU-s", List.of(new Allocation("infer-a", "serving", share, SharePolicy.MEMORY)))
                    .toBuilder().time(T0.plusSeconds(10L * i)).intervalSeconds(10).build());
        }

        // Then it is charged 30 s of the whole GPU and 30 s of a quarter, the rest stays unallocated
        Map<String, UsageRollup> rollups = latestRollups();
        assertThat(rollups.get("job|infer-a").totals().cost()).isCloseTo(0.625 * GPU_MINUTE, within(1e-12));
        assertThat(rollups.get(POOL).totals().unallocatedCost()).isCloseTo(0.375 * GPU_MINUTE, within(1e-12));
        GpuUsage window = latestWindow("GPU-s");
        assertThat(window.measuredBy()).isEqualTo(SharePolicy.MEMORY);
        assertThat(window.sharingJobs()).isEqualTo(1);
    }

    @Test
    void shouldChargeAnUnmonitoredGapOfASharedGpuToItsTeamAndPoolNotToAJob() {
        // Given a shared GPU sampled at the start of a minute and again two minutes later, silent between
        cost.send(tenSeconds(shared("GPU-s", INFERENCE_AND_NOTEBOOK), T0.plusSeconds(10)));
        cost.send(tenSeconds(shared("GPU-s", INFERENCE_AND_NOTEBOOK), T0.plusSeconds(130)));
        // When the minutes close
        cost.send(tenSeconds(oneJob("GPU-u", "train"), T0.plusSeconds(400)));
        cost.advance(Duration.ofSeconds(30));
        cost.sendUpdates();

        // Then the gap's estimated cost is the pool's and the node's team's, and no job is named "shared"
        List<UsageRollup> all = cost.rollups.readValuesToList();
        assertThat(all).noneMatch(rollup -> rollup.key().equals("job|shared"));
        double poolUnmonitored = all.stream().filter(rollup -> rollup.key().equals(POOL)
                && rollup.windowEnd().equals(rollup.windowStart().plusSeconds(60)))
                .collect(Collectors.toMap(UsageRollup::windowStart, r -> r, (a, b) -> b))
                .values().stream().mapToDouble(rollup -> rollup.totals().unmonitoredCost()).sum();
        assertThat(poolUnmonitored).isCloseTo(110 * GPU_PER_HOUR / 3600, within(1e-9));
    }

    @Test
    void shouldChargeTheGapOfAMinuteThatWasSharedAndThenOneJobsToNoJob() {
        // Given a GPU shared for its first 10 s, then train's alone for 10 s, silent for 40 s until the next minute
        cost.send(tenSeconds(shared("GPU-s", INFERENCE_AND_NOTEBOOK), T0.plusSeconds(10)));
        cost.send(tenSeconds(oneJob("GPU-s", "train"), T0.plusSeconds(20)));
        cost.send(tenSeconds(oneJob("GPU-s", "train"), T0.plusSeconds(70)));
        // When the minutes close
        cost.send(tenSeconds(oneJob("GPU-u", "other"), T0.plusSeconds(400)));
        cost.advance(Duration.ofSeconds(30));
        cost.sendUpdates();

        // Then the 40 s nobody observed are the node's team's and the pool's, as the window's own record says, not
        // train's nor its team's
        Map<String, UsageRollup> minute = latestRollups();
        double gapCost = 40 * GPU_PER_HOUR / 3600;
        assertThat(minute.get(POOL).totals().unmonitoredCost()).isCloseTo(gapCost, within(1e-9));
        assertThat(minute.get("team|platform").totals().unmonitoredCost()).isCloseTo(gapCost, within(1e-9));
        assertThat(minute.get("team|research").totals().unmonitoredCost()).isZero();
        assertThat(minute.get("job|train").totals().unmonitoredCost()).isZero();
        assertThat(minute.get("job|train").totals().cost()).isCloseTo(10 * GPU_PER_HOUR / 3600, within(1e-9));
        GpuUsage window = latestWindow("GPU-s");
        assertThat(window.jobId()).isEqualTo(TelemetrySample.SHARED_JOB);
        assertThat(window.team()).isEqualTo("platform");
        assertThat(window.totals().unmonitoredCost()).isCloseTo(gapCost, within(1e-9));
        assertThat(window.jobParts()).extracting(JobPart::jobId).contains("train", "infer-a", "notebook-b");
    }

    @Test
    void shouldLeaveTheRestOfAMinuteSharedAndThenOneJobsWithTheNodesTeamInTheWindowAsInTheRollups() {
        // Given a minute whose first 30 s the GPU of the platform team's node is shared (the inference job half,
        // the notebook 30%), and whose last 30 s train, of the research team, has it alone
        for (int i = 1; i <= 6; i++) {
            cost.send(tenSeconds(i <= 3 ? shared("GPU-s", INFERENCE_AND_NOTEBOOK) : oneJob("GPU-s", "train"),
                    T0.plusSeconds(10L * i)));
        }
        // When the minute closes
        cost.send(tenSeconds(oneJob("GPU-u", "other"), T0.plusSeconds(400)));
        cost.advance(Duration.ofSeconds(30));
        cost.sendUpdates();

        // Then the roll-ups give the rest, by hand 0.2 × 30 s, to the node's team, and train its 30 s alone
        Map<String, UsageRollup> minute = latestRollups();
        double rest = 0.2 * 30 * GPU_PER_HOUR / 3600;
        assertThat(minute.get("team|platform").totals().cost()).isCloseTo(rest, within(1e-12));
        assertThat(minute.get("team|platform").totals().unallocatedCost()).isCloseTo(rest, within(1e-12));
        assertThat(minute.get("job|train").totals().cost()).isCloseTo(30 * GPU_PER_HOUR / 3600, within(1e-12));
        // And the window says the same of whose the rest is: readers (the alert service's team counters, the fleet
        // view) give its rest and idle cost to the team it names, which was train's before
        GpuUsage window = latestWindow("GPU-s");
        assertThat(window.closed()).isTrue();
        assertThat(window.jobId()).isEqualTo(TelemetrySample.SHARED_JOB);
        assertThat(window.team()).isEqualTo("platform");
        assertThat(window.totals().unallocatedCost()).isCloseTo(rest, within(1e-12));
        JobPart train = window.jobParts().stream().filter(part -> part.jobId().equals("train")).findFirst()
                .orElseThrow();
        assertThat(train.team()).isEqualTo("research");
        assertThat(train.cost()).isCloseTo(30 * GPU_PER_HOUR / 3600, within(1e-12));
    }

    private void sendMinuteOf(TelemetrySample... gpus) {
        for (int i = 1; i <= 6; i++) {
            for (TelemetrySample gpu : gpus) {
                cost.send(tenSeconds(gpu, T0.plusSeconds(10L * i)));
            }
        }
    }

    /** Six 10 s samples of {@code gpu} shared by {@link #INFERENCE_AND_NOTEBOOK}: the minute from {@code start}. */
    private void sharedMinuteOf(String gpu, Instant start) {
        for (int i = 1; i <= 6; i++) {
            cost.send(tenSeconds(shared(gpu, INFERENCE_AND_NOTEBOOK), start.plusSeconds(10L * i)));
        }
    }

    /** Sends a sample of another GPU long after (past the hour's end, the maximum gap and grace): the hour closes. */
    private void closeTheHour() {
        cost.send(tenSeconds(oneJob("GPU-x", "other"), T0.plus(Duration.ofMinutes(80))));
        cost.advance(Duration.ofSeconds(30));
        cost.sendUpdates();
    }

    /** The latest record of {@code gpu}'s hour from {@code T0}. */
    private GpuHour latestHourOf(String gpu) {
        return cost.hours.readValuesToList().stream().filter(h -> h.gpuUuid().equals(gpu)
                && h.windowStart().equals(T0)).reduce((first, second) -> second).orElseThrow();
    }

    private static TelemetrySample tenSeconds(TelemetrySample sample, Instant end) {
        return sample.toBuilder().time(end).intervalSeconds(10).build();
    }

    /** A sample of a GPU of the platform team's node, shared by {@code allocations}. */
    private static TelemetrySample shared(String gpu, List<Allocation> allocations) {
        return TelemetrySample.builder().gpuUuid(gpu).gpuModel("A100-40GB")
                .placement(new Placement("node-s", "i-node-s", "p4d.24xlarge", "aws", "us-east-1",
                        Lifecycle.ON_DEMAND))
                .jobId(TelemetrySample.SHARED_JOB).team("platform").time(T0).intervalSeconds(10).smActive(0.6)
                .powerWatts(300.0).allocations(allocations).build();
    }

    private static TelemetrySample oneJob(String gpu, String job) {
        return TelemetrySample.builder().gpuUuid(gpu).gpuModel("A100-40GB")
                .placement(new Placement("node-s", "i-node-s", "p4d.24xlarge", "aws", "us-east-1",
                        Lifecycle.ON_DEMAND))
                .jobId(job).team("research").time(T0).intervalSeconds(10).smActive(0.6).powerWatts(300.0).build();
    }

    /** The latest roll-up of each key's minute {@code T0}. */
    private Map<String, UsageRollup> latestRollups() {
        Map<String, UsageRollup> latest = new LinkedHashMap<>();
        for (TestRecord<String, UsageRollup> record : cost.rollups.readRecordsToList()) {
            UsageRollup rollup = record.value();
            if (rollup.windowStart().equals(T0) && rollup.windowEnd().equals(T0.plusSeconds(60))) {
                latest.put(record.key(), rollup);
            }
        }
        return latest;
    }

    private Map<String, JobEconomics> latestEconomics() {
        Map<String, JobEconomics> latest = new LinkedHashMap<>();
        for (TestRecord<String, JobEconomics> record : cost.economics.readRecordsToList()) {
            if (record.value().windowStart().equals(T0)) {
                latest.put(record.key(), record.value());
            }
        }
        return latest;
    }

    private GpuUsage latestWindow(String gpu) {
        GpuUsage latest = null;
        for (TestRecord<String, GpuUsage> record : cost.usage.readRecordsToList()) {
            if (record.key().equals(gpu) && record.value().windowStart().equals(T0)) {
                latest = record.value();
            }
        }
        return latest;
    }
}
