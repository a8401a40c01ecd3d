package io.gpuledger.ingest.sim;

import io.gpuledger.model.JobProgress;
import io.gpuledger.model.JobTraits;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Placement;
import io.gpuledger.model.TelemetrySample;
import io.gpuledger.model.WorkloadClass;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * One simulated GPU: where it sits, the job it belongs to, and the readings it reports, drawn
 * around its job's figures so that they agree with what the job does. Exposed communication takes
 * SM activity down and NVLink traffic up in proportion to the job's overhead ratio; memory-bound
 * jobs keep DRAM busier than SMs; serving follows its load; idle GPUs stay under 5% SM activity.
 */
public record SimulatedGpu(
        String uuid,
        int index,
        String gpuModel,
        Placement placement,
        SimulatedJob job,
        double memoryBytes,
        double maxPowerWatts) {

    /** SM activity of a GPU busy only with NCCL kernels: they occupy a few SMs, moving data. */
    static final double COLLECTIVE_SM_ACTIVE = 0.1;
    /** Serving never drops to nothing: even a quiet replica runs health checks and small batches. */
    static final double MIN_SERVING_SM_ACTIVE = 0.07;
    private static final double DATA_LOADING_BYTES_PER_SECOND = 6e8;
    private static final double MIB = 1024 * 1024;

    public boolean idle() {
        return job.idle();
    }

    public String instanceType() {
        return placement.instanceType();
    }

    public String instanceId() {
        return placement.instanceId();
    }

    public Lifecycle lifecycle() {
        return placement.lifecycle();
    }

    /** The job id it reports; null (the contract's {@code unknown}) on spare capacity. */
    public String jobId() {
        return job.reportedJobId();
    }

    /**
     * The sample this GPU reports for the {@code intervalSeconds} that end at {@code end}.
     *
     * @param round    what its job did in the interval; null for idle capacity
     * @param hasPeers whether other GPUs of its instance sit on the same NVLink fabric
     */
    TelemetrySample sample(Instant end, double intervalSeconds, JobRound round, boolean hasPeers,
            SplittableRandom random) {
        double jitter = (random.nextDouble() - 0.5) * 0.06;
        double sm;
        double dram;
        double tensor;
        double utilization;
        Double nvlink = null;
        double pcie;
        switch (job.workload()) {
            case DISTRIBUTED_TRAINING, TRAINING -> {
                double exposed = job.commOverheadRatio();
                sm = ratio((1 - exposed) * job.computeSmActive() + exposed * COLLECTIVE_SM_ACTIVE + jitter);
                dram = ratio((1 - exposed) * job.computeDramActive() + exposed * 0.15 + jitter / 2);
                tensor = sm * (job.memoryBound() ? 0.3 : 0.7);
                utilization = ratio(0.97 + jitter / 3);
                double collectiveBytesPerSecond = round.steps() * job.ncclBytesPerGpuStep() / intervalSeconds;
                // Across nodes a hierarchical ring sends about one GPU's share out through the NIC, over PCIe.
                double overNetwork = job.nodes() > 1 ? collectiveBytesPerSecond / job.gpusPerNode() : 0;
                if (hasPeers) {
                    nvlink = collectiveBytesPerSecond - overNetwork;
                }
                pcie = DATA_LOADING_BYTES_PER_SECOND * (1 + jitter) + overNetwork;
            }
            case INFERENCE -> {
                sm = Math.max(MIN_SERVING_SM_ACTIVE, ratio(job.computeSmActive() * round.load() + jitter));
                dram = ratio(job.computeDramActive() * round.load() + jitter / 2);
                tensor = sm * 0.5;
                utilization = ratio(0.1 + 0.85 * round.load() + jitter);
                nvlink = hasPeers ? 0.0 : null;
                pcie = DATA_LOADING_BYTES_PER_SECOND * 0.3 * round.load() * (1 + jitter);
            }
            default -> {
                boolean notebook = job.workload() == Workload.NOTEBOOK;
                sm = random.nextDouble() * (notebook ? 0.03 : 0.004);
                dram = sm * 0.3;
                tensor = 0;
                utilization = notebook ? random.nextDouble() * 0.04 : 0;
                nvlink = hasPeers ? 0.0 : null;
                pcie = notebook ? random.nextDouble() * 1e6 : 0;
            }
        }
        double occupancy = ratio(sm * (0.55 + 0.2 * random.nextDouble()));
        double power = maxPowerWatts * ratio(0.12 + 0.6 * sm + 0.22 * dram);
        // Readings carry the precision collectors give (DCGM ratios to 4 places, power to 0.1 W,
        // memory in MiB, bytes whole): samples stay as small on the wire as real ones.
        return TelemetrySample.builder().gpuUuid(uuid).gpuIndex(index).gpuModel(gpuModel).placement(placement)
                .jobId(job.reportedJobId()).team(job.team()).time(end).intervalSeconds(intervalSeconds)
                .smActive(rounded(sm, 1e4)).smOccupancy(rounded(occupancy, 1e4)).dramActive(rounded(dram, 1e4))
                .tensorActive(rounded(tensor, 1e4)).gpuUtilization(rounded(utilization, 100))
                .powerWatts(rounded(power, 10))
                .memoryUsedBytes(Math.floor(memoryBytes * job.memoryShare() / MIB) * MIB)
                .nvlinkTxBytesPerSecond(nvlink == null ? null : (double) Math.round(nvlink))
                .pcieTxBytesPerSecond((double) Math.round(Math.max(0, pcie))).build();
    }

    /**
     * The sample a time-sliced GPU reports for the interval of {@code round}, ending at {@code end}: its readings
     * follow the time its tenants and any process of no job held it, and its allocations give each tenant's share
     * of the interval by SM time. A shared node belongs to no team: the time no job used is no team's.
     */
    TelemetrySample sharedSample(Instant end, double intervalSeconds, SharedGpuRound round, boolean hasPeers,
            SplittableRandom random) {
        double interval = round.intervalMillis();
        double sm = 0;
        double memoryShare = 0;
        for (SharedGpuRound.Grant grant : round.grants()) {
            sm += grant.millis() / interval * grant.tenant().smIntensity();
            memoryShare += grant.tenant().memoryShare();
        }
        sm = ratio(sm + round.unattributedMillis() / interval * 0.3 + random.nextDouble() * 0.002);
        double busy = ratio(round.busyMillis() / interval);
        double dram = ratio(sm * (0.7 + 0.2 * random.nextDouble()));
        double occupancy = ratio(sm * (0.55 + 0.2 * random.nextDouble()));
        double power = maxPowerWatts * ratio(0.12 + 0.6 * sm + 0.22 * dram);
        return TelemetrySample.builder().gpuUuid(uuid).gpuIndex(index).gpuModel(gpuModel).placement(placement)
                .jobId(job.reportedJobId()).team(job.team()).time(end).intervalSeconds(intervalSeconds)
                .smActive(rounded(sm, 1e4)).smOccupancy(rounded(occupancy, 1e4)).dramActive(rounded(dram, 1e4))
                .tensorActive(rounded(sm * 0.5, 1e4)).gpuUtilization(rounded(busy, 100))
                .powerWatts(rounded(power, 10))
                .memoryUsedBytes(Math.floor(memoryBytes * Math.min(0.95, memoryShare) / MIB) * MIB)
                .nvlinkTxBytesPerSecond(hasPeers ? 0.0 : null)
                .pcieTxBytesPerSecond((double) Math.round(DATA_LOADING_BYTES_PER_SECOND * 0.1 * busy))
                .allocations(round.allocations()).build();
    }

    /**
     * The work reports of the tenants of {@code round} that report work, one each, for the interval ending at
     * {@code end}: the units each completed in the time it was given on this GPU, which it alone used on its node.
     */
    List<JobProgress> sharedReports(Instant end, double intervalSeconds, SharedGpuRound round) {
        List<JobProgress> reports = new ArrayList<>(round.grants().size());
        for (SharedGpuRound.Grant grant : round.grants()) {
            SharedTenant tenant = grant.tenant();
            if (!tenant.reportsWork()) {
                continue;
            }
            JobTraits traits = new JobTraits(tenant.workload().jobIdPrefix() + "-" + tenant.unit(), false, null,
                    Math.floor(memoryBytes * tenant.memoryShare()), WorkloadClass.INFERENCE);
            reports.add(JobProgress.builder().jobId(tenant.id()).team(tenant.team()).host(placement.host())
                    .instanceId(placement.instanceId()).gpuUuids(List.of(uuid)).time(end)
                    .intervalSeconds(intervalSeconds).workUnits(tenant.unitsIn(grant.millis())).unit(tenant.unit())
                    .traits(traits).build());
        }
        return reports;
    }

    private static double ratio(double value) {
        return Math.max(0, Math.min(1, value));
    }

    /** {@code value} to the nearest {@code 1 / scale}. */
    private static double rounded(double value, double scale) {
        return Math.round(value * scale) / scale;
    }
}
