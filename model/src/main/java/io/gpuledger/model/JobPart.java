package io.gpuledger.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonSetter;
import com.fasterxml.jackson.annotation.Nulls;

/**
 * One job's part of a shared GPU's window ({@link GpuUsage#jobParts()}): what the job's shares of the window's
 * samples took of the GPU's charge. The parts' costs and the window's {@code unallocatedCost} add up to its
 * {@code cost}; its unmonitored cost, an estimate kept beside the cost, is no job's either. In a GPU's hour
 * ({@link GpuHour}), a part also holds the estimate for the time no sample covered in minutes that were its job's
 * alone, as the roll-ups give it to the job: the rest of the hour's unmonitored time is no job's.
 *
 * @param jobId      the job
 * @param team       the team charged: the allocation's, or the node's when the allocation names none
 * @param gpuSeconds the GPU seconds of its shares (a share of 0.3 over a 10 s sample: 3)
 * @param cost       its part of the window's cost, in the window's currency
 * @param energyKwh  its part of the window's energy
 * @param unpricedSeconds its part of the GPU seconds no price was known for
 * @param unmonitoredSeconds in an hour, the GPU seconds no sample covered in minutes that were its job's alone
 *                           (a MIG slice's share of them); 0 in a window, and in hours sent before it was kept
 * @param unmonitoredCost    what those seconds cost, at the price in force: an estimate, not part of {@code cost}
 */
public record JobPart(
        @JsonProperty(required = true) String jobId,
        String team,
        double gpuSeconds,
        double cost,
        double energyKwh,
        double unpricedSeconds,
        @JsonInclude(JsonInclude.Include.NON_DEFAULT) @JsonSetter(nulls = Nulls.AS_EMPTY) double unmonitoredSeconds,
        @JsonInclude(JsonInclude.Include.NON_DEFAULT) @JsonSetter(nulls = Nulls.AS_EMPTY) double unmonitoredCost) {

    /**
     * The job of a part that holds, for its team, what jobs past the first {@value #MAX_LISTED} of a window or hour
     * took: a GPU shared by more jobs than that lists its first ones by name, the others by team, so that every
     * team still gets what its jobs took and a record stays within what a broker takes.
     */
    public static final String UNLISTED_JOB = "unlisted";
    /**
     * The most jobs a window's or hour's parts name, besides a job really named {@value #UNLISTED_JOB}, which the
     * parts cannot tell from a team's entry and so do not count.
     */
    public static final int MAX_LISTED = 240;

    public JobPart {
        Check.identity("jobId", jobId);
        team = team == null || team.isBlank() ? null : Check.identity("team", team);
        Check.nonNegative("gpuSeconds", gpuSeconds);
        Check.nonNegative("cost", cost);
        Check.nonNegative("energyKwh", energyKwh);
        Check.nonNegative("unpricedSeconds", unpricedSeconds);
        Check.nonNegative("unmonitoredSeconds", unmonitoredSeconds);
        Check.nonNegative("unmonitoredCost", unmonitoredCost);
    }

    /** A part with no unmonitored time: every part of a window. */
    public JobPart(String jobId, String team, double gpuSeconds, double cost, double energyKwh,
            double unpricedSeconds) {
        this(jobId, team, gpuSeconds, cost, energyKwh, unpricedSeconds, 0, 0);
    }

    /** Whether {@code jobId} is that of a part holding its team's jobs past those listed ({@link #UNLISTED_JOB}). */
    public static boolean unlisted(String jobId) {
        return UNLISTED_JOB.equals(jobId);
    }

    /** The job charged with this part; null for one that holds its team's unlisted jobs, which are no one job. */
    public String jobCharged() {
        return unlisted(jobId) ? null : jobId;
    }

    /** The team charged with this part: its own, or the node's, {@code nodeTeam}, when it names none. */
    public String teamCharged(String nodeTeam) {
        return team == null ? nodeTeam : team;
    }
}
