package io.gpuledger.bench.backtest;

import io.gpuledger.model.Recommendation;
import io.gpuledger.model.RecommendationKind;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What following the advice was worth: every situation recommended, every one followed with what it
 * claimed, and the money each really saved, as the world's own bill shows it against the bill
 * without the decision.
 *
 * <p>A situation is a recommendation id: the same notebook released on many nights is one decision,
 * claimed once. Claims are set against the realized saving over the same span:
 * <ul>
 *   <li>a monthly claim (switch, move, release, communication fix) counts for every minute its decision
 *       stands, at the claim in force then (a refreshed record updates it), until the run ends or its
 *       subject does (a job that ends, as its bill does);</li>
 *   <li>a reservation's monthly claim counts for its whole term, against what the reservation saves
 *       over the term;</li>
 *   <li>an evacuation claims the work at risk it states, once, against the work its checkpoint kept.</li>
 * </ul>
 */
final class Ledger {

    /** How a kind's claim is set against what it realizes. */
    enum Horizon {
        /** A monthly figure, for the minutes the decision stands. */
        STANDING,
        /** A monthly figure, for the whole commitment term. */
        TERM,
        /** A one-off amount. */
        ONCE
    }

    /** A followed situation: what it claimed, what it saved. */
    static final class Decision {
        final RecommendationKind kind;
        final String recommendationId;
        final String what;
        final Instant at;
        private double monthlyClaimUsd;
        private double claimedUsd;
        private double realizedUsd;
        private double delayHours;
        private Instant endedAt;

        private Decision(RecommendationKind kind, String recommendationId, String what, Instant at) {
            this.kind = kind;
            this.recommendationId = recommendationId;
            this.what = what;
            this.at = at;
        }

        /** The monthly claim in force from now on (a standing decision's refreshed record). */
        void monthlyClaim(double usd) {
            monthlyClaimUsd = usd;
        }

        /** A claim counted whole: a term's, or a one-off. */
        void claimOnce(double usd) {
            claimedUsd += usd;
        }

        private void minute() {
            claimedUsd += monthlyClaimUsd / Recommendation.HOURS_PER_MONTH / 60;
        }

        void saved(double usd) {
            realizedUsd += usd;
        }

        /** Hours the work it concerns finished later than without it (spot's restarts). */
        void delayed(double hours) {
            delayHours += hours;
        }

        /** Its subject ended, at {@code when}: nothing more is saved or claimed. */
        void ended(Instant when) {
            if (endedAt == null) {
                endedAt = when;
            }
        }

        boolean live() {
            return endedAt == null;
        }

        double claimedUsd() {
            return claimedUsd;
        }

        double realizedUsd() {
            return realizedUsd;
        }
    }

    /** One kind's account over a run. */
    record Row(RecommendationKind kind, int made, int followed, double claimedUsd, double realizedUsd,
            double delayHours) {

        /** Realized over claimed for the same span; NaN when nothing was claimed. */
        double ratio() {
            return claimedUsd == 0 ? Double.NaN : realizedUsd / claimedUsd;
        }
    }

    private final Map<RecommendationKind, Set<String>> made = new EnumMap<>(RecommendationKind.class);
    private final Map<String, Decision> decisions = new LinkedHashMap<>();
    /** The decisions whose monthly claim counts by the minute: walked every minute, the rest never. */
    private final List<Decision> standing = new ArrayList<>();

    /** A recommendation published as open: one situation per id, however often it is refreshed or raised again. */
    void made(Recommendation recommendation) {
        made.computeIfAbsent(recommendation.kind(), kind -> new HashSet<>()).add(recommendation.id());
    }

    static Horizon horizon(RecommendationKind kind) {
        return switch (kind) {
            case RESERVE_CAPACITY -> Horizon.TERM;
            case EVACUATE -> Horizon.ONCE;
            default -> Horizon.STANDING;
        };
    }

    /** The decision of the situation {@code recommendationId}, taken now or before. */
    Decision follow(RecommendationKind kind, String recommendationId, String what, Instant at) {
        return decisions.computeIfAbsent(recommendationId, id -> {
            Decision decision = new Decision(kind, id, what, at);
            if (horizon(kind) == Horizon.STANDING) {
                standing.add(decision);
            }
            return decision;
        });
    }

    Optional<Decision> decision(String recommendationId) {
        return Optional.ofNullable(decisions.get(recommendationId));
    }

    /** A minute of the run has passed: standing claims count it. */
    void minute() {
        for (Decision decision : standing) {
            if (decision.live()) {
                decision.minute();
            }
        }
    }

    List<Decision> decisions() {
        return List.copyOf(decisions.values());
    }

    /** Every kind that was recommended or followed, in the kinds' order. */
    List<Row> rows() {
        List<Row> rows = new ArrayList<>();
        for (RecommendationKind kind : RecommendationKind.values()) {
            int followed = 0;
            double claimed = 0;
            double realized = 0;
            double delay = 0;
            for (Decision decision : decisions.values()) {
                if (decision.kind == kind) {
                    followed++;
                    claimed += decision.claimedUsd;
                    realized += decision.realizedUsd;
                    delay += decision.delayHours;
                }
            }
            int situations = made.getOrDefault(kind, Set.of()).size();
            if (situations > 0 || followed > 0) {
                rows.add(new Row(kind, situations, followed, claimed, realized, delay));
            }
        }
        return rows;
    }
}
