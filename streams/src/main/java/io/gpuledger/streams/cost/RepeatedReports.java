package io.gpuledger.streams.cost;

import io.gpuledger.model.InvalidRecordException;
import io.gpuledger.model.JobProgress;
import io.gpuledger.streams.deadletter.ParseOrReject;
import io.gpuledger.streams.deadletter.Parsed;
import io.gpuledger.streams.state.LiveStore;
import java.time.Duration;
import java.time.Instant;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.FixedKeyProcessor;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorContext;
import org.apache.kafka.streams.processor.api.FixedKeyRecord;

/**
 * Refuses a work report most of whose time its process of the job reported already: a report sent
 * again (a reporter retrying after a lost answer, an agent resending its spool) would otherwise add
 * its tokens or samples to the job's minute twice, and make its cost per unit look cheaper than it
 * was. A process is a node of the job, or one rank on it where the node's processes report each
 * their own work: the ranks of a node report the same time, and each is counted. The refused report
 * goes on as {@link Parsed#invalid}, for the dead letters, counted as {@code job-progress-duplicate}.
 * Reports are keyed by job, so each job's processes are judged in the one task that holds the job;
 * what each reported is kept in {@link ReportedSpans}, by {@code job|host} or {@code job|host|rank},
 * and forgotten an hour after the task's latest report.
 */
final class RepeatedReports implements FixedKeyProcessor<String, Parsed<JobProgress>, Parsed<JobProgress>> {

    private static final Duration SWEEP_EVERY = Duration.ofMinutes(1);

    private final String storeName;
    private FixedKeyProcessorContext<String, Parsed<JobProgress>> context;
    private LiveStore<ReportedSpans> reported;
    private Sensor duplicates;
    /** The latest end of a report this task took since it started; processes silent an hour before it are forgotten. */
    private long latestEnd = Long.MIN_VALUE;

    RepeatedReports(String storeName) {
        this.storeName = storeName;
    }

    @Override
    public void init(FixedKeyProcessorContext<String, Parsed<JobProgress>> context) {
        this.context = context;
        this.reported = context.getStateStore(storeName);
        this.duplicates = ParseOrReject.deadLetterSensor(context, "job-progress-duplicate");
        context.schedule(SWEEP_EVERY, PunctuationType.WALL_CLOCK_TIME, now -> forgetSilentProcesses());
    }

    @Override
    public void process(FixedKeyRecord<String, Parsed<JobProgress>> record) {
        Parsed<JobProgress> parsed = record.value();
        if (!parsed.isValid()) {
            context.forward(record);
            return;
        }
        JobProgress report = parsed.value();
        long to = report.time().toEpochMilli();
        long from = to - Math.round(report.intervalSeconds() * 1000);
        String process = processOf(report);
        ReportedSpans spans = reported.get(process);
        if (spans != null && spans.mostlyReported(from, to)) {
            duplicates.record();
            context.forward(ParseOrReject.<JobProgress>refusedRecord(record, parsed.raw(), context,
                    new InvalidRecordException("time", "duplicate: most of the time it covers, "
                            + Instant.ofEpochMilli(from) + " to " + Instant.ofEpochMilli(to) + ", was reported for job "
                            + report.jobId() + " on " + report.host()
                            + (report.rank() == null ? "" : " by rank " + report.rank())
                            + " already (a report sent again)"))
                    .withTimestamp(context.currentSystemTimeMs()));
            return;
        }
        if (spans == null) {
            spans = new ReportedSpans();
        }
        spans.add(from, to);
        reported.put(process, spans);
        latestEnd = Math.max(latestEnd, to);
        context.forward(record);
    }

    /**
     * Who sent the report: {@code job|host}, or {@code job|host|rank} for one process of the node,
     * as the ranks of a node report the same time, each its own work.
     */
    private static String processOf(JobProgress report) {
        String node = report.jobId() + "|" + report.host();
        return report.rank() == null ? node : node + "|" + report.rank();
    }

    private void forgetSilentProcesses() {
        if (latestEnd != Long.MIN_VALUE) {
            reported.deleteIf(spans -> spans.latestEnd() < latestEnd - ReportedSpans.KEPT_MILLIS);
        }
    }
}
