package io.gpuledger.ingest.sim;

import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.TelemetrySample;
import java.time.Instant;
import java.util.Random;

/**
 * One simulated GPU: where it sits and how hard it works. Busy GPUs hover around their own base
 * SM activity; idle ones stay under 3%, below the 5% idle threshold.
 */
public record SimulatedGpu(
        String uuid,
        int index,
        String gpuModel,
        String host,
        String instanceId,
        String instanceType,
        String provider,
        String region,
        Lifecycle lifecycle,
        String jobId,
        boolean idle,
        double baseSmActive,
        double maxPowerWatts) {

    /** The sample this GPU reports for the {@code intervalSeconds} that end at {@code end}. */
    public TelemetrySample sample(Instant end, double intervalSeconds, Random random) {
        double sm = idle
                ? random.nextDouble() * 0.02
                : clamp(baseSmActive + (random.nextDouble() - 0.5) * 0.1);
        double occupancy = clamp(sm * (0.55 + random.nextDouble() * 0.2));
        double dram = idle ? random.nextDouble() * 0.01 : clamp(0.25 + random.nextDouble() * 0.35);
        double power = maxPowerWatts * (0.15 + 0.8 * sm);
        return TelemetrySample.builder().gpuUuid(uuid).gpuIndex(index).gpuModel(gpuModel).host(host)
                .instanceId(instanceId).instanceType(instanceType).provider(provider).region(region)
                .lifecycle(lifecycle).jobId(jobId).time(end).intervalSeconds(intervalSeconds).smActive(sm)
                .smOccupancy(occupancy).dramActive(dram).powerWatts(power).build();
    }

    private static double clamp(double ratio) {
        return Math.max(0, Math.min(1, ratio));
    }
}
