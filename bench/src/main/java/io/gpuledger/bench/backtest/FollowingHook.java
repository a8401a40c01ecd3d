package io.gpuledger.bench.backtest;

import io.gpuledger.model.Offer;
import io.gpuledger.model.Recommendation;
import io.gpuledger.model.RecommendationAction;
import io.gpuledger.model.RecommendationStatus;
import java.time.Instant;
import java.util.List;

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
        RecommendationAction action = recommendation.action();
        if (action instanceof RecommendationAction.Move move) {
            return move.movesTheJob() && backtest.move(move.jobId(), Offer.fromKey(move.fromPool()),
                    Offer.fromKey(move.toPool().offerKey()), move.toInstances(), recommendation, now);
        }
        if (action instanceof RecommendationAction.ReclaimIdle release) {
            return backtest.release(recommendation, release.jobId(), release.instanceId(),
                    release.keepInstances() == null ? 0 : release.keepInstances(), now);
        }
        if (action instanceof RecommendationAction.ReserveCapacity reserve) {
            return backtest.reserve(Offer.fromKey(recommendation.target().id()), reserve.reserveInstances(),
                    recommendation, now);
        }
        if (!(action instanceof RecommendationAction.Evacuate evacuate)) {
            return false;
        }
        boolean followed = false;
        for (RecommendationAction.JobToMove job : evacuate.jobs()) {
            if (job.checkpoints()) {
                followed |= backtest.checkpoint(job.jobId(), recommendation, now);
            }
        }
        return followed;
    }
}
