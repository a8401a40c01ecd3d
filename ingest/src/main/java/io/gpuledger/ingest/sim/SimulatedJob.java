package io.gpuledger.ingest.sim;

import io.gpuledger.model.JobTraits;
import io.gpuledger.model.Offer;
import io.gpuledger.model.TelemetrySample;
import io.gpuledger.model.WorkloadClass;
import java.util.List;

/**
 * A job of the simulated fleet and the traits it keeps for its whole life: where it runs, how big
 * it is, whether and how it reports work, and the figures its GPUs' telemetry is drawn around.
 * Idle capacity is a job too (a notebook, or a spare node), so that every GPU has one.
 *
 * <p>Training is data parallel: every step ends with a ring all-reduce of the gradients over all
 * of the job's GPUs, and the part of it that is not overlapped with compute is the exposed
 * communication time, a fixed share of the step ({@link #commOverheadRatio()}).
 *
 * @param id                the job's name; spare capacity has one as well but reports none
 * @param team              who pays for it; null for spare capacity
 * @param offer             the pool its nodes are bought from: one instance type, bought one way
 * @param nodes             instances it spans
 * @param gpusPerNode       GPUs it uses on each of them
 * @param unit              what its work units are ({@code tokens}, {@code samples}, {@code requests}); null when idle
 * @param reportsWork       whether it publishes job progress; a job that does not must show as "no throughput reported"
 * @param memoryBound       limited by memory bandwidth rather than arithmetic: high DRAM, low SM activity
 * @param computeSmActive   SM activity while computing (training) or at full load (inference)
 * @param computeDramActive DRAM activity likewise
 * @param memoryShare       share of each GPU's memory it holds
 * @param commOverheadRatio exposed collective time over step time, the same every step; 0 without collectives
 * @param stepSeconds       mean wall time of one training step, or of one inference batch
 * @param unitsPerGpuStep   work units one GPU completes per step (or batch)
 * @param busBandwidth      all-reduce bus bandwidth, bytes/s (the nccl-tests definition); 0 without collectives
 * @param loadPeriodSeconds inference only: period of its load cycle; 0 for steady work
 * @param loadPhase         inference only: where in its cycle it stands at the epoch, in radians
 * @param tenants           {@link Workload#SHARED} only: the jobs time-sliced on each of its GPUs; empty otherwise
 */
public record SimulatedJob(
        String id,
        String team,
        Workload workload,
        Offer offer,
        String gpuModel,
        int nodes,
        int gpusPerNode,
        String unit,
        boolean reportsWork,
        boolean memoryBound,
        double computeSmActive,
        double computeDramActive,
        double memoryShare,
        double commOverheadRatio,
        double stepSeconds,
        double unitsPerGpuStep,
        double busBandwidth,
        double loadPeriodSeconds,
        double loadPhase,
        List<SharedTenant> tenants) {

    public SimulatedJob {
        tenants = tenants == null ? List.of() : List.copyOf(tenants);
    }

    public boolean idle() {
        return workload.idle();
    }

    /**
     * What the job says of itself in its work reports: training checkpoints (every 30 minutes)
     * and survives an interruption, serving does not and says it serves (its work is its demand);
     * its workload is named by kind and unit so that alike jobs on different pools can be compared.
     */
    public JobTraits traits() {
        if (!reportsWork || unit == null) {
            return null;
        }
        boolean checkpoints = workload.training();
        return new JobTraits(workload.jobIdPrefix() + "-" + unit, checkpoints, checkpoints ? 1800.0 : null,
                Math.floor(GpuSpecs.memoryBytes(gpuModel) * memoryShare),
                workload == Workload.INFERENCE ? WorkloadClass.INFERENCE : null);
    }

    /**
     * The job id its GPUs report: none for spare capacity, which the contract then calls {@code unknown}; the
     * contract's {@code shared} for a shared GPU, whose samples name their jobs in their allocations.
     */
    public String reportedJobId() {
        return switch (workload) {
            case UNALLOCATED -> null;
            case SHARED -> TelemetrySample.SHARED_JOB;
            default -> id;
        };
    }

    public boolean shared() {
        return workload == Workload.SHARED;
    }

    /** Whether work reports of it appear on the job-progress topic. */
    public boolean publishesProgress() {
        return reportsWork && !idle();
    }

    public int gpus() {
        return nodes * gpusPerNode;
    }

    /** A ring all-reduce over n ranks moves 2(n−1)/n times the reduced bytes through each rank. */
    public double busFactor() {
        int ranks = gpus();
        return workload.training() && ranks > 1 ? 2.0 * (ranks - 1) / ranks : 0;
    }

    public double commSecondsPerStep() {
        return commOverheadRatio * stepSeconds;
    }

    /** Bytes reduced per step (the gradients), implied by the bus bandwidth and the exposed time. */
    public double allReduceBytes() {
        double factor = busFactor();
        return factor == 0 ? 0 : busBandwidth * commSecondsPerStep() / factor;
    }

    /** algbw = reduced bytes ÷ collective time; busbw = algbw × 2(n−1)/n. */
    public double algorithmBandwidth() {
        double seconds = commSecondsPerStep();
        return seconds == 0 ? 0 : allReduceBytes() / seconds;
    }

    /** Bytes each GPU sends through collectives in one step. */
    public double ncclBytesPerGpuStep() {
        return busFactor() * allReduceBytes();
    }

    /**
     * Share of full load at a moment: steady work is always at 1, serving follows its cycle between
     * 0.2 and 0.9.
     */
    public double load(double epochSeconds) {
        if (loadPeriodSeconds <= 0) {
            return 1;
        }
        return 0.55 + 0.35 * StrictMath.sin(2 * Math.PI * epochSeconds / loadPeriodSeconds + loadPhase);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Fluent construction; what is not set is null, false or 0: no work, no collectives, steady load. */
    public static final class Builder {
        private String id;
        private String team;
        private Workload workload;
        private Offer offer;
        private String gpuModel;
        private int nodes;
        private int gpusPerNode;
        private String unit;
        private boolean reportsWork;
        private boolean memoryBound;
        private double computeSmActive;
        private double computeDramActive;
        private double memoryShare;
        private double commOverheadRatio;
        private double stepSeconds;
        private double unitsPerGpuStep;
        private double busBandwidth;
        private double loadPeriodSeconds;
        private double loadPhase;
        private List<SharedTenant> tenants;

        private Builder() {
        }

        public Builder id(String value) { id = value; return this; }
        public Builder team(String value) { team = value; return this; }
        public Builder workload(Workload value) { workload = value; return this; }
        public Builder offer(Offer value) { offer = value; return this; }
        public Builder gpuModel(String value) { gpuModel = value; return this; }
        public Builder nodes(int value) { nodes = value; return this; }
        public Builder gpusPerNode(int value) { gpusPerNode = value; return this; }
        public Builder unit(String value) { unit = value; return this; }
        public Builder reportsWork(boolean value) { reportsWork = value; return this; }
        public Builder memoryBound(boolean value) { memoryBound = value; return this; }
        public Builder computeSmActive(double value) { computeSmActive = value; return this; }
        public Builder computeDramActive(double value) { computeDramActive = value; return this; }
        public Builder memoryShare(double value) { memoryShare = value; return this; }
        public Builder commOverheadRatio(double value) { commOverheadRatio = value; return this; }
        public Builder stepSeconds(double value) { stepSeconds = value; return this; }
        public Builder unitsPerGpuStep(double value) { unitsPerGpuStep = value; return this; }
        public Builder busBandwidth(double value) { busBandwidth = value; return this; }
        public Builder loadPeriodSeconds(double value) { loadPeriodSeconds = value; return this; }
        public Builder loadPhase(double value) { loadPhase = value; return this; }
        public Builder tenants(List<SharedTenant> value) { tenants = value; return this; }

        public SimulatedJob build() {
            return new SimulatedJob(id, team, workload, offer, gpuModel, nodes, gpusPerNode, unit, reportsWork,
                    memoryBound, computeSmActive, computeDramActive, memoryShare, commOverheadRatio, stepSeconds,
                    unitsPerGpuStep, busBandwidth, loadPeriodSeconds, loadPhase, tenants);
        }
    }
}
