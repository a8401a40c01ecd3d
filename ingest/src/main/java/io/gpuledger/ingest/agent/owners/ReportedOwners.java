package io.gpuledger.ingest.agent.owners;

import io.gpuledger.ingest.agent.progress.ProgressReports;
import io.gpuledger.ingest.agent.usage.Owner;
import java.time.Clock;
import java.util.Optional;

/** A process a job's own work report named ({@code POST /v1/progress} with {@code pid}) works for that job. */
public final class ReportedOwners implements ProcessOwners {

    private final ProgressReports reports;
    private final Clock clock;

    public ReportedOwners(ProgressReports reports, Clock clock) {
        this.reports = reports;
        this.clock = clock;
    }

    @Override
    public Optional<Owner> ownerOf(int pid) {
        return reports.claimOfProcess(pid, clock.instant()).map(claim -> new Owner(claim.jobId(), claim.team()));
    }
}
