package io.gpuledger.cli.backtest;

import io.gpuledger.model.Offer;
import io.gpuledger.model.Recommendation;
import io.gpuledger.model.RecommendationStatus;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * Automation that follows every open recommendation it can act on, as a rebalancing hook would:
 * moves a job to the instance type or spot offer named, buys the reservations named, releases an
 * idle GPU; and acknowledges what it did. An evacuation or a communication fix is not the fleet's
 * to change here, a recommendation already carried out is left alone, and so is a move of a job
 * from a pool it is no longer on (two recommendations for one job in one minute: the first one
 * followed moved it).
 */
final class FollowingHook implements Backtest.Hook {

    @Override
    public void after(Backtest backtest, List<Recommendation> news, Instant now) {
        for (Recommendation recommendation : news) {
            if (recommendation.status() == RecommendationStatus.OPEN && follow(backtest, recommendation, now)) {
                backtest.acknowledge(recommendation.id(), now);
            }
        }
    }

    private static boolean follow(Backtest backtest, Recommendation recommendation, Instant now) {
        Map<String, Object> action = recommendation.action();
        double claimed = OfferPrices.toUsd(recommendation.estimatedMonthlySaving(),
                recommendation.currency() == null ? "USD" : recommendation.currency());
        return switch (recommendation.kind()) {
            case SWITCH_INSTANCE_TYPE, MOVE_TO_SPOT -> action.get("toPool") instanceof Map<?, ?> toPool
                    && action.get("fromPool") instanceof String fromPool
                    && backtest.move(String.valueOf(action.get("jobId")), Offer.fromKey(fromPool),
                            Offer.fromKey(String.valueOf(toPool.get("offerKey"))), recommendation.kind(),
                            recommendation.id(), claimed, now);
            case RESERVE_CAPACITY -> action.get("reserveInstances") instanceof Number instances
                    && backtest.reserve(Offer.fromKey(recommendation.target().id()), instances.intValue(),
                            recommendation.id(), claimed, now);
            case RECLAIM_IDLE -> action.get("gpuUuid") != null
                    && backtest.reclaim(String.valueOf(action.get("gpuUuid")), recommendation.id(), claimed, now);
            default -> false;
        };
    }
}
