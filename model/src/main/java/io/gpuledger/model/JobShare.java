package io.gpuledger.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.ArrayList;
import java.util.List;

/**
 * A job's part of a shared GPU as a capacity notice lists it ({@link PlacedGpu#sharedBy()}).
 *
 * @param jobId the job
 * @param share its part of the GPU's cost in the GPU's latest window, 0–1
 */
public record JobShare(@JsonProperty(required = true) String jobId, @JsonProperty(required = true) double share) {

    public JobShare {
        Check.identity("jobId", jobId);
        Check.ratio("share", share);
    }

    /**
     * The jobs of a shared GPU's window, each with its part of the window's cost (of its GPU time where the
     * window cost nothing); empty for a window of one job.
     */
    public static List<JobShare> of(GpuUsage usage) {
        if (usage.jobParts().isEmpty()) {
            return List.of();
        }
        boolean byCost = usage.cost() > 0;
        double whole = byCost ? usage.cost() : usage.totals().gpuSeconds();
        List<JobShare> shares = new ArrayList<>(usage.jobParts().size());
        for (JobPart part : usage.jobParts()) {
            double taken = byCost ? part.cost() : part.gpuSeconds();
            shares.add(new JobShare(part.jobId(), whole > 0 ? Math.min(1, Math.max(0, taken / whole)) : 0));
        }
        return shares;
    }
}
