package io.gpuledger.alerts.recommend;

import io.gpuledger.model.Recommendation;
import java.time.Instant;
import java.util.Collection;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * A rule that judges a job on its closed minutes over a period of its own, each time one of the job's minutes
 * becomes final. The job's rules are judged together ({@link RecommendationRules}): a job is told one place to
 * go, and their claims share its bill. The rules fed other records (a capacity notice, an instance's idle
 * minute, a pool's hour) are called apart, each with what only it needs.
 */
interface JobRule {

    /** What the rule finds for {@code job}; empty when nothing, which withdraws what stands. */
    Optional<Recommendation> judge(JobView job, Situation situation);

    /**
     * What a job is judged against besides its own picture.
     *
     * @param peers      the other jobs' pictures over the rule's period
     * @param standing   the job's recommendation of the rule's kind, while it stands (open, acknowledged or
     *                   dismissed): then it is held to the withdrawal threshold rather than the raising one
     * @param mayMoveJob whether a finding may move the job to another pool: not once another kind's move is kept
     */
    record Situation(PriceBoard board, GpuCatalog catalog, Instant now, Supplier<Collection<JobView>> peers,
            Optional<Recommendation> standing, boolean mayMoveJob) {

        /** The same, with moving the job ruled out. */
        Situation withoutMove() {
            return new Situation(board, catalog, now, peers, standing, false);
        }
    }
}
