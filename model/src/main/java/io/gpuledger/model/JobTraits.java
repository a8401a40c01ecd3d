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
 * @param checkpointIntervalSeconds how often it checkpoints: half of it is the work an interruption loses on average
 * @param peakMemoryBytes           the most GPU memory one of its processes uses
 * @param workloadClass             what kind of work it is, which decides how other GPUs are expected to
 *                                  run it; null when it does not say
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record JobTraits(String workload, Boolean interruptible, Double checkpointIntervalSeconds,
        Double peakMemoryBytes, WorkloadClass workloadClass) {

    public static final JobTraits NONE = new JobTraits(null, null, null, null, null);

    public JobTraits {
        workload = workload == null || workload.isBlank() ? null : Check.identity("traits.workload", workload);
        Check.optionalNonNegative("traits.checkpointIntervalSeconds", checkpointIntervalSeconds);
        Check.optionalNonNegative("traits.peakMemoryBytes", peakMemoryBytes);
    }

    /** Traits that do not name a workload class. */
    public JobTraits(String workload, Boolean interruptible, Double checkpointIntervalSeconds,
            Double peakMemoryBytes) {
        this(workload, interruptible, checkpointIntervalSeconds, peakMemoryBytes, null);
    }

    public boolean isInterruptible() {
        return Boolean.TRUE.equals(interruptible);
    }
}
