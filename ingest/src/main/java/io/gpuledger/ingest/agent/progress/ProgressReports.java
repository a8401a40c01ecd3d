package io.gpuledger.ingest.agent.progress;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import io.gpuledger.model.InvalidRecordException;
import io.gpuledger.model.JobProgress;
import io.gpuledger.model.JobTraits;
import io.gpuledger.model.Json;
import io.gpuledger.model.Placement;
import io.gpuledger.model.WorkloadClass;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Work reports of the jobs on this node ({@code POST /v1/progress}): each becomes a
 * {@link JobProgress} for {@code gpu.job-progress.v1}, and tells the agent which job runs on the
 * GPUs it names, so that their samples carry that job. A job's claim on a GPU lapses when it has
 * not reported for {@link #CLAIM_TTL}. Each process of a job may report its own work, naming its
 * {@code rank}; a report without an interval covers the time since its own process's last one.
 */
public final class ProgressReports {

    public static final Duration CLAIM_TTL = Duration.ofMinutes(5);

    /** The body a job posts; field names are those of {@link JobProgress}, so errors name them alike. */
    record Report(
            @JsonProperty(required = true) String jobId,
            Integer rank,
            String team,
            @JsonProperty(required = true) Double workUnits,
            @JsonProperty(required = true) String unit,
            Long steps,
            Double stepSeconds,
            Double commSeconds,
            Double ncclBytes,
            List<JsonNode> gpus,
            Double intervalSeconds,
            String workload,
            Boolean interruptible,
            Double checkpointIntervalSeconds,
            Double peakMemoryBytes,
            WorkloadClass workloadClass) {

        JobTraits traits() {
            JobTraits traits = new JobTraits(workload, interruptible, checkpointIntervalSeconds, peakMemoryBytes,
                    workloadClass);
            return traits.equals(JobTraits.NONE) ? null : traits;
        }
    }

    /** A job's claim on a GPU, as of its last report. */
    public record Claim(String jobId, String team, Instant reportedAt) {
    }

    private final Placement placement;
    private final Clock clock;
    /** When each process last reported, by {@code jobId} or {@code jobId|rank}. */
    private final Map<String, Instant> lastReport = new ConcurrentHashMap<>();
    private final Map<String, Claim> claims = new ConcurrentHashMap<>();

    public ProgressReports(Placement placement, Clock clock) {
        this.placement = placement;
        this.clock = clock;
    }

    /**
     * Reads one report.
     *
     * @throws InvalidRecordException naming the field that is missing or wrong
     */
    public JobProgress accept(byte[] body) {
        Report report = Json.read(body, Report.class);
        Instant now = clock.instant();
        Check.required("workUnits", report.workUnits());
        Instant previous = report.jobId() == null ? null : lastReport.get(processOf(report.jobId(), report.rank()));
        double interval;
        if (report.intervalSeconds() != null) {
            interval = report.intervalSeconds();
        } else if (previous != null) {
            interval = Math.max(0.001, Duration.between(previous, now).toMillis() / 1000.0);
        } else if (report.stepSeconds() != null && report.stepSeconds() > 0) {
            interval = report.stepSeconds();
        } else {
            throw new InvalidRecordException("intervalSeconds",
                    "is required on a job's first report (or give stepSeconds)");
        }
        List<String> gpuUuids = new ArrayList<>();
        List<String> gpuRefs = new ArrayList<>();
        if (report.gpus() != null) {
            for (JsonNode gpu : report.gpus()) {
                if (gpu.isInt() && gpu.asInt() >= 0) {
                    gpuRefs.add(String.valueOf(gpu.asInt()));
                } else if (gpu.isTextual() && !gpu.asText().isBlank()) {
                    gpuRefs.add(gpu.asText());
                    gpuUuids.add(gpu.asText());
                } else {
                    throw new InvalidRecordException("gpus", "holds GPU UUIDs or indices, not " + gpu);
                }
            }
        }
        JobProgress progress = new JobProgress(report.jobId(), report.team(), placement.host(),
                placement.instanceId(), report.rank(), gpuUuids, now, interval, report.workUnits(), report.unit(),
                report.steps() == null ? 0 : report.steps(), report.stepSeconds(), report.commSeconds(),
                report.ncclBytes(), report.traits());
        lastReport.put(processOf(progress.jobId(), progress.rank()), now);
        for (String gpu : gpuRefs) {
            claims.put(gpu, new Claim(progress.jobId(), progress.team(), now));
        }
        return progress;
    }

    /** Ranks of a job report the same time, each its own: an interval runs from its own process's last report. */
    private static String processOf(String jobId, Integer rank) {
        return rank == null ? jobId : jobId + "|" + rank;
    }

    /** The job that last claimed the GPU by UUID or by index, unless the claim has lapsed. */
    public Optional<Claim> claimOf(String gpuUuid, Integer index, Instant now) {
        Claim claim = claims.get(gpuUuid);
        if (claim == null && index != null) {
            claim = claims.get(String.valueOf(index));
        }
        if (claim == null || Duration.between(claim.reportedAt(), now).compareTo(CLAIM_TTL) > 0) {
            return Optional.empty();
        }
        return Optional.of(claim);
    }

    private static final class Check {
        private static void required(String field, Object value) {
            if (value == null) {
                throw new InvalidRecordException(field, "is required");
            }
        }
    }
}
