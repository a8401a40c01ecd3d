package io.gpuledger.alerts;

import io.gpuledger.alerts.anomaly.AnomalyDesk;
import io.gpuledger.alerts.anomaly.AnomalyWatch;
import io.gpuledger.alerts.anomaly.DarkGpus;
import io.gpuledger.alerts.feed.KeyedInterval;
import io.gpuledger.alerts.fleet.FleetBoard;
import io.gpuledger.alerts.metrics.FleetMetrics;
import io.gpuledger.alerts.recommend.RecommendationRules;
import io.gpuledger.model.GpuUsage;
import io.gpuledger.model.JobEconomics;
import io.gpuledger.model.JobProgress;
import io.gpuledger.model.Json;
import io.gpuledger.model.Reading;
import io.gpuledger.model.UsageRollup;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * What the cost engine computes per window (usage windows, roll-ups, job economics) and the agents'
 * work reports, into the gauges, the fleet board, the anomaly watches and the rules.
 */
@ApplicationScoped
final class WindowRecords {

    /** How often a job's work reports are read for its traits (see {@link #onJobProgress}). */
    static final Duration TRAITS_READ_EVERY = Duration.ofSeconds(30);
    private static final String GPU_VIEW_KEY_PREFIX = UsageRollup.keyOf(UsageRollup.Dimension.GPU, "");

    private final FleetMetrics metrics;
    private final FleetBoard board;
    private final AnomalyWatch watch;
    private final DarkGpus darkGpus;
    private final AnomalyDesk anomalies;
    private final RecommendationRules rules;
    private final Clock clock;
    private final KeyedInterval traitsRead = new KeyedInterval(TRAITS_READ_EVERY);

    WindowRecords(FleetMetrics metrics, FleetBoard board, AnomalyWatch watch, DarkGpus darkGpus,
            AnomalyDesk anomalies, RecommendationRules rules, Clock clock) {
        this.metrics = metrics;
        this.board = board;
        this.watch = watch;
        this.darkGpus = darkGpus;
        this.anomalies = anomalies;
        this.rules = rules;
        this.clock = clock;
    }

    Instant onUsage(ConsumerRecord<String, byte[]> record) {
        GpuUsage usage = Json.read(record.value(), GpuUsage.class);
        Instant now = clock.instant();
        metrics.record(usage, now);
        board.record(usage, now);
        watch.onWindow(usage, now).forEach(anomalies::publish);
        darkGpus.onWindow(usage, now).forEach(anomalies::publish);
        rules.onWindow(usage, now);
        return latestSampleOf(usage);
    }

    /**
     * When the newest sample in a GPU's window ended; a MIG slice's GPU time is its share of the GPU,
     * so the wall time its power readings cover is taken where it is longer.
     */
    private static Instant latestSampleOf(GpuUsage usage) {
        if (usage.closed()) {
            return usage.windowEnd();
        }
        double seconds = Math.max(usage.totals().gpuSeconds(), usage.totals().mean(Reading.POWER_WATTS).seconds());
        Instant covered = usage.windowStart().plusMillis(Math.round(seconds * 1000));
        return covered.isAfter(usage.windowEnd()) ? usage.windowEnd() : covered;
    }

    /** A job's, team's or pool's roll-up; a GPU's own views (most of the topic) are shown nowhere here. */
    Instant onRollup(ConsumerRecord<String, byte[]> record) {
        if (record.key() != null && record.key().startsWith(GPU_VIEW_KEY_PREFIX)) {
            return null;
        }
        UsageRollup rollup = Json.read(record.value(), UsageRollup.class);
        Instant now = clock.instant();
        metrics.record(rollup, now);
        rules.onRollup(rollup, now);
        return rollup.windowEnd();
    }

    Instant onJobEconomics(ConsumerRecord<String, byte[]> record) {
        JobEconomics economics = Json.read(record.value(), JobEconomics.class);
        Instant now = clock.instant();
        metrics.record(economics, now);
        watch.onEconomics(economics, now).forEach(anomalies::publish);
        rules.onEconomics(economics, now);
        return economics.windowEnd();
    }

    /**
     * A work report, read for its job's traits alone: reports come as often as samples and traits
     * hardly ever change, so one a job is read every {@link #TRAITS_READ_EVERY}.
     */
    Instant onJobProgress(ConsumerRecord<String, byte[]> record) {
        Instant now = clock.instant();
        if (record.key() != null && !traitsRead.take(record.key(), now)) {
            return null;
        }
        JobProgress progress = Json.read(record.value(), JobProgress.class);
        rules.onProgress(progress, now);
        return progress.time();
    }

    /** Forgets the jobs whose reports stopped. */
    void sweep(Instant now) {
        traitsRead.prune(now);
    }
}
