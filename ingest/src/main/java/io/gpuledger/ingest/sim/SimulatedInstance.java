package io.gpuledger.ingest.sim;

import io.gpuledger.model.JobProgress;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Offer;
import io.gpuledger.model.Placement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * One simulated instance: a node of one job, with the GPUs the job uses on it.
 *
 * @param serial   the order in which the simulation launched it; names derive from it
 * @param nodeRank which of its job's nodes it is (a replacement takes over its predecessor's rank)
 */
public record SimulatedInstance(int serial, Placement placement, SimulatedJob job, int nodeRank,
        List<SimulatedGpu> gpus) {

    public SimulatedInstance {
        gpus = List.copyOf(gpus);
    }

    /** A new instance of the job's pool for the job's node {@code nodeRank}, named from {@code serial}. */
    static SimulatedInstance launch(int serial, long seed, SimulatedJob job, int nodeRank) {
        Offer offer = job.offer();
        String instanceId = Names.instanceId(offer.provider(), seed, serial);
        Placement placement = new Placement(Names.host(serial), instanceId, offer.instanceType(), offer.provider(),
                offer.region(), offer.lifecycle());
        double memory = GpuSpecs.memoryBytes(job.gpuModel());
        double power = GpuSpecs.maxPowerWatts(job.gpuModel());
        List<SimulatedGpu> gpus = new ArrayList<>(job.gpusPerNode());
        for (int index = 0; index < job.gpusPerNode(); index++) {
            gpus.add(new SimulatedGpu(Names.gpuUuid(instanceId, index), index, job.gpuModel(), placement, job, memory,
                    power));
        }
        return new SimulatedInstance(serial, placement, job, nodeRank, gpus);
    }

    public String instanceId() {
        return placement.instanceId();
    }

    public Offer offer() {
        return placement.offer();
    }

    public boolean spot() {
        return placement.lifecycle() == Lifecycle.SPOT;
    }

    public List<String> gpuUuids() {
        return gpus.stream().map(SimulatedGpu::uuid).toList();
    }

    /**
     * The job's report for this node and interval: its GPUs' work, its steps, and the exposed
     * communication within them (none is asked of serving, which runs no collectives).
     */
    JobProgress report(JobRound round, Instant end, double intervalSeconds) {
        int count = gpus.size();
        double stepSeconds = round.stepSeconds();
        boolean training = job.workload().training();
        Double commSeconds = training ? job.commOverheadRatio() * stepSeconds : null;
        Double ncclBytes = training ? round.steps() * count * job.ncclBytesPerGpuStep() : null;
        return JobProgress.builder().jobId(job.id()).team(job.team()).host(placement.host())
                .instanceId(placement.instanceId()).gpuUuids(gpuUuids()).time(end).intervalSeconds(intervalSeconds)
                .workUnits(round.steps() * count * job.unitsPerGpuStep()).unit(job.unit()).steps(round.steps())
                .stepSeconds(stepSeconds).commSeconds(commSeconds).ncclBytes(ncclBytes).traits(job.traits()).build();
    }
}
