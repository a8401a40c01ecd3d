package io.gpuledger.streams.cost;

import io.gpuledger.model.JobEconomics;
import io.gpuledger.model.JobProgress;
import io.gpuledger.model.JsonSerde;
import io.gpuledger.model.Topics;
import io.gpuledger.model.UsageRollup;
import io.gpuledger.model.WorkTotals;
import io.gpuledger.streams.deadletter.ParseOrReject;
import io.gpuledger.streams.deadletter.Parsed;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.Branched;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.KTable;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Work against cost: each job's reported work per minute joined with its GPUs' minute roll-up.
 *
 * <ul>
 *   <li>in: {@code gpu.job-progress.v1} — key job id, value {@link JobProgress} JSON (one per node
 *       and interval; a job's work is the sum over its nodes)</li>
 *   <li>in: the per-job minute roll-up of {@link Rollups}</li>
 *   <li>out: {@code gpu.job-economics.v1} — key job id, value {@link JobEconomics}: cost per
 *       million units by unit, throughput per GPU, communication-overhead ratio; "no throughput
 *       reported" for a job with no reports in that minute</li>
 *   <li>out: {@code gpu.job-progress.dlq.v1} — refused reports, as received, reason in headers</li>
 * </ul>
 * Both sides are keyed {@code job|id|minute} so they join without another repartition of the cost side.
 */
final class JobEconomicsFlow {

    static final String PROGRESS_STORE = "job-progress-1m";
    static final String ECONOMICS_STORE = "job-economics-1m";
    private static final Duration MINUTE = Duration.ofMinutes(1);

    private JobEconomicsFlow() {
    }

    static void addTo(StreamsBuilder builder, KTable<String, UsageRollup> jobMinutes) {
        Map<String, KStream<String, Parsed<JobProgress>>> progress = builder
                .stream(Topics.JOB_PROGRESS.name(),
                        Consumed.with(Serdes.String(), Serdes.ByteArray()).withName("job-progress-source"))
                .processValues(() -> new ParseOrReject<>("job-progress", JobProgress.class, JobProgress::jobId,
                        JobEconomicsFlow::eventTime), Named.as("job-progress-parse"))
                .split(Named.as("job-progress-"))
                .branch((job, parsed) -> parsed.isValid(), Branched.as("valid"))
                .defaultBranch(Branched.as("refused"));

        progress.get("job-progress-refused")
                .mapValues(Parsed::raw, Named.as("job-progress-refused-bytes"))
                .to(Topics.JOB_PROGRESS_DEAD_LETTERS.name(), Produced.with(Serdes.String(), Serdes.ByteArray())
                        .withName("job-progress-dead-letters-sink"));

        JsonSerde<WorkTotals> workSerde = new JsonSerde<>(WorkTotals.class);
        KTable<String, WorkTotals> work = progress.get("job-progress-valid")
                .mapValues(Parsed::value, Named.as("job-progress-valid-report"))
                .groupBy((job, report) -> Rollups.groupKey(UsageRollup.Dimension.JOB, report.jobId(),
                                Rollups.bucket(Instant.ofEpochMilli(eventTime(report)), MINUTE)),
                        Grouped.with("job-progress-by-minute", Serdes.String(), Topics.JOB_PROGRESS.valueSerde()))
                .aggregate(() -> WorkTotals.NONE, (key, report, totals) -> totals.add(report),
                        Named.as("job-progress-aggregate"),
                        Materialized.<String, WorkTotals, KeyValueStore<Bytes, byte[]>>as(PROGRESS_STORE)
                                .withKeySerde(Serdes.String()).withValueSerde(workSerde));

        jobMinutes.leftJoin(work, JobEconomics::of, Named.as("job-economics-join"),
                        Materialized.<String, JobEconomics, KeyValueStore<Bytes, byte[]>>as(ECONOMICS_STORE)
                                .withKeySerde(Serdes.String()).withValueSerde(Topics.JOB_ECONOMICS.valueSerde()))
                .toStream(Named.as("job-economics-updates"))
                .filter((key, economics) -> economics != null, Named.as("job-economics-present"))
                .map((key, economics) -> KeyValue.pair(economics.jobId(), economics), Named.as("job-economics-by-job"))
                .to(Topics.JOB_ECONOMICS.name(), Produced.with(Topics.JOB_ECONOMICS.keySerde(),
                        Topics.JOB_ECONOMICS.valueSerde()).withName("job-economics-sink"));
    }

    /** A report covers the interval ending at its time; it counts in the minute holding its middle. */
    static long eventTime(JobProgress report) {
        return report.time().toEpochMilli() - Math.round(report.intervalSeconds() * 500);
    }
}
