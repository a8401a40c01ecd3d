package io.gpuledger.alerts.recommend;

import io.gpuledger.model.GpuUsage;
import io.gpuledger.model.Offer;
import io.gpuledger.model.Recommendation;
import io.gpuledger.model.RecommendationAction;
import io.gpuledger.model.RecommendationKind;
import io.gpuledger.model.RecommendationStatus;
import io.gpuledger.model.TelemetrySample;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * What the worlds that judge RECLAIM_IDLE share: the closed minute of a one-GPU instance as the cost engine
 * builds it from the agent's 10 s samples, and a hook that gives back every instance a RECLAIM_IDLE names as soon
 * as it is published open, acknowledging it as the contract asks.
 */
final class WorldHook {

    static final int SAMPLE_SECONDS = 10;
    /** The cost engine closes a minute this long after its end (its grace for late samples). */
    static final int CLOSING_MINUTES = 2;
    /** An instance given back sends, and is billed, until it has stopped: up to three minutes on. */
    static final int STOPPING_SECONDS = 180;

    /**
     * What the cost engine sends of each minute, held until it closes the minute {@link #CLOSING_MINUTES} after its
     * end, and read by the alert service a few seconds after that.
     */
    static final class Closing {
        private final Map<Long, List<Consumer<Instant>>> byMinute = new HashMap<>();

        /** What minute {@code minute} (from the run's start) sends, given when it is read. */
        void add(long minute, Consumer<Instant> send) {
            byMinute.computeIfAbsent(minute, m -> new ArrayList<>()).add(send);
        }

        /** Sends the minute that closes as minute {@code minute} ends, read {@link FleetFeed#READ_DELAY} later. */
        void closeBefore(long minute, RulesOnMockTopic topic) {
            List<Consumer<Instant>> sends = byMinute.remove(minute - CLOSING_MINUTES);
            if (sends != null) {
                Instant now = topic.at(topic.start().plusSeconds((minute + 1) * 60
                        + FleetFeed.READ_DELAY.toSeconds()));
                sends.forEach(send -> send.accept(now));
            }
        }
    }

    private final RulesOnMockTopic topic;
    private final Duration delay;
    private final Map<String, Instant> pending = new LinkedHashMap<>();
    private int seen;

    /** A hook that acts as soon as a record is published. */
    WorldHook(RulesOnMockTopic topic) {
        this(topic, Duration.ZERO);
    }

    /**
     * A hook that acts {@code delay} after a record was published open (a person approves it, a batch runs), on
     * the record as it stands then: not at all if it was withdrawn meanwhile.
     */
    WorldHook(RulesOnMockTopic topic, Duration delay) {
        this.topic = topic;
        this.delay = delay;
    }

    /**
     * The closed minute from {@code start} of the one GPU of {@code instanceId}, running {@code jobId}, priced
     * {@code pricePerHour}: six samples of 10 s, the i-th at {@code smActive[i]}.
     */
    static GpuUsage window(String instanceId, Offer offer, String model, String jobId, String team, Instant start,
            double pricePerHour, double[] smActive) {
        GpuUsage window = null;
        for (int i = 0; i < smActive.length; i++) {
            TelemetrySample sample = TelemetrySample.builder().gpuUuid("GPU-" + instanceId).gpuIndex(0)
                    .gpuModel(model).host("host-" + instanceId).instanceId(instanceId)
                    .instanceType(offer.instanceType()).provider(offer.provider()).region(offer.region())
                    .lifecycle(offer.lifecycle()).jobId(jobId).team(team)
                    .time(start.plusSeconds((long) SAMPLE_SECONDS * (i + 1))).intervalSeconds(SAMPLE_SECONDS)
                    .smActive(smActive[i]).build();
            window = (window == null ? GpuUsage.empty(sample, start, start.plusSeconds(60), "USD") : window)
                    .add(sample, pricePerHour);
        }
        return window.toBuilder().closed(true).build();
    }

    /**
     * Follows what was published: for each RECLAIM_IDLE published open and still open {@code delay} later, at
     * {@code now}, each instance it names goes to {@code release} with the record, and the record is acknowledged.
     */
    void follow(Instant now, BiConsumer<String, Recommendation> release) {
        List<Recommendation> published = topic.published();
        for (Recommendation r : published.subList(seen, published.size())) {
            if (r.kind() == RecommendationKind.RECLAIM_IDLE && r.status() == RecommendationStatus.OPEN) {
                pending.putIfAbsent(r.id(), now);
            }
        }
        seen = published.size();
        for (var it = pending.entrySet().iterator(); it.hasNext();) {
            var waiting = it.next();
            if (waiting.getValue().plus(delay).isAfter(now)) {
                continue;
            }
            it.remove();
            List<Recommendation> versions = topic.published(waiting.getKey());
            Recommendation r = versions.get(versions.size() - 1);
            if (r.status() == RecommendationStatus.OPEN) {
                RecommendationAction.ReclaimIdle action = (RecommendationAction.ReclaimIdle) r.action();
                List<String> instances = action.shrinksAJob() ? action.instanceIds() : List.of(action.instanceId());
                instances.forEach(instance -> release.accept(instance, r));
                topic.desk.acknowledge(r.id());
            }
        }
    }

    /** A draw uniform from {@code from} to {@code to}. */
    static double uniform(Random random, double from, double to) {
        return from + (to - from) * random.nextDouble();
    }
}
