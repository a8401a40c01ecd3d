package io.gpuledger.bench.backtest;

import io.gpuledger.model.Offer;
import io.gpuledger.model.Recommendation;
import io.gpuledger.model.RecommendationStatus;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * Automation that follows every open recommendation it can act on, as a rebalancing hook would, and
 * acknowledges what it did: moves a job where a switch, a move to spot or a faster interconnect names
 * (on the instances named), releases what a reclaim names (a notebook's instance, a job's instances it
 * does not need, an instance no job holds), buys the reservations named, and checkpoints the jobs an
 * evacuation names before the deadline. Stopping a job the rules find idle, or changing how often a
 * job checkpoints, is left to people. A move of a job from a pool it is no longer on is not followed
 * (two recommendations for one job in one minute: the first one followed moved it). A record of a
 * situation already followed updates the claim that stands for it.
 */
final class FollowingHook implements Backtest.Hook {

    @Override
    public void after(Backtest backtest, List<Recommendation> news, Instant now) {
        for (Recommendation recommendation : news) {
            backtest.refreshed(recommendation);
            if (recommendation.status() == RecommendationStatus.OPEN && follow(backtest, recommendation, now)) {
                backtest.acknowledge(recommendation.id(), now);
            }
        }
    }

    private static boolean follow(Backtest backtest, Recommendation recommendation, Instant now) {
        Map<String, Object> action = recommendation.action();
        return switch (recommendation.kind()) {
            case SWITCH_INSTANCE_TYPE, MOVE_TO_SPOT, REDUCE_COMMUNICATION -> action.get("toPool")
                    instanceof Map<?, ?> to && action.get("fromPool") instanceof String from
                    && action.get("toInstances") instanceof Number instances
                    && backtest.move(String.valueOf(action.get("jobId")), Offer.fromKey(from),
                            Offer.fromKey(String.valueOf(to.get("offerKey"))), instances.intValue(), recommendation,
                            now);
            case RECLAIM_IDLE -> backtest.release(recommendation, (String) action.get("jobId"),
                    String.valueOf(action.get("instanceId")),
                    action.get("keepInstances") instanceof Number keep ? keep.intValue() : 0, now);
            case RESERVE_CAPACITY -> action.get("reserveInstances") instanceof Number instances
                    && backtest.reserve(Offer.fromKey(recommendation.target().id()), instances.intValue(),
                            recommendation, now);
            case EVACUATE -> action.get("jobs") instanceof List<?> jobs && jobs.stream()
                    .filter(job -> job instanceof Map<?, ?> entry && Boolean.TRUE.equals(entry.get("checkpoints")))
                    .map(job -> backtest.checkpoint(String.valueOf(((Map<?, ?>) job).get("jobId")), recommendation,
                            now))
                    .reduce(false, Boolean::logicalOr);
        };
    }
}
