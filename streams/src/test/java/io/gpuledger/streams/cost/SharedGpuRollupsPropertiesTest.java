package io.gpuledger.streams.cost;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gpuledger.model.Allocation;
import io.gpuledger.model.GpuUsage;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Placement;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.SharePolicy;
import io.gpuledger.model.TelemetrySample;
import io.gpuledger.model.UsageRollup;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

/**
 * Shared GPUs through the engine's own topology: over generated fleets of shared GPUs, in every closed
 * minute the jobs' roll-ups plus the pool's unallocated cost are the pool's cost, which is the GPUs' windows',
 * and each job's roll-up is what a naive reference charges it: its shares × the price × the seconds.
 */
class SharedGpuRollupsPropertiesTest {

    private static final Instant T0 = Instant.parse("2026-03-01T12:00:00Z");
    private static final double GPU_PER_HOUR = 98.32 / 8;
    private static final String POOL = "pool|aws|us-east-1|p5.48xlarge|on-demand";
    private static final int MINUTES = 3;

    @Property(tries = 25)
    void shouldGiveEachJobItsSharesAndThePoolTheRestInEveryMinute(@ForAll @LongRange(min = 1) long seed,
            @ForAll @IntRange(min = 1, max = 3) int gpus) {
        Random random = new Random(seed);
        Map<String, Double> reference = new HashMap<>();
        List<UsageRollup> rollups = new ArrayList<>();
        List<GpuUsage> windows = new ArrayList<>();
        try (CostDriver cost = new CostDriver("shared-gpu-rollups-" + seed, T0)) {
            cost.publish(new PriceQuote("aws", "us-east-1", "p5.48xlarge", Lifecycle.ON_DEMAND, "H100-80GB", 8,
                    98.32, "USD", T0.minus(Duration.ofDays(1)), "test"));
            // Given shared GPUs sampled every 10 s for three minutes, shares drawn anew for each sample
            for (int end = 10; end <= MINUTES * 60; end += 10) {
                for (int gpu = 0; gpu < gpus; gpu++) {
                    TelemetrySample sample = sample(random, "GPU-" + gpu, T0.plusSeconds(end));
                    for (Allocation allocation : sample.allocations()) {
                        reference.merge(allocation.jobId() + "@" + (end - 1) / 60,
                                allocation.share() * GPU_PER_HOUR * 10 / 3600, Double::sum);
                    }
                    cost.send(sample);
                }
                rollups.addAll(cost.rollups.readValuesToList());
                windows.addAll(cost.usage.readValuesToList());
            }
            // When every minute has closed, by the clock of an unshared GPU sampled later
            cost.send(TelemetrySample.builder().gpuUuid("GPU-later").placement(placement()).jobId("later")
                    .time(T0.plusSeconds(MINUTES * 60 + 300)).intervalSeconds(10).smActive(0.5).build());
            cost.advance(Duration.ofSeconds(30));
            cost.sendUpdates();
            rollups.addAll(cost.rollups.readValuesToList());
            windows.addAll(cost.usage.readValuesToList());
        }

        Map<String, UsageRollup> minutes = latestMinutes(rollups);
        for (int minute = 0; minute < MINUTES; minute++) {
            Instant start = T0.plusSeconds(60L * minute);
            UsageRollup pool = minutes.get(POOL + "@" + start);
            double jobs = 0;
            for (Map.Entry<String, UsageRollup> job : minutes.entrySet()) {
                if (job.getKey().startsWith("job|") && job.getValue().windowStart().equals(start)) {
                    jobs += job.getValue().totals().cost();
                    String id = job.getValue().id() + "@" + minute;
                    assertThat(job.getValue().totals().cost()).as(id).isCloseTo(reference.get(id), within(1e-12));
                    assertThat(job.getValue().totals().unallocatedCost()).isZero();
                }
            }
            double gpuWindows = windows.stream().filter(window -> window.closed() && window.windowStart().equals(start))
                    .mapToDouble(GpuUsage::cost).sum();
            assertThat(pool.totals().cost()).isCloseTo(gpus * GPU_PER_HOUR / 60, within(1e-12));
            assertThat(gpuWindows).isCloseTo(pool.totals().cost(), within(1e-12));
            assertThat(jobs + pool.totals().unallocatedCost()).isCloseTo(pool.totals().cost(), within(1e-12));
            double teams = minutes.values().stream().filter(rollup -> rollup.dimension() == UsageRollup.Dimension.TEAM
                    && rollup.windowStart().equals(start)).mapToDouble(rollup -> rollup.totals().cost()).sum();
            assertThat(teams).isCloseTo(pool.totals().cost(), within(1e-12));
        }
        assertThat(minutes.keySet()).noneMatch(key -> key.startsWith("job|shared@"));
    }

    /** The latest minute roll-up of each key and minute, by {@code key@windowStart}. */
    private static Map<String, UsageRollup> latestMinutes(List<UsageRollup> rollups) {
        Map<String, UsageRollup> latest = new HashMap<>();
        for (UsageRollup rollup : rollups) {
            if (rollup.windowEnd().equals(rollup.windowStart().plusSeconds(60))) {
                latest.put(rollup.key() + "@" + rollup.windowStart(), rollup);
            }
        }
        return latest;
    }

    /** A sample of a shared GPU: one to four of six jobs, shares adding up to at most 1, teams at random. */
    private static TelemetrySample sample(Random random, String gpu, Instant end) {
        int jobs = 1 + random.nextInt(4);
        List<String> ids = new ArrayList<>(List.of("a", "b", "c", "d", "e", "f"));
        Collections.shuffle(ids, random);
        double left = random.nextInt(3) == 0 ? 1 : random.nextDouble();
        List<Allocation> allocations = new ArrayList<>();
        for (int i = 0; i < jobs; i++) {
            double share = i == jobs - 1 ? left : left * random.nextDouble();
            left -= share;
            String team = random.nextBoolean() ? null : "team-" + random.nextInt(3);
            allocations.add(new Allocation("job-" + ids.get(i), team, Math.max(0, share),
                    SharePolicy.values()[random.nextInt(SharePolicy.values().length)]));
        }
        return TelemetrySample.builder().gpuUuid(gpu).gpuModel("H100-80GB").placement(placement())
                .jobId(TelemetrySample.SHARED_JOB).team(random.nextBoolean() ? null : "platform").time(end)
                .intervalSeconds(10).smActive(random.nextInt(4) == 0 ? null : random.nextDouble())
                .powerWatts(random.nextBoolean() ? null : 700 * random.nextDouble()).allocations(allocations).build();
    }

    private static Placement placement() {
        return new Placement("node-s", "i-node-s", "p5.48xlarge", "aws", "us-east-1", Lifecycle.ON_DEMAND);
    }
}
