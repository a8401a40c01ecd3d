package io.gpuledger.alerts.recommend;

import io.gpuledger.alerts.AlertSettings;
import io.gpuledger.model.CloudEvent;
import io.gpuledger.model.GpuUsage;
import io.gpuledger.model.JobEconomics;
import io.gpuledger.model.JobProgress;
import io.gpuledger.model.JobTraits;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.MovableClock;
import io.gpuledger.model.Offer;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.Recommendation;
import io.gpuledger.model.TelemetrySample;
import io.gpuledger.model.Topics;
import io.gpuledger.model.UsageRollup;
import io.gpuledger.model.UsageTotals;
import io.gpuledger.model.WorkTotals;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The recommendation rules as the alert service wires them, publishing to a mock producer, with a
 * clock the test moves; and the records the cost engine sends them, built as the engine builds
 * them: a minute re-sent as it fills, each version with its figures so far, the last one final.
 */
final class RulesOnMockTopic {

    /** Where the test's GPUs run. */
    static final String PROVIDER = "aws";
    static final String REGION = "us-east-1";

    private final Instant start;
    private final MovableClock clock;
    private final MockProducer<String, CloudEvent<Recommendation>> producer = new MockProducer<>(true, null,
            new StringSerializer(), Topics.RECOMMENDATIONS.valueSerde().serializer());
    final RecommendationDesk desk;
    final RecommendationRules rules;

    RulesOnMockTopic(Instant start, AlertSettings settings) {
        this.start = start;
        clock = new MovableClock(start);
        desk = new RecommendationDesk(new RecommendationBook(Duration.ofDays(7)), producer, new SimpleMeterRegistry(),
                clock, "USD");
        rules = new RecommendationRules(desk, GpuCatalog.defaults(), settings);
    }

    /** Where the clock started. */
    Instant start() {
        return start;
    }

    /** Moves the desk's clock to {@code now}; returns it. */
    Instant at(Instant now) {
        clock.set(now);
        return now;
    }

    /** Every record published so far, in order. */
    List<Recommendation> published() {
        return producer.history().stream().map(ProducerRecord::value).map(CloudEvent::data).toList();
    }

    /** Every record published so far of {@code id}, in order. */
    List<Recommendation> published(String id) {
        return published().stream().filter(r -> r.id().equals(id)).toList();
    }

    static PriceQuote quote(String instanceType, Lifecycle lifecycle, String gpuModel, int gpus, double pricePerHour,
            Instant validFrom) {
        return new PriceQuote(PROVIDER, REGION, instanceType, lifecycle, gpuModel, gpus, pricePerHour, "USD", validFrom,
                "test");
    }

    /**
     * A job as the engine sees it: {@code gpus} GPUs of {@code model} on {@code pool}, each charged
     * {@code gpuPricePerHour}, {@code smActive} busy; what it reports of its work is given per minute.
     */
    record Job(String id, Offer pool, String model, int gpus, double gpuPricePerHour, double smActive) {

        /** A report of this job's, saying who it is. */
        JobProgress report(Instant at, JobTraits traits) {
            return new JobProgress(id, "team-a", "node-" + id, "i-" + id, List.of(), at, 60, 1, "tokens", 1, null,
                    null, null, traits);
        }

        /**
         * The version of the job's minute from {@code start} that the engine sends when
         * {@code fraction} of it has come in: one of its GPUs' window, its roll-up and its economics,
         * with {@code units} of {@code unit} done in the whole minute (0: no work reported) at
         * {@code communication} overhead (null: not reported).
         */
        Minute minute(Instant start, double fraction, String unit, double units, Double communication,
                boolean closed) {
            GpuUsage window = window(id + "-gpu-0", pool, model, id, start, fraction, gpuPricePerHour, smActive,
                    closed);
            UsageTotals totals = UsageTotals.ZERO;
            for (int gpu = 0; gpu < gpus; gpu++) {
                totals = totals.plus(window.totals());
            }
            UsageRollup rollup = new UsageRollup(UsageRollup.Dimension.JOB, id, start, start.plusSeconds(60), "USD",
                    gpus, (double) gpus, totals);
            // A step of 1 s with the overhead's share of it communicating: the ratio the engine works out
            double stepSeconds = communication == null ? 0 : 1;
            WorkTotals work = units > 0 ? new WorkTotals(1, Map.of(unit, units * fraction), 1, stepSeconds,
                    stepSeconds * (communication == null ? 0 : communication), 0) : WorkTotals.NONE;
            return new Minute(window, rollup, JobEconomics.of(rollup, work));
        }
    }

    /** What the engine sends of a job minute: a GPU's window, the job's roll-up, its economics. */
    record Minute(GpuUsage window, UsageRollup rollup, JobEconomics economics) {

        /** Feeds the rules in the order the engine publishes: windows, roll-ups, then economics. */
        void feed(RecommendationRules rules, Instant now) {
            rules.onWindow(window, now);
            rules.onRollup(rollup, now);
            rules.onEconomics(economics, now);
        }
    }

    /**
     * The window of a GPU's minute from {@code start} once {@code fraction} of it has come in, as
     * one sample covering that much, at {@code smActive}; {@code closed} for its last record.
     */
    static GpuUsage window(String gpu, Offer pool, String model, String job, Instant start, double fraction,
            double pricePerHour, double smActive, boolean closed) {
        TelemetrySample sample = TelemetrySample.builder().gpuUuid(gpu).gpuModel(model).host("node-" + job)
                .instanceId("i-" + job).instanceType(pool.instanceType()).provider(pool.provider())
                .region(pool.region()).lifecycle(pool.lifecycle()).jobId(job).team("team-a")
                .time(start.plusMillis(Math.round(60_000 * fraction))).intervalSeconds(60 * fraction)
                .smActive(smActive).dramActive(0.3).build();
        GpuUsage open = GpuUsage.empty(sample, start, start.plusSeconds(60), "USD").add(sample, pricePerHour);
        return open.toBuilder().closed(closed).build();
    }

    static Offer onDemand(String instanceType) {
        return new Offer(PROVIDER, REGION, instanceType, Lifecycle.ON_DEMAND);
    }
}
