package io.gpuledger.alerts.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gpuledger.alerts.UsageWindows;
import io.gpuledger.model.CarbonIntensity;
import io.gpuledger.model.GpuUsage;
import io.gpuledger.model.JobPart;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Placement;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.Reading;
import io.gpuledger.model.ReconciliationRatio;
import io.gpuledger.model.TelemetrySample;
import io.gpuledger.model.UsageRollup;
import io.gpuledger.model.UsageTotals;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheus.PrometheusConfig;
import io.micrometer.prometheus.PrometheusMeterRegistry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class FleetMetricsTest {

    private static final Instant T0 = Instant.parse("2026-11-30T09:00:00Z");

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final FleetMetrics metrics = new FleetMetrics(registry, 2, Duration.ofMinutes(5));

    @Test
    void shouldShowTheLatestWindowAndNotMoveBackForALateOne() {
        metrics.record(window("GPU-1", "job-a", T0.plusSeconds(60), 4.0, 0.8, false), T0);
        metrics.record(window("GPU-1", "job-a", T0, 2.0, 0.1, false), T0);

        assertThat(gauge("gpuledger_gpu_cost_per_hour", "GPU-1")).isCloseTo(4.0, within(1e-9));
        assertThat(gauge("gpuledger_gpu_sm_active_ratio", "GPU-1")).isCloseTo(0.8, within(1e-9));
    }

    static List<Reading> readingsWithGauges() {
        return Arrays.stream(Reading.values()).filter(reading -> reading.gpuGauge() != null).toList();
    }

    @ParameterizedTest
    @MethodSource("readingsWithGauges")
    void shouldShowEachKeptReadingsMeanOnItsGauge(Reading reading) {
        // Given a GPU window whose samples gave the reading 0.25 for 20 s and 0.75 for 40 s (a ratio fits every range)
        TelemetrySample.Builder sample = TelemetrySample.builder().gpuUuid("GPU-9").placement(PLACE).jobId("job-a")
                .smActive(0.5);
        TelemetrySample first = sample.time(T0.plusSeconds(20)).intervalSeconds(20).reading(reading, 0.25).build();
        TelemetrySample second = sample.time(T0.plusSeconds(60)).intervalSeconds(40).reading(reading, 0.75).build();
        GpuUsage usage = GpuUsage.empty(first, T0, T0.plusSeconds(60), "USD").add(first, 4.0).add(second, 4.0);

        // When it is recorded
        metrics.record(usage, T0);

        // Then the reading's gauge shows the time-weighted mean: (0.25 × 20 + 0.75 × 40) / 60
        assertThat(gauge(reading.gpuGauge(), "GPU-9")).isCloseTo(35.0 / 60, within(1e-9));
    }

    @Test
    void shouldForgetTheTeamsOfJobsWhoseSeriesWereRemoved() {
        // Given 50 notebooks that came to GPU-1 one after another, a minute each, then nothing for five minutes
        FleetMetrics many = new FleetMetrics(registry, 1_000, Duration.ofMinutes(5));
        for (int n = 0; n < 50; n++) {
            many.record(window("GPU-1", "notebook-" + n, T0.plusSeconds(60L * n), 1.0, 0.1, true), T0);
        }
        assertThat(many.jobsWithTeams()).isEqualTo(50);

        // When their series are swept as stale
        many.sweep(T0.plusSeconds(60L * 50 + 301));

        // Then none of their teams is kept either
        assertThat(many.jobsWithTeams()).isZero();
    }

    @Test
    void shouldRemoveTheSeriesOfAGpuThatFellSilentOrChangedJob() {
        // Given two GPUs reporting
        metrics.record(window("GPU-1", "job-a", T0, 4.0, 0.8, true), T0);
        metrics.record(window("GPU-2", "job-a", T0, 4.0, 0.8, true), T0);

        // When GPU-1 moves to job b, and GPU-2 says nothing for more than five minutes
        metrics.record(window("GPU-1", "job-b", T0.plusSeconds(300), 4.0, 0.8, false), T0.plusSeconds(300));
        int removed = metrics.sweep(T0.plusSeconds(301));

        // Then GPU-1 has only its job-b series, and GPU-2 none at all (nor its closed-window counter)
        assertThat(registry.find("gpuledger_gpu_cost_per_hour").tag("gpu", "GPU-1").gauges())
                .extracting(g -> g.getId().getTag("job_id")).containsExactly("job-b");
        assertThat(registry.find("gpuledger_gpu_cost_per_hour").tag("gpu", "GPU-2").gauges()).isEmpty();
        assertThat(registry.find("gpuledger_gpu_energy_joules").tag("gpu", "GPU-2").counters()).isEmpty();
        assertThat(removed).isGreaterThanOrEqualTo(1);
    }

    @Test
    void shouldCountTheCostOfAGpuPastTheSeriesLimitInItsJobTeamAndPool() {
        // Given three GPUs of job-a at 6 USD/h, one closed minute each, where only two GPUs get series of their own
        for (String gpu : List.of("GPU-1", "GPU-2", "GPU-3")) {
            metrics.record(window(gpu, "job-a", T0, 6.0, 0.5, true), T0.plusSeconds(61));
        }

        // Then the third has no series, gauge or counter, yet its job, team and pool spent all three minutes:
        // 3 x 6 / 60 = 0.3 USD
        assertThat(registry.find("gpuledger_gpu_cost_per_hour").gauges()).hasSize(2);
        assertThat(registry.find("gpuledger_gpu_energy_joules").counters()).hasSize(2);
        assertThat(registry.find("gpuledger_gpu_unpriced_seconds").counters()).hasSize(2);
        assertThat(registry.getMeters()).noneMatch(meter -> "GPU-3".equals(meter.getId().getTag("gpu")));
        assertThat(registry.find("gpuledger_job_cost").tag("job_id", "job-a").counter().count())
                .isCloseTo(0.3, within(1e-9));
        assertThat(registry.find("gpuledger_team_cost").tag("team", "red").counter().count())
                .isCloseTo(0.3, within(1e-9));
        assertThat(registry.find("gpuledger_pool_cost").counter().count()).isCloseTo(0.3, within(1e-9));
    }

    @Test
    void shouldExportNoMoreThingsThanTheCapAndCountTheRest() {
        metrics.record(window("GPU-1", "job-a", T0, 1, 0.5, false), T0);
        metrics.record(window("GPU-2", "job-a", T0, 1, 0.5, false), T0);
        metrics.record(window("GPU-3", "job-a", T0, 1, 0.5, false), T0);

        assertThat(registry.find("gpuledger_gpu_cost_per_hour").gauges()).hasSize(2);
        assertThat(registry.find("gpuledger_metric_series_dropped").tag("family", "gpu").counter().count())
                .isEqualTo(1);
    }

    @Test
    void shouldServeEachGpusSeriesInOneShardAloneWhenTheyAreServedApart() {
        // Given per-GPU series served apart, in three shards
        SimpleMeterRegistry gpuRegistry = new SimpleMeterRegistry();
        FleetMetrics apart = new FleetMetrics(registry, gpuRegistry, 100, Duration.ofMinutes(5));
        List<String> gpus = List.of("GPU-1", "GPU-2", "GPU-3", "GPU-4", "GPU-5", "GPU-6", "GPU-7");
        for (String gpu : gpus) {
            apart.record(window(gpu, "job-a", T0, 2.0, 0.5, true), T0);
        }

        // When each shard is asked for its series
        List<List<String>> shards = new ArrayList<>();
        for (int shard = 0; shard < 3; shard++) {
            shards.add(apart.gpuShard(shard, 3).stream()
                    .filter(meter -> meter.getId().getName().equals("gpuledger_gpu_cost_per_hour"))
                    .map(meter -> meter.getId().getTag("gpu")).toList());
        }

        // Then every GPU is in exactly one shard, the one its UUID's hash modulo 3 names
        assertThat(shards.stream().flatMap(List::stream).toList()).containsExactlyInAnyOrderElementsOf(gpus);
        for (String gpu : gpus) {
            assertThat(shards.get(Math.floorMod(gpu.hashCode(), 3))).as(gpu).contains(gpu);
        }
        // And the registry scraped whole holds none of them, only the count of those dropped, and the rest
        assertThat(registry.find("gpuledger_gpu_cost_per_hour").gauges()).isEmpty();
        assertThat(registry.find("gpuledger_metric_series_dropped").tag("family", "gpu").counter()).isNotNull();
        assertThat(registry.find("gpuledger_pool_cost").counters()).isNotEmpty();
    }

    @Test
    void shouldShowAJobsSpendAsTheSumOfItsGpus() {
        // Given a job minute of 3 GPUs at 2 USD per GPU-hour each
        GpuUsage one = window("GPU-1", "job-a", T0, 2.0, 0.5, true);
        UsageRollup minute = new UsageRollup(UsageRollup.Dimension.JOB, "job-a", T0, T0.plusSeconds(60), "USD", 3,
                null, one.totals().plus(one.totals()).plus(one.totals()));

        metrics.record(minute, T0);

        // Then the job spends 6 USD per hour on 3 GPUs
        assertThat(registry.get("gpuledger_job_cost_per_hour").tag("job_id", "job-a").gauge().value())
                .isCloseTo(6.0, within(1e-9));
        assertThat(registry.get("gpuledger_job_gpus").tag("job_id", "job-a").gauge().value()).isEqualTo(3);
    }

    @Test
    void shouldShowWhatAJobOnMigSlicesAndEachSliceSpendPerHourOfWallTime() {
        // Given a job on seven 1g.10gb slices (a seventh each) of one A100 at 10 USD per GPU-hour, for a
        // minute: the slices' windows, and the job's and the pool's minutes that the engine sums from them
        PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        FleetMetrics fleet = new FleetMetrics(prometheus, 100, Duration.ofMinutes(5));
        Placement a100 = new Placement("node-1", "i-1", "a2-highgpu-1g", "gcp", "us-central1", Lifecycle.ON_DEMAND);
        UsageTotals sum = UsageTotals.ZERO;
        for (int slice = 0; slice < 7; slice++) {
            GpuUsage window = UsageWindows.seventhSliceMinute(a100, "MIG-" + slice, "job-mig", "red", T0, 10.0, 0.5,
                    true);
            fleet.record(window, T0);
            sum = sum.plus(window.totals());
        }
        double sevenSevenths = 7 * (1.0 / 7);
        fleet.record(new UsageRollup(UsageRollup.Dimension.JOB, "job-mig", T0, T0.plusSeconds(60), "USD", 7,
                sevenSevenths, sum), T0);
        fleet.record(new UsageRollup(UsageRollup.Dimension.POOL, "gcp|us-central1|a2-highgpu-1g|on-demand", T0,
                T0.plusSeconds(60), "USD", 7, sevenSevenths, sum), T0);

        // When Prometheus scrapes the service
        String scraped = prometheus.scrape();

        // Then each slice spends 10 / 7 = 1.428571 USD an hour; the job and the pool 7 x 1.428571 = 10,
        // on 7 slices that make 7 x 1/7 = 1 GPU
        assertThat(scraped(scraped, "gpuledger_gpu_cost_per_hour", "gpu=\"MIG-3\"")).isCloseTo(1.428571,
                within(1e-6));
        assertThat(scraped(scraped, "gpuledger_job_cost_per_hour", "job_id=\"job-mig\"")).isCloseTo(10.0,
                within(1e-9));
        assertThat(scraped(scraped, "gpuledger_pool_cost_per_hour", "instance_type=\"a2-highgpu-1g\""))
                .isCloseTo(10.0, within(1e-9));
        assertThat(scraped(scraped, "gpuledger_job_gpus", "job_id=\"job-mig\"")).isEqualTo(7.0);
        assertThat(scraped(scraped, "gpuledger_job_gpu_equivalents", "job_id=\"job-mig\"")).isCloseTo(1.0,
                within(1e-9));
        assertThat(scraped(scraped, "gpuledger_pool_gpu_equivalents", "instance_type=\"a2-highgpu-1g\""))
                .isCloseTo(1.0, within(1e-9));
    }

    @Test
    void shouldShowTheIdleRateOfAnIdleSliceAndOfItsJobPerHourOfWallTime() {
        // Given a job on one idle 1g.10gb slice (a seventh) of an A100 at 14 USD per GPU-hour, for a minute
        PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        FleetMetrics fleet = new FleetMetrics(prometheus, 100, Duration.ofMinutes(5));
        Placement a100 = new Placement("node-1", "i-1", "a2-highgpu-1g", "gcp", "us-central1", Lifecycle.ON_DEMAND);
        GpuUsage idle = UsageWindows.seventhSliceMinute(a100, "MIG-0", "job-idle", "red", T0, 14.0, 0.0, true);
        fleet.record(idle, T0);
        fleet.record(new UsageRollup(UsageRollup.Dimension.TEAM, "red", T0, T0.plusSeconds(60), "USD", 1, 1.0 / 7,
                idle.totals()), T0);

        // When Prometheus scrapes the service
        String scraped = prometheus.scrape();

        // Then the slice and its team spend 14 / 7 = 2 USD an hour idle
        assertThat(scraped(scraped, "gpuledger_gpu_idle_cost_per_hour", "gpu=\"MIG-0\"")).isCloseTo(2.0,
                within(1e-9));
        assertThat(scraped(scraped, "gpuledger_team_idle_cost_per_hour", "team=\"red\"")).isCloseTo(2.0,
                within(1e-9));
        assertThat(scraped(scraped, "gpuledger_team_gpus", "team=\"red\"")).isEqualTo(1.0);
    }

    @Test
    void shouldShowTheStalePricedShareOfAPoolsMinuteAndCountItsStalePricedSecondsOnceClosed() {
        // Given a pool minute of two GPUs, one charged at a stale price, and a pool whose prices are fresh
        GpuUsage fresh = window("GPU-1", "job-a", T0, 2.0, 0.5, true);
        GpuUsage stale = UsageWindows.stalePriced(window("GPU-2", "job-a", T0, 2.0, 0.5, true));
        String pool = "aws|us-east-1|g5.xlarge|on-demand";

        // When the pools' minutes and the GPUs' closed windows are read
        metrics.record(new UsageRollup(UsageRollup.Dimension.POOL, pool, T0, T0.plusSeconds(60), "USD", 2,
                null, fresh.totals().plus(stale.totals())), T0);
        metrics.record(new UsageRollup(UsageRollup.Dimension.POOL, "aws|us-east-1|g5.xlarge|spot", T0,
                T0.plusSeconds(60), "USD", 1, null, fresh.totals()), T0);
        metrics.record(fresh, T0);
        metrics.record(stale, T0);

        // Then half the on-demand pool's GPU time is stale-priced, none of the spot pool's (shown at 0),
        // and the closed windows add the stale-priced minute to the pool's counter
        assertThat(registry.get("gpuledger_pool_stale_priced_ratio").tag("lifecycle", "on-demand").gauge().value())
                .isEqualTo(0.5);
        assertThat(registry.get("gpuledger_pool_stale_priced_ratio").tag("lifecycle", "spot").gauge().value())
                .isZero();
        assertThat(registry.get("gpuledger_pool_stale_priced_seconds").tag("lifecycle", "on-demand").counter()
                .count()).isEqualTo(60.0);
    }

    @Test
    void shouldExportUnpricedSecondsPerGpuJobTeamAndPoolInTheMetricText() {
        // Given a closed minute of a GPU priced in a currency the engine has no rate for: 60 s unpriced
        PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        FleetMetrics exported = new FleetMetrics(prometheus, 10, Duration.ofMinutes(5));
        GpuUsage unpriced = UsageWindows.unpriced(window("GPU-1", "job-a", T0, 2.0, 0.5, true));

        // When it is read
        exported.record(unpriced, T0);

        // Then the scrape shows its 60 unpriced seconds for the GPU, its job, its team and its pool, and no cost
        String text = prometheus.scrape();
        assertThat(text).containsPattern("gpuledger_gpu_unpriced_seconds_total\\{[^}]*gpu=\"GPU-1\"[^}]*} 60\\.0");
        assertThat(text).containsPattern("gpuledger_job_unpriced_seconds_total\\{[^}]*job_id=\"job-a\"[^}]*} 60\\.0");
        assertThat(text).containsPattern("gpuledger_team_unpriced_seconds_total\\{[^}]*team=\"red\"[^}]*} 60\\.0");
        assertThat(text).containsPattern(
                "gpuledger_pool_unpriced_seconds_total\\{[^}]*instance_type=\"g5.xlarge\"[^}]*} 60\\.0");
        assertThat(text).containsPattern("gpuledger_job_cost_total\\{[^}]*job_id=\"job-a\"[^}]*} 0\\.0");
    }

    @Test
    void shouldCountUnmonitoredCostApartFromCostPerJobTeamAndPool() {
        // Given a GPU's closed minute at 2 USD/h with 30 s more it was silent, estimated at 30 × 2/3600 USD
        double estimate = 30 * 2.0 / 3600;
        GpuUsage minute = UsageWindows.unmonitored(window("GPU-1", "job-a", T0, 2.0, 0.5, true), 30, estimate);

        metrics.record(minute, T0);

        // Then the estimate is counted as unmonitored cost, and the cost is the observed 60 × 2/3600 USD only
        assertThat(registry.get("gpuledger_job_unmonitored_cost").tag("job_id", "job-a").counter().count())
                .isCloseTo(estimate, within(1e-12));
        assertThat(registry.get("gpuledger_team_unmonitored_cost").tag("team", "red").counter().count())
                .isCloseTo(estimate, within(1e-12));
        assertThat(registry.get("gpuledger_pool_unmonitored_cost").tag("instance_type", "g5.xlarge").counter()
                .count()).isCloseTo(estimate, within(1e-12));
        assertThat(registry.get("gpuledger_job_cost").tag("job_id", "job-a").counter().count())
                .isCloseTo(60 * 2.0 / 3600, within(1e-12));
    }

    @Test
    void shouldShowASharedGpusJobsAndCountItsUnallocatedCostForItsTeamAndPoolButNoJobNamedShared() {
        // Given a shared GPU's closed minute at 2 USD/h, three jobs on it, a quarter of its cost taken by no job
        double cost = 60 * 2.0 / 3600;
        GpuUsage plain = window("GPU-1", TelemetrySample.SHARED_JOB, T0, 2.0, 0.5, true);
        UsageTotals totals = plain.totals().toBuilder().sum(UsageTotals.Sum.UNALLOCATED_COST, cost / 4).build();
        GpuUsage shared = plain.toBuilder().sharingJobs(3).totals(totals).build();

        metrics.record(shared, T0);

        // Then the GPU says three jobs shared it; its team and pool count the unallocated quarter, and no job named
        // "shared" appears (its jobs took their shares in their own roll-ups)
        assertThat(registry.get("gpuledger_gpu_sharing_jobs").tag("gpu", "GPU-1").gauge().value()).isEqualTo(3);
        assertThat(registry.get("gpuledger_team_unallocated_cost").tag("team", "red").counter().count())
                .isCloseTo(cost / 4, within(1e-12));
        assertThat(registry.get("gpuledger_pool_unallocated_cost").tag("instance_type", "g5.xlarge").counter()
                .count()).isCloseTo(cost / 4, within(1e-12));
        assertThat(registry.get("gpuledger_pool_cost").tag("instance_type", "g5.xlarge").counter().count())
                .isCloseTo(cost, within(1e-12));
        assertThat(registry.find("gpuledger_job_cost").tag("job_id", TelemetrySample.SHARED_JOB).counter()).isNull();
    }

    @Test
    void shouldCountEachJobsPartOfASharedGpuForItsJobAndTeamAndTheRestForTheNodesTeam() {
        // Given a shared GPU's closed minute of team red's node at 2 USD/h (1/30 USD): job x of team blue took half
        // of it, job y (of no team of its own) a quarter, and a quarter no job took
        double cost = 60 * 2.0 / 3600;
        GpuUsage plain = window("GPU-1", TelemetrySample.SHARED_JOB, T0, 2.0, 0.5, true);
        UsageTotals totals = plain.totals().toBuilder().sum(UsageTotals.Sum.UNALLOCATED_COST, cost / 4).build();
        GpuUsage shared = plain.toBuilder().sharingJobs(2).totals(totals).jobParts(List.of(
                new JobPart("x", "blue", 30, cost / 2, 0.001, 0), new JobPart("y", null, 15, cost / 4, 0.0005, 0)))
                .build();

        metrics.record(shared, T0);

        // Then each job counts its part, blue job x's, red job y's and the unallocated quarter
        assertThat(registry.get("gpuledger_job_cost").tag("job_id", "x").tag("team", "blue").counter().count())
                .isCloseTo(cost / 2, within(1e-12));
        assertThat(registry.get("gpuledger_job_cost").tag("job_id", "y").tag("team", "red").counter().count())
                .isCloseTo(cost / 4, within(1e-12));
        assertThat(registry.get("gpuledger_job_energy_joules").tag("job_id", "x").counter().count())
                .isCloseTo(0.001 * 3.6e6, within(1e-6));
        assertThat(registry.get("gpuledger_team_cost").tag("team", "blue").counter().count())
                .isCloseTo(cost / 2, within(1e-12));
        assertThat(registry.get("gpuledger_team_cost").tag("team", "red").counter().count())
                .isCloseTo(cost / 2, within(1e-12));
        assertThat(registry.get("gpuledger_team_unallocated_cost").tag("team", "red").counter().count())
                .isCloseTo(cost / 4, within(1e-12));
        // And the GPU shows its split among them, and what no job took
        assertThat(registry.get("gpuledger_gpu_job_cost").tag("gpu", "GPU-1").tag("sharing_job_id", "x")
                .tag("sharing_team", "blue").counter().count()).isCloseTo(cost / 2, within(1e-12));
        assertThat(registry.get("gpuledger_gpu_unallocated_cost").tag("gpu", "GPU-1").counter().count())
                .isCloseTo(cost / 4, within(1e-12));
        assertThat(registry.find("gpuledger_job_cost").tag("job_id", TelemetrySample.SHARED_JOB).counter()).isNull();
    }

    @Test
    void shouldCountTheJobsPastThoseAWindowListsForTheirTeamsOnly() {
        // Given a shared GPU's closed minute whose parts list job x of blue (a half) and, as 'unlisted', the jobs
        // past those listed: blue's took a fifth, green's a tenth; a fifth no job took
        double cost = 60 * 2.0 / 3600;
        GpuUsage plain = window("GPU-1", TelemetrySample.SHARED_JOB, T0, 2.0, 0.5, true);
        UsageTotals totals = plain.totals().toBuilder().sum(UsageTotals.Sum.UNALLOCATED_COST, cost / 5).build();
        GpuUsage crowded = plain.toBuilder().sharingJobs(250).totals(totals).jobParts(List.of(
                new JobPart("x", "blue", 30, cost / 2, 0, 0),
                new JobPart(JobPart.UNLISTED_JOB, "blue", 12, cost / 5, 0, 0),
                new JobPart(JobPart.UNLISTED_JOB, "green", 6, cost / 10, 0, 0))).build();

        // (room for the three teams: the shared metrics here keep two of a kind)
        new FleetMetrics(registry, 100, Duration.ofMinutes(5)).record(crowded, T0);

        // Then each team counts its jobs' parts, and no job is counted as 'unlisted'
        assertThat(registry.get("gpuledger_team_cost").tag("team", "blue").counter().count())
                .isCloseTo(cost / 2 + cost / 5, within(1e-12));
        assertThat(registry.get("gpuledger_team_cost").tag("team", "green").counter().count())
                .isCloseTo(cost / 10, within(1e-12));
        assertThat(registry.get("gpuledger_team_cost").tag("team", "red").counter().count())
                .isCloseTo(cost / 5, within(1e-12));
        assertThat(registry.find("gpuledger_job_cost").tag("job_id", JobPart.UNLISTED_JOB).counter()).isNull();
        assertThat(registry.get("gpuledger_job_cost").tag("job_id", "x").counter().count())
                .isCloseTo(cost / 2, within(1e-12));
    }

    @Test
    void shouldCountAMinuteSharedThenOfOneJobByItsPartsNotByTheJobItsLastSampleNamed() {
        // Given a closed minute at 2 USD/h whose last samples were job x's alone, after it shared the GPU with
        // job y: x took 70% of it, y 20%, and 10% no job took
        double cost = 60 * 2.0 / 3600;
        GpuUsage plain = window("GPU-1", "x", T0, 2.0, 0.5, true);
        UsageTotals totals = plain.totals().toBuilder().sum(UsageTotals.Sum.UNALLOCATED_COST, cost / 10).build();
        GpuUsage mixed = plain.toBuilder().totals(totals).jobParts(List.of(
                new JobPart("x", "red", 42, 0.7 * cost, 0, 0), new JobPart("y", "blue", 12, 0.2 * cost, 0, 0)))
                .build();

        metrics.record(mixed, T0);

        // Then x counts its 70%, not the whole minute, y its 20%, and red has x's part and the rest
        assertThat(registry.get("gpuledger_job_cost").tag("job_id", "x").counter().count())
                .isCloseTo(0.7 * cost, within(1e-12));
        assertThat(registry.get("gpuledger_job_cost").tag("job_id", "y").counter().count())
                .isCloseTo(0.2 * cost, within(1e-12));
        assertThat(registry.get("gpuledger_team_cost").tag("team", "red").counter().count())
                .isCloseTo(0.8 * cost, within(1e-12));
    }

    @Test
    void shouldDropTheSplitSeriesOfAJobGoneFromASharedGpuWhileTheGpuStays() {
        // Given a shared GPU's minute of jobs x and y, and ten minutes later (past the five after which a series
        // is stale) one of y alone
        double cost = 60 * 2.0 / 3600;
        GpuUsage first = window("GPU-1", TelemetrySample.SHARED_JOB, T0, 2.0, 0.5, true).toBuilder()
                .jobParts(List.of(new JobPart("x", "red", 30, cost / 2, 0, 0), new JobPart("y", "red", 30, cost / 2,
                        0, 0))).build();
        Instant later = T0.plus(Duration.ofMinutes(10));
        GpuUsage second = window("GPU-1", TelemetrySample.SHARED_JOB, later, 2.0, 0.5, true).toBuilder()
                .jobParts(List.of(new JobPart("y", "red", 60, cost, 0, 0))).build();
        metrics.record(first, T0);
        metrics.record(second, later);

        // When stale series are swept
        metrics.sweep(later);

        // Then job x's part of the GPU is gone, job y's and the GPU's own series stay
        assertThat(registry.find("gpuledger_gpu_job_cost").tag("sharing_job_id", "x").counter()).isNull();
        assertThat(registry.get("gpuledger_gpu_job_cost").tag("sharing_job_id", "y").counter().count())
                .isCloseTo(1.5 * cost, within(1e-12));
        assertThat(registry.get("gpuledger_gpu_energy_joules").tag("gpu", "GPU-1").counter()).isNotNull();
    }

    @Test
    void shouldExportNoMoreSplitSeriesThanTheCapAndCountTheRest() {
        // Given a cap of 2 and a shared GPU's minute of jobs x, y and z; then, nine minutes later, one of the GPU
        // with z alone
        double cost = 60 * 2.0 / 3600;
        GpuUsage three = window("GPU-1", TelemetrySample.SHARED_JOB, T0, 2.0, 0.5, true).toBuilder()
                .jobParts(List.of(new JobPart("x", "red", 20, cost / 3, 0, 0), new JobPart("y", "red", 20, cost / 3,
                        0, 0), new JobPart("z", "red", 20, cost / 3, 0, 0))).build();
        Instant later = T0.plus(Duration.ofMinutes(9));
        GpuUsage alone = window("GPU-1", TelemetrySample.SHARED_JOB, later, 2.0, 0.5, true).toBuilder()
                .jobParts(List.of(new JobPart("z", "red", 60, cost, 0, 0))).build();

        // When the first is recorded
        metrics.record(three, T0);

        // Then two jobs' parts are exported and the third is counted as dropped
        assertThat(registry.find("gpuledger_gpu_job_cost").counters()).hasSize(2);
        assertThat(registry.find("gpuledger_gpu_job_cost").tag("sharing_job_id", "z").counter()).isNull();
        assertThat(registry.get("gpuledger_metric_series_dropped").tag("family", "gpu_job").counter().count())
                .isEqualTo(1);
        // and only the GPUs' split has such a count: the other kinds have no series of that sort
        assertThat(registry.find("gpuledger_metric_series_dropped").counters()).extracting(c -> c.getId()
                .getTag("family")).containsExactlyInAnyOrder("gpu", "job", "team", "pool", "price", "reconciliation",
                        "gpu_job");

        // And while x's and y's parts take the room, z's is dropped again; once they went stale on the GPU, which
        // stays, z's takes the room they left, from its next minute
        metrics.record(alone, later);
        assertThat(registry.get("gpuledger_metric_series_dropped").tag("family", "gpu_job").counter().count())
                .isEqualTo(2);
        metrics.sweep(T0.plus(Duration.ofMinutes(10)));
        metrics.record(alone.toBuilder().window(later.plusSeconds(60), later.plusSeconds(120)).build(),
                later.plusSeconds(60));
        assertThat(registry.get("gpuledger_gpu_job_cost").tag("sharing_job_id", "z").counter().count())
                .isCloseTo(cost, within(1e-12));
        assertThat(registry.find("gpuledger_gpu_job_cost").counters()).hasSize(1);
    }

    @Test
    void shouldShowWhenThePriceInForceWasLastConfirmed() {
        // Given a version valid from a day ago, confirmed an hour ago and again now
        PriceQuote version = new PriceQuote("aws", "us-east-1", "g5.xlarge", Lifecycle.ON_DEMAND, "A10G", 1, 1.006,
                "USD", T0.minus(Duration.ofDays(1)), "test");
        metrics.record(version.confirmedAt(T0.minusSeconds(3600)), T0);
        metrics.record(version.confirmedAt(T0), T0);

        // When a late confirmation of the version before it arrives
        PriceQuote before = new PriceQuote("aws", "us-east-1", "g5.xlarge", Lifecycle.ON_DEMAND, "A10G", 1, 1.1,
                "USD", T0.minus(Duration.ofDays(2)), "test");
        metrics.record(before.confirmedAt(T0.plusSeconds(60)), T0.plusSeconds(60));

        // Then the offer shows the confirmation of the version in force, and its price
        assertThat(registry.get("gpuledger_price_observed_timestamp_seconds").tag("instance_type", "g5.xlarge")
                .gauge().value()).isEqualTo((double) T0.getEpochSecond());
        assertThat(registry.get("gpuledger_price_per_hour").tag("instance_type", "g5.xlarge").gauge().value())
                .isEqualTo(1.006);
    }

    @Test
    void shouldCountTheCo2eOfEachGpusJobsTeamsAndPoolsEnergyByItsRegionsGrid(@TempDir Path folder)
            throws IOException {
        // Given a grid of 400 g/kWh in us-east-1 from a dated file, and a shared GPU's closed minute there that drew
        // 0.002 kWh: job x of team blue 0.001, job y (the node's team red) 0.0005, no job the rest
        Path grid = folder.resolve("grid.csv");
        Files.writeString(grid, "provider,region,grams_co2e_per_kwh,valid_from,basis,source\n"
                + "aws,us-east-1,400,2020-01-01T00:00:00Z,average,test\n", StandardCharsets.UTF_8);
        CarbonIntensity carbon = CarbonIntensity.shipped().withOverrides(grid);
        FleetMetrics fleet = new FleetMetrics(registry, registry, 10, Duration.ofMinutes(5), carbon);
        double cost = 60 * 2.0 / 3600;
        GpuUsage plain = window("GPU-c", TelemetrySample.SHARED_JOB, T0, 2.0, 0.5, true);
        GpuUsage shared = plain.toBuilder().sharingJobs(2).totals(plain.totals().toBuilder()
                .sum(UsageTotals.Sum.ENERGY_KWH, 0.002).build()).jobParts(List.of(
                        new JobPart("x", "blue", 30, cost / 2, 0.001, 0), new JobPart("y", null, 15, cost / 4, 0.0005,
                                0))).build();

        fleet.record(shared, T0);

        // Then each counts its energy times 400 g/kWh times the provider's PUE
        double perKwh = 400 * carbon.pue("aws");
        assertThat(registry.get("gpuledger_gpu_co2e_grams").tag("gpu", "GPU-c").counter().count())
                .isCloseTo(0.002 * perKwh, within(1e-9));
        assertThat(registry.get("gpuledger_job_co2e_grams").tag("job_id", "x").counter().count())
                .isCloseTo(0.001 * perKwh, within(1e-9));
        assertThat(registry.get("gpuledger_team_co2e_grams").tag("team", "red").counter().count())
                .isCloseTo(0.001 * perKwh, within(1e-9));
        assertThat(registry.get("gpuledger_pool_co2e_grams").tag("region", "us-east-1").counter().count())
                .isCloseTo(0.002 * perKwh, within(1e-9));
    }

    @Test
    void shouldCountNoCo2eWhereTheRegionsGridIsNotKnown() {
        GpuUsage elsewhere = UsageWindows.minute(new Placement("node-x", "i-x", "g5.xlarge", "aws", "moon-base-1",
                Lifecycle.ON_DEMAND), "GPU-m", "job-m", "red", T0, 2.0, 0.5, true);
        metrics.record(elsewhere.toBuilder().totals(elsewhere.totals().toBuilder()
                .sum(UsageTotals.Sum.ENERGY_KWH, 0.002).build()).build(), T0);

        assertThat(registry.get("gpuledger_gpu_energy_joules").tag("gpu", "GPU-m").counter().count()).isPositive();
        assertThat(registry.find("gpuledger_gpu_co2e_grams").tag("gpu", "GPU-m").counter()).isNull();
        assertThat(registry.find("gpuledger_job_co2e_grams").tag("job_id", "job-m").counter()).isNull();
    }

    @Test
    void shouldShowTheLatestReconciliationOfEachOfferAndAccount() {
        // Given a week reconciled, then the next week, and a late record of the first arriving after it
        ReconciliationRatio first = new ReconciliationRatio("aws", "us-east-1", "p5.48xlarge", Lifecycle.ON_DEMAND,
                "012345678901", "USD", T0, T0.plus(Duration.ofDays(7)), 2000, 1860, 0.93, T0.plus(Duration.ofDays(8)));
        ReconciliationRatio second = new ReconciliationRatio("aws", "us-east-1", "p5.48xlarge", Lifecycle.ON_DEMAND,
                "012345678901", "USD", T0.plus(Duration.ofDays(7)), T0.plus(Duration.ofDays(14)), 1860, 1855.35,
                0.9975, T0.plus(Duration.ofDays(15)));
        metrics.record(first);
        metrics.record(second);
        metrics.record(first);

        // Then the offer and account show the second week's figures, with its account zeros kept
        assertThat(registry.get("gpuledger_reconciliation_ratio").tag("account", "012345678901")
                .tag("instance_type", "p5.48xlarge").gauge().value()).isEqualTo(0.9975);
        assertThat(registry.get("gpuledger_reconciliation_effective_cost").tag("currency", "USD").gauge().value())
                .isEqualTo(1855.35);
        assertThat(registry.get("gpuledger_reconciliation_period_end_timestamp_seconds").gauge().value())
                .isEqualTo((double) T0.plus(Duration.ofDays(14)).getEpochSecond());
    }

    /** The value of the one series of {@code family} in the scraped text whose labels hold {@code label}. */
    private static double scraped(String text, String family, String label) {
        List<String> lines = text.lines().filter(line -> line.startsWith(family + "{") && line.contains(label))
                .toList();
        assertThat(lines).as("series of %s with %s", family, label).hasSize(1);
        String line = lines.get(0);
        return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
    }

    private double gauge(String family, String gpu) {
        Gauge gauge = registry.get(family).tag("gpu", gpu).gauge();
        return gauge.value();
    }

    private static final Placement PLACE = new Placement("node-1", "i-1", "g5.xlarge", "aws", "us-east-1",
            Lifecycle.ON_DEMAND);

    private static GpuUsage window(String gpu, String job, Instant start, double pricePerHour, double smActive,
            boolean closed) {
        return UsageWindows.minute(new Placement("node-1", "i-1", "g5.xlarge", "aws", "us-east-1", Lifecycle.ON_DEMAND),
                gpu, job, "red", start, pricePerHour, smActive, closed);
    }
}
