package io.gpuledger.ingest.agent.progress;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import io.gpuledger.model.InvalidRecordException;
import io.gpuledger.model.JobProgress;
import io.gpuledger.model.JobTraits;
import io.gpuledger.model.Json;
import io.gpuledger.model.Placement;
import io.gpuledger.model.TelemetrySample;
import io.gpuledger.model.WorkloadClass;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Work reports of the jobs on this node ({@code POST /v1/progress}): each becomes a
 * {@link JobProgress} for {@code gpu.job-progress.v1}, and tells the agent which job runs on the
 * GPUs it names, so that their samples carry that job. A job's claim on a GPU lapses when it has
 * not reported for {@link #CLAIM_TTL}. Each process of a job may report its own work, naming its
 * {@code rank}; a report without an interval covers the time since its own process's last one. A report's
 * {@code pid} claims that process, known by its pid and start time: not a later one given the same pid.
 *
 * <p>What it remembers is bounded whatever callers send: a process is forgotten {@link #REPORT_TTL}
 * after its last report and a claim once it lapses, and a report that would make it remember more
 * than {@link #MAX_PROCESSES} processes or {@link #MAX_CLAIMS} claims is refused ({@link Full}) and
 * counted. Bodies are read strictly: a value of the wrong JSON type is refused, not converted.
 */
public final class ProgressReports {

    public static final Duration CLAIM_TTL = Duration.ofMinutes(5);
    /** No report covers more than this, so a process silent this long has no interval to continue. */
    public static final Duration REPORT_TTL = Duration.ofSeconds((long) TelemetrySample.MAX_INTERVAL_SECONDS);
    /** Processes remembered at most: a node runs a few per GPU; 1,024 leaves room for short-lived jobs. */
    public static final int MAX_PROCESSES = 1024;
    /** Claims remembered at most, by GPU UUID or index: a node has at most a few dozen GPUs or MIG slices. */
    public static final int MAX_CLAIMS = 1024;
    /** GPUs one report may name. */
    public static final int MAX_GPUS_PER_REPORT = 256;
    /** Claims of processes share the table of GPU claims, under keys no GPU UUID or index can have. */
    private static final String PROCESS_CLAIM = "pid:";
    /** How often expired entries are looked for, besides whenever a table is full. */
    private static final Duration PRUNE_EVERY = Duration.ofMinutes(1);

    /** A report refused because the agent already remembers as many processes or claims as it may. */
    public static final class Full extends RuntimeException {
        Full(String message) {
            super(message);
        }
    }

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
            Integer pid,
            Double intervalSeconds,
            String workload,
            Boolean interruptible,
            Double checkpointIntervalSeconds,
            Double peakMemoryBytes,
            WorkloadClass workloadClass,
            Double headroom,
            Double storageBytesPerHour) {

        JobTraits traits() {
            JobTraits traits = new JobTraits(workload, interruptible, checkpointIntervalSeconds, peakMemoryBytes,
                    workloadClass, headroom, storageBytesPerHour);
            return traits.equals(JobTraits.NONE) ? null : traits;
        }
    }

    /**
     * A job's claim on a GPU or a process, as of its last report.
     *
     * @param processStart the claimed process's start ({@link ProcessStart}) when the claim was made; null for a
     *                     GPU's claim, or a process the agent could not see
     */
    public record Claim(String jobId, String team, Instant reportedAt, Long processStart) {
    }

    private final Placement placement;
    private final Clock clock;
    private final Path procRoot;
    /** When each process last reported, by {@code jobId} or {@code jobId|rank}. */
    private final Map<String, Instant> lastReport = new ConcurrentHashMap<>();
    private final Map<String, Claim> claims = new ConcurrentHashMap<>();
    private final AtomicLong refusedFull = new AtomicLong();
    private Instant lastPrune = Instant.MIN;

    /**
     * @param procRoot the host's process table (normally {@code /proc}), where a claimed process's start is read
     */
    public ProgressReports(Placement placement, Clock clock, Path procRoot) {
        this.placement = placement;
        this.clock = clock;
        this.procRoot = procRoot;
    }

    /** Reads one report from a caller that may report any job: on a loopback-only endpoint. */
    public JobProgress accept(byte[] body) {
        return accept(body, Optional.empty());
    }

    /**
     * Reads one report, by a caller whose token was issued for {@code job} when one is given.
     *
     * @throws InvalidRecordException naming the field that is missing or wrong
     * @throws JobToken.Refused       (403) when the report is for another job than its token's
     * @throws Full                   when it would make the agent remember too many processes or claims
     */
    public JobProgress accept(byte[] body, Optional<String> job) {
        Report report = Json.readStrict(body, Report.class);
        if (job.isPresent() && !job.get().equals(report.jobId())) {
            // Before anything is remembered: a refused report claims no GPU and starts no interval.
            throw new JobToken.Refused(403, "the token is for job '" + job.get() + "', not for '" + report.jobId()
                    + "'");
        }
        Check.required("workUnits", report.workUnits());
        if (report.pid() != null && report.pid() <= 0) {
            throw new InvalidRecordException("pid", "is a process id of this node, above 0, not " + report.pid());
        }
        if (report.gpus() != null && report.gpus().size() > MAX_GPUS_PER_REPORT) {
            throw new InvalidRecordException("gpus", "names " + report.gpus().size() + " GPUs; a node's report names"
                    + " at most " + MAX_GPUS_PER_REPORT);
        }
        // One report at a time: the tables' bounds hold exactly, and an interval runs from the last report taken.
        synchronized (this) {
            return remember(report, clock.instant());
        }
    }

    private JobProgress remember(Report report, Instant now) {
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
                } else if (gpu.isTextual() && !gpu.asText().isBlank() && !gpu.asText().startsWith(PROCESS_CLAIM)) {
                    gpuRefs.add(gpu.asText());
                    gpuUuids.add(gpu.asText());
                } else {
                    throw new InvalidRecordException("gpus", "holds GPU UUIDs or indices, not " + gpu);
                }
            }
        }
        JobProgress progress = JobProgress.builder().jobId(report.jobId()).team(report.team())
                .host(placement.host()).instanceId(placement.instanceId()).rank(report.rank()).gpuUuids(gpuUuids)
                .time(now).intervalSeconds(interval).workUnits(report.workUnits()).unit(report.unit())
                .steps(report.steps() == null ? 0 : report.steps()).stepSeconds(report.stepSeconds())
                .commSeconds(report.commSeconds()).ncclBytes(report.ncclBytes()).traits(report.traits()).build();
        String process = processOf(progress.jobId(), progress.rank());
        List<String> claimed = new ArrayList<>(gpuRefs);
        if (report.pid() != null) {
            claimed.add(PROCESS_CLAIM + report.pid());
        }
        makeRoom(process, claimed, now);
        lastReport.put(process, now);
        for (String key : gpuRefs) {
            claims.put(key, new Claim(progress.jobId(), progress.team(), now, null));
        }
        if (report.pid() != null) {
            // The process's start, kept with its pid: a later process given the same pid is not claimed.
            OptionalLong start = ProcessStart.of(procRoot, report.pid());
            claims.put(PROCESS_CLAIM + report.pid(), new Claim(progress.jobId(), progress.team(), now,
                    start.isPresent() ? start.getAsLong() : null));
        }
        return progress;
    }

    /**
     * Forgets what expired when it is time to look, or when the report would not fit; refuses it if it still does not.
     */
    private void makeRoom(String process, List<String> gpuRefs, Instant now) {
        if (!Duration.between(lastPrune, now).minus(PRUNE_EVERY).isNegative() || !fits(process, gpuRefs)) {
            prune(now);
        }
        if (!fits(process, gpuRefs)) {
            refusedFull.incrementAndGet();
            throw new Full("this agent already remembers " + lastReport.size() + " processes (at most "
                    + MAX_PROCESSES + ") and " + claims.size() + " GPU claims (at most " + MAX_CLAIMS
                    + "); each is forgotten " + REPORT_TTL.toMinutes() + " and " + CLAIM_TTL.toMinutes()
                    + " minutes after its last report");
        }
    }

    private boolean fits(String process, List<String> gpuRefs) {
        if (!lastReport.containsKey(process) && lastReport.size() >= MAX_PROCESSES) {
            return false;
        }
        long newClaims = gpuRefs.stream().distinct().filter(gpu -> !claims.containsKey(gpu)).count();
        return claims.size() + newClaims <= MAX_CLAIMS;
    }

    private void prune(Instant now) {
        lastPrune = now;
        lastReport.values().removeIf(at -> Duration.between(at, now).compareTo(REPORT_TTL) > 0);
        claims.values().removeIf(claim -> Duration.between(claim.reportedAt(), now).compareTo(CLAIM_TTL) > 0);
    }

    /** Processes whose last report is remembered (for the interval of their next one). */
    public int processesTracked() {
        return lastReport.size();
    }

    /** GPUs with a job's claim, lapsed or not yet forgotten. */
    public int claimsTracked() {
        return claims.size();
    }

    /** Reports refused because they would not fit in the bounds. */
    public long refusedFull() {
        return refusedFull.get();
    }

    /** Ranks of a job report the same time, each its own: an interval runs from its own process's last report. */
    private static String processOf(String jobId, Integer rank) {
        return rank == null ? jobId : jobId + "|" + rank;
    }

    /**
     * The job whose report last named this process ({@code pid}), unless the claim has lapsed or the pid is no longer
     * the process it named: the process's use of a shared GPU is that job's. The pid names the claimed process while
     * its start reads as it did when claimed: another start is a later process given the same pid, and none a process
     * that ended (or one started after the claim, where there was none). Where the agent sees neither (not the host's
     * process table), the claim stands: it cannot tell one process from another.
     */
    public Optional<Claim> claimOfProcess(int pid, Instant now) {
        return claimOf(PROCESS_CLAIM + pid, null, now).filter(claim -> {
            OptionalLong start = ProcessStart.of(procRoot, pid);
            return Objects.equals(claim.processStart(), start.isPresent() ? start.getAsLong() : null);
        });
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
