package io.gpuledger.streams.cost;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gpuledger.model.GpuUsage;
import io.gpuledger.model.JobEconomics;
import io.gpuledger.model.Json;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Placement;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.TelemetrySample;
import io.gpuledger.model.UsageRollup;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Jobs, teams and pools as sums of GPU windows, through the engine's own topology with pinned time. */
class RollupsTest {

    private static final Instant T0 = Instant.parse("2026-03-01T12:00:00Z");
    private static final double GPU_PER_HOUR = 32.0 / 8;

    private CostDriver cost;
    private TestOutputTopic<String, UsageRollup> rollups;

    @BeforeEach
    void startDriver() {
        cost = new CostDriver("rollups-test", T0);
        for (Lifecycle lifecycle : Lifecycle.values()) {
            cost.publish(new PriceQuote("aws", "us-east-1", "p4d.24xlarge", lifecycle, "A100-40GB", 8, 32.0,
                    "USD", T0.minus(Duration.ofDays(1)), "test"));
        }
        rollups = cost.rollups;
    }

    @AfterEach
    void stopDriver() {
        cost.close();
    }

    @Test
    void shouldSumTheGpusOfAJobAcrossHostsWithoutCountingAnUpdatedWindowTwice() {
        // Given two GPUs of one job on two hosts, each reporting twice in the first minute
        send(sample("GPU-1", "node-a", "train-llm", "research", T0.plusSeconds(30), 30, 0.9));
        send(sample("GPU-2", "node-b", "train-llm", "research", T0.plusSeconds(30), 30, 0.7));
        send(sample("GPU-1", "node-a", "train-llm", "research", T0.plusSeconds(60), 30, 0.9));
        send(sample("GPU-2", "node-b", "train-llm", "research", T0.plusSeconds(60), 30, 0.7));

        // Then the job's minute holds both GPUs' full minute, once
        Map<String, UsageRollup> latest = latest();
        UsageRollup job = latest.get("job|train-llm|" + T0 + "|PT1M");
        assertThat(job.gpus()).isEqualTo(2);
        assertThat(job.totals().gpuSeconds()).isEqualTo(120.0);
        assertThat(job.totals().cost()).isCloseTo(2 * GPU_PER_HOUR / 60, within(1e-12));
        assertThat(job.totals().samples()).isEqualTo(4);
        assertThat(job.totals().smActive().value()).isCloseTo(0.8, within(1e-12));
        assertThat(latest.get("team|research|" + T0 + "|PT1M").totals().gpuSeconds()).isEqualTo(120.0);
    }

    @Test
    void shouldKeepPoolsApartByLifecycleAndAddMinutesUpToTheHour() {
        send(sample("GPU-1", "node-a", "job-a", null, T0.plusSeconds(60), 60, 0.9));
        send(sample("GPU-1", "node-a", "job-a", null, T0.plusSeconds(120), 60, 0.9));
        TelemetrySample spot = spot(sample("GPU-9", "node-s", "job-b", null, T0.plusSeconds(60), 60, 0.02));
        cost.telemetry.pipeInput(new TestRecord<>(spot.gpuUuid(), Json.write(spot), spot.time()));
        cost.advance(CostSettings.DEFAULT_UPDATE_INTERVAL);
        // An open hour goes out at most once a minute of wall-clock time while partials come: the
        // spot pool's, changed after the first update sent hours, waits for the next minute
        List<TestRecord<String, UsageRollup>> beforeTheMinute = rollups.readRecordsToList();
        List<UsageRollup> hoursBefore = beforeTheMinute.stream().map(TestRecord::value)
                .filter(rollup -> rollup.windowEnd().equals(T0.plus(Duration.ofHours(1)))).toList();
        assertThat(hoursBefore).noneMatch(rollup -> rollup.key().contains("|spot"));
        assertThat(hoursBefore).anyMatch(rollup -> rollup.key().contains("|on-demand"));
        cost.advance(RollupWindows.HOUR_UPDATE_INTERVAL);

        Map<String, UsageRollup> latest = latest(beforeTheMinute);
        UsageRollup onDemandHour = latest.get("pool|aws|us-east-1|p4d.24xlarge|on-demand|" + T0 + "|PT1H");
        UsageRollup spotHour = latest.get("pool|aws|us-east-1|p4d.24xlarge|spot|" + T0 + "|PT1H");
        assertThat(onDemandHour.totals().gpuSeconds()).isEqualTo(120.0);
        assertThat(onDemandHour.totals().cost()).isCloseTo(2 * GPU_PER_HOUR / 60, within(1e-12));
        assertThat(spotHour.totals().gpuSeconds()).isEqualTo(60.0);
        assertThat(spotHour.totals().idleCost()).isCloseTo(GPU_PER_HOUR / 60, within(1e-12));
        // An hour's GPUs are the most in any one of its minutes: two GPUs in the first, one in the second
        assertThat(latest.get("team|" + UsageRollup.NO_TEAM + "|" + T0 + "|PT1H").gpus()).isEqualTo(2);
    }

    @Test
    void shouldRollTheLastFiveMinutesOfAJobWithEveryMinuteThatChanges() {
        // Given seven minutes of one GPU, the last one reported in two halves
        for (int minute = 1; minute <= 6; minute++) {
            send(sample("GPU-1", "node-a", "job-r", null, T0.plusSeconds(60L * minute), 60, 0.9));
        }
        send(sample("GPU-1", "node-a", "job-r", null, T0.plusSeconds(60 * 6 + 30), 30, 0.9));
        send(sample("GPU-1", "node-a", "job-r", null, T0.plusSeconds(60 * 7), 30, 0.9));

        // Then the rolling view ends with the newest minute and holds the five minutes up to it, once each
        Map<String, UsageRollup> latest = latest();
        UsageRollup rolling = latest.get("job|job-r|" + T0.plusSeconds(60 * 2) + "|PT5M");
        assertThat(rolling.windowEnd()).isEqualTo(T0.plusSeconds(60 * 7));
        assertThat(rolling.totals().gpuSeconds()).isEqualTo(300.0);
        assertThat(rolling.totals().cost()).isCloseTo(5 * GPU_PER_HOUR / 60, within(1e-12));
        assertThat(rolling.costPerHour()).isCloseTo(GPU_PER_HOUR, within(1e-9));
    }

    @Test
    void shouldRateAJobOnMigSlicesAndEachSliceByWhatTheySpend() {
        // Given a job on seven 1g.10gb slices (a seventh each) of the one A100 of an instance at 10 USD/h,
        // each slice covered for the whole first minute
        cost.publish(new PriceQuote("gcp", "us-central1", "a2-highgpu-1g", Lifecycle.ON_DEMAND, "A100-40GB", 1, 10.0,
                "USD", T0.minus(Duration.ofDays(1)), "test"));
        for (int slice = 0; slice < 7; slice++) {
            send(TelemetrySample.builder().gpuUuid("MIG-" + slice).gpuModel("A100-40GB")
                    .placement(new Placement("node-m", "i-m", "a2-highgpu-1g", "gcp", "us-central1",
                            Lifecycle.ON_DEMAND))
                    .jobId("job-mig").team("research").time(T0.plusSeconds(60)).intervalSeconds(60).smActive(0.9)
                    .migProfile("1g.10gb").gpuFraction(1.0 / 7).build());
        }
        // An open hour goes out at most once a minute of wall-clock time
        cost.driver.advanceWallClockTime(RollupWindows.HOUR_UPDATE_INTERVAL);

        // Then each slice spends 10 / 7 = 1.428571 USD an hour, observed for its 60 s of wall time
        Map<String, GpuUsage> slices = new LinkedHashMap<>();
        cost.usage.readRecordsToList().forEach(record -> slices.put(record.key(), record.value()));
        assertThat(slices).hasSize(7);
        assertThat(slices.values()).allSatisfy(slice -> {
            assertThat(slice.costPerHour()).isCloseTo(1.428571, within(1e-6));
            assertThat(slice.secondsObserved()).isCloseTo(60.0, within(1e-9));
        });
        // and the job 7 x 1.428571 = 10 USD an hour, on 7 slices that make 7 x 1/7 = 1 GPU, in its minute,
        // its hour and its economics
        Map<String, UsageRollup> latest = latest();
        UsageRollup minute = latest.get("job|job-mig|" + T0 + "|PT1M");
        assertThat(minute.gpus()).isEqualTo(7);
        assertThat(minute.gpuEquivalents()).isCloseTo(1.0, within(1e-9));
        assertThat(minute.costPerHour()).isCloseTo(10.0, within(1e-9));
        UsageRollup hour = latest.get("job|job-mig|" + T0 + "|PT1H");
        assertThat(hour.gpuEquivalents()).isCloseTo(1.0, within(1e-9));
        assertThat(hour.costPerHour()).isCloseTo(10.0, within(1e-9));
        List<JobEconomics> economics = cost.economics.readValuesToList();
        assertThat(economics).isNotEmpty();
        assertThat(economics.get(economics.size() - 1).costPerHour()).isCloseTo(10.0, within(1e-9));
    }

    @Test
    void shouldRateAJobOnWholeGpusAsTheSumOfItsGpus() {
        // Given a job on two whole GPUs of a p4d (32 / 8 = 4 USD/h each), each covered for a minute
        send(sample("GPU-1", "node-a", "train-llm", "research", T0.plusSeconds(60), 60, 0.9));
        send(sample("GPU-2", "node-b", "train-llm", "research", T0.plusSeconds(60), 60, 0.7));

        // Then the job spends 4 + 4 = 8 USD an hour on 2 GPUs
        UsageRollup minute = latest().get("job|train-llm|" + T0 + "|PT1M");
        assertThat(minute.gpuEquivalents()).isEqualTo(2.0);
        assertThat(minute.costPerHour()).isCloseTo(8.0, within(1e-9));
    }

    /** The last roll-up of each (key, window, period). */
    private Map<String, UsageRollup> latest() {
        return latest(List.of());
    }

    /** The last roll-up of each (key, window, period): of {@code earlier}, then of those sent since. */
    private Map<String, UsageRollup> latest(List<TestRecord<String, UsageRollup>> earlier) {
        Map<String, UsageRollup> latest = new LinkedHashMap<>();
        List<TestRecord<String, UsageRollup>> records = new ArrayList<>(earlier);
        records.addAll(rollups.readRecordsToList());
        for (TestRecord<String, UsageRollup> record : records) {
            UsageRollup rollup = record.value();
            assertThat(record.key()).isEqualTo(rollup.key());
            // Dated by its start, never ahead: an hour's end lies up to an hour in the future
            assertThat(record.getRecordTime()).isEqualTo(rollup.windowStart());
            latest.put(rollup.key() + "|" + rollup.windowStart() + "|"
                    + Duration.between(rollup.windowStart(), rollup.windowEnd()), rollup);
        }
        return latest;
    }

    private void send(TelemetrySample sample) {
        cost.send(sample);
    }

    private static TelemetrySample spot(TelemetrySample sample) {
        return sample.toBuilder().lifecycle(Lifecycle.SPOT).build();
    }

    private static TelemetrySample sample(String gpu, String host, String job, String team, Instant end,
            double interval, double smActive) {
        return TelemetrySample.builder().gpuUuid(gpu).gpuModel("A100-40GB")
                .placement(new Placement(host, "i-" + host, "p4d.24xlarge", "aws", "us-east-1", Lifecycle.ON_DEMAND))
                .jobId(job).team(team).time(end).intervalSeconds(interval).smActive(smActive).build();
    }
}
