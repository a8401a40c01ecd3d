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
     * The jobs of a shared GPU's window, each with its part of the window's cost ({@link #shareOf}); empty for a
     * window of one job. The jobs past those a window lists ({@link JobPart#UNLISTED_JOB}) are no one job: they are
     * not listed, and their part stays in the GPU's cost only.
     */
    public static List<JobShare> of(GpuUsage usage) {
        List<JobShare> shares = new ArrayList<>(usage.jobParts().size());
        for (JobPart part : usage.jobParts()) {
            if (part.jobCharged() != null) {
                shares.add(new JobShare(part.jobId(), shareOf(usage, part)));
            }
        }
        return shares;
    }

    /** A part's share of its shared GPU's window, 0–1: of its cost, or of its GPU time where it cost nothing. */
    public static double shareOf(GpuUsage usage, JobPart part) {
        boolean byCost = usage.cost() > 0;
        double whole = byCost ? usage.cost() : usage.totals().gpuSeconds();
        double taken = byCost ? part.cost() : part.gpuSeconds();
        return whole > 0 ? Math.min(1, Math.max(0, taken / whole)) : 0;
    }
}
