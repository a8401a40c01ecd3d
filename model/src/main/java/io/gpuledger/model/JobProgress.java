package io.gpuledger.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Instant;
import java.util.List;

/**
 * Work a job's processes on one node did in the {@code intervalSeconds} that end at {@code time},
 * as reported by the job itself. Keyed on {@link Topics#JOB_PROGRESS} by {@code jobId}. Each
 * node reports only its own processes, so a job's work is the sum over its nodes; where each
 * process of a node reports its own work, each names itself by {@code rank}, and the node's work
 * is the sum over its ranks.
 *
 * @param rank        the reporting process among the job's processes on its node (its rank, local
 *                    rank or process id); null when one report speaks for all of them
 * @param workUnits   useful work done in the interval (tokens, samples, images, requests)
 * @param unit        what a work unit is ({@code tokens}, {@code samples}, …)
 * @param steps       training or serving steps completed in the interval
 * @param stepSeconds total wall time of those steps
 * @param commSeconds exposed (not overlapped with compute) collective-communication time within them
 * @param ncclBytes   bytes moved by collectives in the interval, if the job knows
 * @param traits      what the job says about itself (workload, interruptible, memory); null when nothing
 */
public record JobProgress(
        @JsonProperty(required = true) String jobId,
        String team,
        @JsonProperty(required = true) String host,
        @JsonProperty(required = true) String instanceId,
        Integer rank,
        List<String> gpuUuids,
        @JsonProperty(required = true) Instant time,
        @JsonProperty(required = true) double intervalSeconds,
        @JsonProperty(required = true) double workUnits,
        @JsonProperty(required = true) String unit,
        long steps,
        Double stepSeconds,
        Double commSeconds,
        Double ncclBytes,
        JobTraits traits) {

    public JobProgress {
        Check.jobId(jobId);
        team = team == null || team.isBlank() ? null : Check.identity("team", team);
        Check.identity("host", host);
        Check.identity("instanceId", instanceId);
        if (rank != null && rank < 0) {
            throw new InvalidRecordException("rank", "must not be negative, was " + rank);
        }
        gpuUuids = gpuUuids == null ? List.of() : List.copyOf(gpuUuids);
        Check.instant("time", time);
        Check.positive("intervalSeconds", intervalSeconds);
        if (intervalSeconds > TelemetrySample.MAX_INTERVAL_SECONDS) {
            throw new InvalidRecordException("intervalSeconds",
                    "must be at most " + TelemetrySample.MAX_INTERVAL_SECONDS + ", was " + intervalSeconds);
        }
        Check.nonNegative("workUnits", workUnits);
        Check.identity("unit", unit);
        if (steps < 0) {
            throw new InvalidRecordException("steps", "must not be negative, was " + steps);
        }
        Check.optionalNonNegative("stepSeconds", stepSeconds);
        Check.optionalNonNegative("commSeconds", commSeconds);
        Check.optionalNonNegative("ncclBytes", ncclBytes);
        if (stepSeconds != null && commSeconds != null && commSeconds > stepSeconds * 1.000001) {
            throw new InvalidRecordException("commSeconds",
                    "exposed communication time " + commSeconds + " s exceeds the step time " + stepSeconds + " s");
        }
    }

    /** A report that speaks for all of the job's processes on its node. */
    public JobProgress(String jobId, String team, String host, String instanceId, List<String> gpuUuids, Instant time,
            double intervalSeconds, double workUnits, String unit, long steps, Double stepSeconds, Double commSeconds,
            Double ncclBytes, JobTraits traits) {
        this(jobId, team, host, instanceId, null, gpuUuids, time, intervalSeconds, workUnits, unit, steps, stepSeconds,
                commSeconds, ncclBytes, traits);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Fluent construction; {@link #build()} validates like the JSON reader does. */
    public static final class Builder {
        private String jobId;
        private String team;
        private String host;
        private String instanceId;
        private Integer rank;
        private List<String> gpuUuids;
        private Instant time;
        private double intervalSeconds;
        private double workUnits;
        private String unit;
        private long steps;
        private Double stepSeconds;
        private Double commSeconds;
        private Double ncclBytes;
        private JobTraits traits;

        private Builder() {
        }

        public Builder jobId(String value) { jobId = value; return this; }
        public Builder team(String value) { team = value; return this; }
        public Builder host(String value) { host = value; return this; }
        public Builder instanceId(String value) { instanceId = value; return this; }
        public Builder rank(Integer value) { rank = value; return this; }
        public Builder gpuUuids(List<String> value) { gpuUuids = value; return this; }
        public Builder time(Instant value) { time = value; return this; }
        public Builder intervalSeconds(double value) { intervalSeconds = value; return this; }
        public Builder workUnits(double value) { workUnits = value; return this; }
        public Builder unit(String value) { unit = value; return this; }
        public Builder steps(long value) { steps = value; return this; }
        public Builder stepSeconds(Double value) { stepSeconds = value; return this; }
        public Builder commSeconds(Double value) { commSeconds = value; return this; }
        public Builder ncclBytes(Double value) { ncclBytes = value; return this; }
        public Builder traits(JobTraits value) { traits = value; return this; }

        public JobProgress build() {
            return new JobProgress(jobId, team, host, instanceId, rank, gpuUuids, time, intervalSeconds, workUnits,
                    unit, steps, stepSeconds, commSeconds, ncclBytes, traits);
        }
    }
}
