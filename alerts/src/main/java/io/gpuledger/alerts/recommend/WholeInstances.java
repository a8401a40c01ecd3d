package io.gpuledger.alerts.recommend;

/**
 * The units the bill has: a job's GPU equivalents rounded up to whole GPUs (seven 1/7 MIG slices are
 * one GPU), and whole instances of them, since clouds bill instances whole.
 */
final class WholeInstances {

    private WholeInstances() {
    }

    /** Whole GPUs {@code gpuEquivalents} take: at least one. */
    static int gpus(double gpuEquivalents) {
        return (int) Math.max(1, Math.ceil(gpuEquivalents - 1e-9));
    }

    /** Instances of {@code gpusPerInstance} GPUs that {@code gpus} whole GPUs take. */
    static int of(int gpus, int gpusPerInstance) {
        return (gpus + gpusPerInstance - 1) / gpusPerInstance;
    }

    /** Whether the job's GPUs are spread over more than one instance of {@code gpusPerInstance}. */
    static boolean spread(JobView job, int gpusPerInstance) {
        return gpus(job.gpuEquivalents()) > gpusPerInstance;
    }
}
