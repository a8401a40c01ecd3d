package io.gpuledger.model;

/**
 * A job as a capacity notice finds it on an instance: how many of the instance's GPUs it runs on
 * and what they cost together.
 *
 * @param costPerHour  sum over those GPUs priced in the instance's currency (see {@link EnrichedCapacityEvent})
 */
public record PlacedJob(String jobId, int gpus, double costPerHour) {

    public PlacedJob {
        Check.identity("jobId", jobId);
        if (gpus < 1) {
            throw new InvalidRecordException("gpus", "must be at least 1, was " + gpus);
        }
        Check.nonNegative("costPerHour", costPerHour);
    }
}
