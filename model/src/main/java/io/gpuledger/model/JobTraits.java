package io.gpuledger.model;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * What a job says about itself that telemetry cannot show, all optional. The recommendation rules
 * use it: a job that does not say it is interruptible is never advised onto spot, and a job that
 * does not report its memory is only advised onto GPUs with at least the memory it has now.
 *
 * @param workload                  the name of what it runs ({@code llama-7b-pretrain}): jobs with the same
 *                                  workload and unit can be compared across pools
 * @param interruptible             whether it survives losing its instance (it checkpoints and resumes)
 * @param checkpointIntervalSeconds how often it checkpoints: an interruption loses the work since the last one
 * @param peakMemoryBytes           the most GPU memory one of its processes uses
 * @param workloadClass             what kind of work it is, which decides how other GPUs are expected to
 *                                  run it; null when it does not say. {@code inference} is taken as serving:
 *                                  work bounded by the demand, which a faster GPU serves no more of
 * @param headroom                  for serving, the share of capacity it keeps above its peak demand (0.3:
 *                                  capacity for 1.3 times the peak); null when it does not say
 * @param storageBytesPerHour       the bytes an hour it reads from and writes to storage in its region
 *                                  (its data and checkpoints): what moving it to another region sends
 *                                  across; null when it does not say
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record JobTraits(String workload, Boolean interruptible, Double checkpointIntervalSeconds,
        Double peakMemoryBytes, WorkloadClass workloadClass, Double headroom, Double storageBytesPerHour) {

    public static final JobTraits NONE = new JobTraits(null, null, null, null, null);

    public JobTraits {
        workload = workload == null || workload.isBlank() ? null : Check.identity("traits.workload", workload);
        Check.optionalNonNegative("traits.checkpointIntervalSeconds", checkpointIntervalSeconds);
        Check.optionalNonNegative("traits.peakMemoryBytes", peakMemoryBytes);
        Check.optionalNonNegative("traits.headroom", headroom);
        Check.optionalNonNegative("traits.storageBytesPerHour", storageBytesPerHour);
    }

    /** Traits that do not name a workload class. */
    public JobTraits(String workload, Boolean interruptible, Double checkpointIntervalSeconds,
            Double peakMemoryBytes) {
        this(workload, interruptible, checkpointIntervalSeconds, peakMemoryBytes, null);
    }

    /** Traits that say nothing of serving headroom or storage traffic. */
    public JobTraits(String workload, Boolean interruptible, Double checkpointIntervalSeconds,
            Double peakMemoryBytes, WorkloadClass workloadClass) {
        this(workload, interruptible, checkpointIntervalSeconds, peakMemoryBytes, workloadClass, null, null);
    }

    /** Whether its work is serving: bounded by its demand, not by how fast its GPUs are. */
    public boolean isServing() {
        return workloadClass == WorkloadClass.INFERENCE;
    }

    public boolean isInterruptible() {
        return Boolean.TRUE.equals(interruptible);
    }
}
