package io.gpuledger.alerts.recommend;

import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Offer;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.Recommendation;
import io.gpuledger.model.RecommendationKind;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * RESERVE_CAPACITY: the baseline of an on-demand pool in use often enough, over its clock-hour lookback, for a
 * reservation to cost less than paying on demand; the break-even arithmetic is in docs/recommendations.md.
 */
public final class ReserveCapacityRule {

    private final int minLookbackHours;
    private final double minMonthlySaving;
    private final Duration ttl;

    /**
     * @param minLookbackHours clock hours of history needed before judging (a week, 168, sees a weekly cycle)
     * @param minMonthlySaving the least saving worth a commitment, in the pool's currency
     * @param ttl              how long the recommendation stands without being seen again
     */
    public ReserveCapacityRule(int minLookbackHours, double minMonthlySaving, Duration ttl) {
        this.minLookbackHours = minLookbackHours;
        this.minMonthlySaving = minMonthlySaving;
        this.ttl = ttl;
    }

    public Optional<Recommendation> evaluate(PoolUsage usage, PriceBoard board, Instant now) {
        Offer pool = usage.pool();
        Optional<PriceBoard.Price> onDemandPrice = board.price(pool, usage.currency(), now);
        Optional<PriceBoard.Price> reservedPrice = board.price(
                new Offer(pool.provider(), pool.region(), pool.instanceType(), Lifecycle.RESERVED), usage.currency(),
                now);
        if (usage.hours() < minLookbackHours || onDemandPrice.isEmpty() || reservedPrice.isEmpty()
                || !onDemandPrice.get().quote().currency().equals(reservedPrice.get().quote().currency())) {
            return Optional.empty();
        }
        PriceQuote reservedQuote = reservedPrice.get().quote();
        double onDemand = onDemandPrice.get().pricePerHour();
        double reserved = reservedPrice.get().pricePerHour();
        if (onDemand <= 0) {
            return Optional.empty();
        }
        double breakEven = reserved / onDemand;
        if (breakEven >= 1) {
            return Optional.empty();
        }
        List<Double> utilization = new ArrayList<>();
        int reserve = 0;
        double hourlySaving = 0;
        for (int k = 1; k <= usage.peakInstances(); k++) {
            double used = usage.utilizationOfInstance(k);
            utilization.add(used);
            if (used > breakEven) {
                reserve = k;
                hourlySaving += onDemand * used - reserved;
            }
        }
        double monthlySaving = hourlySaving * Recommendation.HOURS_PER_MONTH;
        if (reserve == 0 || monthlySaving < minMonthlySaving) {
            return Optional.empty();
        }

        Map<String, Object> evidence = new LinkedHashMap<>();
        evidence.put("lookbackHours", usage.hours());
        evidence.put("idleHours", usage.idleHours());
        evidence.put("onDemandPricePerHour", onDemand);
        evidence.put("reservedPricePerHour", reserved);
        evidence.put("currency", usage.currency());
        evidence.put("quoteCurrency", reservedQuote.currency());
        evidence.put("exchangeRate", reservedPrice.get().exchangeRate());
        evidence.put("discount", 1 - breakEven);
        evidence.put("breakEvenUtilization", breakEven);
        evidence.put("utilizationByInstance", utilization);
        evidence.put("peakInstances", usage.peakInstances());
        evidence.put("instancesToReserve", reserve);

        Map<String, Object> action = new LinkedHashMap<>();
        action.put("reserveInstances", reserve);
        action.put("reservation", OfferFields.of(reservedQuote, reservedQuote.gpuModel()));

        String summary = String.format(Locale.ROOT,
                "Reserve %d x %s in %s %s: in use above the %.0f%% break-even over %d h; saves %.2f %s a month",
                reserve, pool.instanceType(), pool.provider(), pool.region(), breakEven * 100, usage.hours(),
                monthlySaving, usage.currency());
        return Optional.of(Recommendation.open(RecommendationKind.RESERVE_CAPACITY, Recommendation.Target.pool(pool),
                summary, action, null, monthlySaving, usage.currency(),
                confidence(usage.hours(), utilization.get(reserve - 1), breakEven), now, now.plus(ttl), evidence));
    }

    /**
     * 0.4 to 0.95: 0.4 for a reservation that pays on the figures at all, up to 0.3 more as the
     * lookback grows to a month (a short history may miss a quiet season), and up to 0.25 more as
     * the least-used reserved instance clears break-even by a wider margin, measured as the share
     * of the room between break-even and full use: {@code (u_K − b) / (1 − b)}.
     */
    static double confidence(int lookbackHours, double leastUsed, double breakEven) {
        double coverage = Math.min(1, lookbackHours / Recommendation.HOURS_PER_MONTH);
        double margin = (leastUsed - breakEven) / (1 - breakEven);
        return 0.4 + 0.3 * coverage + 0.25 * margin;
    }
}
