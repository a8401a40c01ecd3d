package io.gpuledger.cli.backtest;

import io.gpuledger.model.Recommendation;
import io.gpuledger.model.RecommendationKind;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What following the advice was worth: every recommendation made, every one followed with the
 * monthly saving it claimed, and the money each really saved, as the backtest re-prices the fleet
 * with the decision against the fleet without it.
 *
 * <p>A claim is a monthly figure; a decision taken partway through the run can only show what it
 * saved in the rest of it. So a decision's claim is prorated to the hours from the decision to the
 * end of the run ({@code claimed × hours / 720}), and set against what it saved in those same hours.
 * A decision that ended sooner counts until it ended: one the automation replaced (a job moved
 * again), and a released GPU whose user came back for it (a claim is a rate of saving while the
 * decision holds, not a promise that it holds all month).
 */
final class Ledger {

    /** One followed recommendation and the money it has saved so far, in US dollars. */
    static final class Decision {
        final RecommendationKind kind;
        final String recommendationId;
        /** What was done, for people: {@code resnet-serve -> aws|us-east-1|g4dn.xlarge|on-demand}. */
        final String what;
        final double claimedMonthlyUsd;
        final Instant at;
        private double realizedUsd;
        private Instant endedAt;

        private Decision(RecommendationKind kind, String recommendationId, String what, double claimedMonthlyUsd,
                Instant at) {
            this.kind = kind;
            this.recommendationId = recommendationId;
            this.what = what;
            this.claimedMonthlyUsd = claimedMonthlyUsd;
            this.at = at;
        }

        void saved(double usd) {
            realizedUsd += usd;
        }

        double realizedUsd() {
            return realizedUsd;
        }

        /**
         * It stops holding, at {@code when}: a later decision took its place, or what it did was undone.
         * It saves nothing more, and its claim stops.
         */
        void ended(Instant when) {
            endedAt = when;
        }
    }

    /** One kind's account. */
    record Row(RecommendationKind kind, int made, int followed, double claimedMonthlyUsd, double claimedOverRunUsd,
            double realizedUsd) {

        /** Realized over claimed for the same hours; NaN when nothing was claimed. */
        double ratio() {
            return claimedOverRunUsd == 0 ? Double.NaN : realizedUsd / claimedOverRunUsd;
        }
    }

    private final Instant end;
    private final Map<RecommendationKind, Integer> made = new EnumMap<>(RecommendationKind.class);
    private final Set<String> situations = new HashSet<>();
    private final List<Decision> decisions = new ArrayList<>();

    Ledger(Instant end) {
        this.end = end;
    }

    /**
     * A recommendation published as open; counted once per situation (its id and when it was first
     * seen), not again at each refresh of it, which the desk publishes as it moves or half its time
     * to live has passed.
     */
    void made(Recommendation recommendation) {
        if (situations.add(recommendation.id() + "@" + recommendation.createdAt())) {
            made.merge(recommendation.kind(), 1, Integer::sum);
        }
    }

    Decision follow(RecommendationKind kind, String recommendationId, String what, double claimedMonthlyUsd,
            Instant at) {
        Decision decision = new Decision(kind, recommendationId, what, claimedMonthlyUsd, at);
        decisions.add(decision);
        return decision;
    }

    List<Decision> decisions() {
        return List.copyOf(decisions);
    }

    /** The decision's monthly claim for the hours from the decision to the end of the run, or to its own end. */
    double claimedOverRun(Decision decision) {
        Instant until = decision.endedAt == null ? end : decision.endedAt;
        double hours = Math.max(0, Duration.between(decision.at, until).toSeconds() / 3600.0);
        return decision.claimedMonthlyUsd * hours / Recommendation.HOURS_PER_MONTH;
    }

    /** Every kind that was recommended or followed, in the kinds' order. */
    List<Row> rows() {
        List<Row> rows = new ArrayList<>();
        for (RecommendationKind kind : RecommendationKind.values()) {
            int followed = 0;
            double claimed = 0;
            double claimedOverRun = 0;
            double realized = 0;
            for (Decision decision : decisions) {
                if (decision.kind == kind) {
                    followed++;
                    claimed += decision.claimedMonthlyUsd;
                    claimedOverRun += claimedOverRun(decision);
                    realized += decision.realizedUsd;
                }
            }
            int recommended = made.getOrDefault(kind, 0);
            if (recommended > 0 || followed > 0) {
                rows.add(new Row(kind, recommended, followed, claimed, claimedOverRun, realized));
            }
        }
        return rows;
    }
}
