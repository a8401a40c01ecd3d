package io.gpuledger.streams.cost;

import io.gpuledger.model.JobProgress;
import io.gpuledger.model.Topics;
import io.gpuledger.streams.deadletter.ParseOrReject;
import io.gpuledger.streams.deadletter.Parsed;
import io.gpuledger.streams.state.LiveStoreBuilder;
import java.util.Map;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.Branched;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;

/**
 * Work against cost: each job's reported work, by minute, set against its GPUs' minute roll-up.
 *
 * <ul>
 *   <li>in: {@code gpu.job-progress.v1} — key job id, value {@link JobProgress} JSON (one per node,
 *       or per rank of a node, and interval; a job's work is the sum over its nodes and ranks)</li>
 *   <li>out: each report as a job {@link RollupPartial} carrying its work, on the roll-ups'
 *       repartition topic, where {@link RollupWindows} adds it to the job's minute and sends
 *       {@code gpu.job-economics.v1} — key job id, value {@link io.gpuledger.model.JobEconomics}:
 *       cost per million units by unit, throughput per GPU, communication-overhead ratio; "no
 *       throughput reported" for a job minute with no reports</li>
 *   <li>out: {@code gpu.job-progress.dlq.v1} — refused reports, as received, reason in headers;
 *       among them reports of time their node or rank reported already ({@link RepeatedReports})</li>
 * </ul>
 * Work and cost of a job meet in the one task that holds the job's roll-ups, so the join needs
 * no table of its own and no repartition beyond the roll-ups' one.
 */
final class JobEconomicsFlow {

    /** What each node or rank of each job reported lately, by {@code job|host[|rank]}: see {@link RepeatedReports}. */
    static final String REPORTED_STORE = "job-progress-reported";

    private JobEconomicsFlow() {
    }

    /** Adds the reading of work reports; returns them as job partials for the roll-ups. */
    static KStream<String, RollupInput> addTo(StreamsBuilder builder, CostSettings settings) {
        builder.addStateStore(new LiveStoreBuilder<>(REPORTED_STORE, ReportedSpans.CODEC));
        Map<String, KStream<String, Parsed<JobProgress>>> progress = builder
                .stream(Topics.JOB_PROGRESS.name(),
                        Consumed.with(Serdes.String(), Serdes.ByteArray()).withName("job-progress-source"))
                .processValues(() -> new ParseOrReject<>("job-progress", JobProgress.class, JobProgress::jobId,
                        JobEconomicsFlow::eventTime).refusingAhead("time", report -> report.time().toEpochMilli(),
                                settings.maxAhead(), settings.brokerStamped().contains(Topics.JOB_PROGRESS.name())),
                        Named.as("job-progress-parse"))
                .processValues(() -> new RepeatedReports(REPORTED_STORE), Named.as("job-progress-repeats"),
                        REPORTED_STORE)
                .split(Named.as("job-progress-"))
                .branch((job, parsed) -> parsed.isValid(), Branched.as("valid"))
                .defaultBranch(Branched.as("refused"));

        progress.get("job-progress-refused")
                .mapValues(Parsed::raw, Named.as("job-progress-refused-bytes"))
                .to(Topics.JOB_PROGRESS_DEAD_LETTERS.name(), Produced.with(Serdes.String(), Serdes.ByteArray())
                        .withName("job-progress-dead-letters-sink"));

        String currency = settings.rates().reporting();
        return progress.get("job-progress-valid")
                .process(() -> new WorkPartials(currency), Named.as("job-progress-as-partials"),
                        CostTopology.CLOCK_STORE);
    }

    /** A report covers the interval ending at its time; it counts in the minute holding its middle. */
    static long eventTime(JobProgress report) {
        return EventTime.middle(report.time(), report.intervalSeconds());
    }
}
