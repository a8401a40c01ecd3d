package io.gpuledger.alerts.recommend;

import io.gpuledger.alerts.AlertSettings;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Offer;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.Recommendation;
import io.gpuledger.model.RecommendationAction;
import io.gpuledger.model.RecommendationAction.PricedOffer;
import io.gpuledger.model.RecommendationEvidence;
import io.gpuledger.model.RecommendationKind;
import io.gpuledger.model.RecommendationStatus;
import io.gpuledger.model.ReservationTerms;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * RESERVE_CAPACITY: the baseline of an instance type's use in a region (what stays busy: a low
 * percentile of the instances in use hour by hour over the lookback, not their mean), less what is
 * reserved already, where a reservation costs less than paying on demand for it. Stated as the
 * commitment it is: the term, the payment option, the total committed, the break-even utilization,
 * the baseline and the history it rests on. A history short against the term is recommended with
 * its confidence scaled down and the shortfall said. Reserved already: the reserved instances seen
 * in use, and what an acknowledged recommendation of the pool led to, which stands as acknowledged
 * while the pool is judged (never withdrawn: a reservation bought is not undone), so that a hook
 * that buys what every open recommendation says never holds more than the baseline, a restart
 * included. The arithmetic is in docs/recommendations.md.
 */
public final class ReserveCapacityRule {

    private final int minLookbackHours;
    private final double baselinePercentile;
    private final int defaultTermMonths;
    private final double minMonthlySaving;
    private final Duration ttl;

    /**
     * Reads the clock hours of history needed before judging, the share of them the baseline may be above, the
     * term of a reserved price that states none and how long a record stands unjudged from {@code reserve.*};
     * the least saving worth a commitment from the recommendations' settings.
     */
    public ReserveCapacityRule(AlertSettings.Recommendation recommendation) {
        AlertSettings.Reserve settings = recommendation.reserve();
        this.minLookbackHours = settings.lookbackHours();
        this.baselinePercentile = settings.baselinePercentile();
        this.defaultTermMonths = settings.termMonths();
        this.minMonthlySaving = recommendation.minMonthlySaving();
        this.ttl = settings.ttl();
    }

    /** The figures a reservation of the pool is judged on, in the pool's currency. */
    private record Prices(double onDemand, double reserved, PriceBoard.Price reservedPrice) {

        double breakEven() {
            return reserved / onDemand;
        }
    }

    /**
     * @param standing the pool's recommendation as it stands, if it does: an acknowledged one is
     *                 reservations bought, kept as they were
     */
    public Optional<Recommendation> evaluate(PoolUsage usage, PriceBoard board, Instant now,
            Optional<Recommendation> standing) {
        if (usage.hours() < minLookbackHours) {
            return Optional.empty();
        }
        Optional<Prices> found = prices(usage, board, now);
        if (found.isEmpty()) {
            return Optional.empty();
        }
        Prices prices = found.get();
        int baseline = usage.baseline(baselinePercentile);
        int heldReserved = usage.reservedHeld();
        Optional<Recommendation> bought = standing.filter(r -> r.status() == RecommendationStatus.ACKNOWLEDGED);
        int boughtOnAdvice = bought.map(r -> r.action() instanceof RecommendationAction.ReserveCapacity reserved
                ? reserved.reserveInstances() : 0).orElse(0);
        List<Double> utilization = new ArrayList<>();
        for (int k = 1; k <= usage.peakInstances(); k++) {
            utilization.add(usage.utilizationOfInstance(k));
        }
        if (bought.isPresent()) {
            // Bought on this advice: it stands as bought; what more would pay now is said, not asked for.
            Recommendation was = bought.get();
            var evidence = evidence(usage, prices, baseline, heldReserved, utilization).bought(boughtOnAdvice,
                    Math.max(0, baseline - heldReserved - boughtOnAdvice), commitmentOf(was));
            return Optional.of(Recommendation.builder().open(RecommendationKind.RESERVE_CAPACITY, was.target(), now)
                    .summary(was.summary()).action(was.action()).estimatedMonthlySaving(was.estimatedMonthlySaving())
                    .currency(was.currency()).confidence(was.confidence()).expiresAt(now.plus(ttl)).evidence(evidence)
                    .build());
        }
        int reserve = 0;
        double hourlySaving = 0;
        for (int k = heldReserved + 1; k <= baseline; k++) {
            double used = utilization.get(k - 1);
            if (!(used > prices.breakEven())) {
                break;
            }
            reserve++;
            hourlySaving += prices.onDemand() * used - prices.reserved();
        }
        double monthlySaving = hourlySaving * Recommendation.HOURS_PER_MONTH;
        // The minimum applies to raising: a standing (open or dismissed) record is kept while it saves anything.
        boolean stands = standing.filter(r -> r.status() != RecommendationStatus.WITHDRAWN).isPresent();
        if (reserve == 0 || (stands ? !(monthlySaving > 0) : monthlySaving < minMonthlySaving)) {
            return Optional.empty();
        }
        PriceQuote reservedQuote = prices.reservedPrice().quote();
        ReservationTerms terms = reservedQuote.reservation() != null ? reservedQuote.reservation()
                : ReservationTerms.ofMonths(defaultTermMonths);
        long termHours = terms.hours();
        long historyHours = usage.historyHours();
        double totalCommitment = prices.reserved() * termHours * reserve;

        var evidence = evidence(usage, prices, baseline, heldReserved, utilization).committing(
                new RecommendationEvidence.ReserveCapacity.Commitment(reserve, terms.termMonths(),
                        reservedQuote.reservation() != null ? "price" : "default", termHours,
                        terms.paymentOption() == null ? "not stated" : terms.paymentOption().wire(), totalCommitment,
                        historyHours));

        var action = new RecommendationAction.ReserveCapacity(reserve, heldReserved + reserve, terms.termMonths(),
                terms.paymentOption() == null ? null : terms.paymentOption().wire(), totalCommitment,
                PricedOffer.of(reservedQuote, reservedQuote.gpuModel()));

        Offer pool = usage.pool();
        String summary = String.format(Locale.ROOT,
                "Reserve %d x %s in %s %s for %d months (%.2f %s committed): %d stay busy in %.0f%% of %d h, above"
                        + " the %.0f%% break-even; saves %.2f %s a month (history %d h of a %d h term)",
                reserve, pool.instanceType(), pool.provider(), pool.region(), terms.termMonths(),
                totalCommitment, usage.currency(), baseline, (1 - baselinePercentile) * 100,
                usage.hours(), prices.breakEven() * 100, monthlySaving, usage.currency(), historyHours, termHours);
        double leastUsed = utilization.get(heldReserved + reserve - 1);
        return Optional.of(Recommendation.builder()
                .open(RecommendationKind.RESERVE_CAPACITY, Recommendation.Target.pool(pool), now).summary(summary)
                .action(action).estimatedMonthlySaving(monthlySaving).currency(usage.currency())
                .confidence(confidence(historyHours, termHours, leastUsed, prices.breakEven()))
                .expiresAt(now.plus(ttl)).evidence(evidence).build());
    }

    /** What the pool's use shows, for every record of it. */
    private RecommendationEvidence.ReserveCapacity evidence(PoolUsage usage, Prices prices, int baseline,
            int heldReserved, List<Double> utilization) {
        return new RecommendationEvidence.ReserveCapacity(usage.hours(), usage.idleHours(), prices.onDemand(),
                prices.reserved(), usage.currency(), prices.reservedPrice().quote().currency(),
                prices.reservedPrice().exchangeRate(), 1 - prices.breakEven(), prices.breakEven(), baselinePercentile,
                baseline, heldReserved, utilization, usage.peakInstances(), null, null, null, null, null);
    }

    /** The commitment an acknowledged record stated, carried on as it was bought; null where it stated none. */
    private static RecommendationEvidence.ReserveCapacity.Commitment commitmentOf(Recommendation bought) {
        return bought.evidence() instanceof RecommendationEvidence.ReserveCapacity stated ? stated.commitment()
                : null;
    }

    private static Optional<Prices> prices(PoolUsage usage, PriceBoard board, Instant now) {
        Offer pool = usage.pool();
        Optional<PriceBoard.Price> onDemand = board.price(pool, usage.currency(), now);
        Optional<PriceBoard.Price> reserved = board.price(
                new Offer(pool.provider(), pool.region(), pool.instanceType(), Lifecycle.RESERVED), usage.currency(),
                now);
        if (onDemand.isEmpty() || reserved.isEmpty()
                || !onDemand.get().quote().currency().equals(reserved.get().quote().currency())
                || !(onDemand.get().pricePerHour() > 0)
                || reserved.get().pricePerHour() >= onDemand.get().pricePerHour()) {
            return Optional.empty();
        }
        return Optional.of(new Prices(onDemand.get().pricePerHour(), reserved.get().pricePerHour(), reserved.get()));
    }

    /**
     * 0.4 to 0.95: 0.4 for a reservation that pays on the figures at all, up to 0.3 more as the
     * history grows to the whole term (a week says little of a year: pools grow and shrink), and up
     * to 0.25 more as the least-used reserved instance clears break-even by a wider margin, measured
     * as the share of the room between break-even and full use: {@code (u_K − b) / (1 − b)}.
     */
    static double confidence(long historyHours, long termHours, double leastUsed, double breakEven) {
        double coverage = Math.min(1, (double) historyHours / termHours);
        double margin = (leastUsed - breakEven) / (1 - breakEven);
        return 0.4 + 0.3 * coverage + 0.25 * margin;
    }
}
