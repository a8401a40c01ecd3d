package io.gpuledger.finance;

import io.gpuledger.finance.Reconciliation.OfferRate;
import io.gpuledger.model.Offer;
import io.gpuledger.model.PriceQuote;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The price versions a reconciliation learns: for each offer whose bill says it costs other than the engine
 * estimated (and that is not spot, priced by the market hour by hour), the version in force now with its price
 * times the bill's ratio, from now on, source {@link PriceQuote#BILL_RECONCILIATION}. The engine prices the
 * samples that follow at it; a price feed's next reading of the same list price leaves it in force.
 *
 * <p>The bill's ratio is of the estimates of its range, priced at the versions in force then. An offer that already
 * took a learned version after the range began (the same bill reconciled again, a month to date watched) learns
 * nothing more from it: that version times the ratio would apply the discount twice. The next range, priced at the
 * learned version, is measured against it.
 */
public final class LearnedPrices {

    /** Ratios closer to 1 than this change no price: the bill and the estimate agree. */
    public static final double AGREE = 1e-4;

    private LearnedPrices() {
    }

    /**
     * @param rates    the reconciliation's rates, per offer and account (an offer's accounts are weighed by their
     *                 estimates: a price is per offer)
     * @param versions every price version known
     * @param from     the start of the range the rates were measured over
     */
    public static List<PriceQuote> versions(List<OfferRate> rates, List<PriceQuote> versions, Instant from,
            Instant now) {
        Map<Offer, BigDecimal[]> byOffer = new LinkedHashMap<>();
        for (OfferRate rate : rates) {
            BigDecimal[] sum = byOffer.computeIfAbsent(rate.offer(), offer -> new BigDecimal[] {BigDecimal.ZERO,
                    BigDecimal.ZERO});
            sum[0] = sum[0].add(rate.estimated());
            sum[1] = sum[1].add(rate.effective());
        }
        Map<Offer, TreeMap<Instant, PriceQuote>> known = new LinkedHashMap<>();
        versions.forEach(quote -> known.computeIfAbsent(quote.offer(), offer -> new TreeMap<>())
                .put(quote.validFrom(), quote));
        List<PriceQuote> learned = new ArrayList<>();
        byOffer.forEach((offer, sum) -> {
            TreeMap<Instant, PriceQuote> offerVersions = known.get(offer);
            if (!Reconciliation.learnable(offer) || sum[0].signum() <= 0 || offerVersions == null
                    || offerVersions.floorEntry(now) == null || learnedSince(offerVersions, from, now)) {
                return;
            }
            double ratio = sum[1].divide(sum[0], 9, RoundingMode.HALF_EVEN).doubleValue();
            if (Math.abs(ratio - 1) < AGREE) {
                return;
            }
            PriceQuote inForce = offerVersions.floorEntry(now).getValue();
            learned.add(inForce.toBuilder().pricePerHour(inForce.pricePerHour() * ratio).validFrom(now)
                    .observedAt(now).source(PriceQuote.BILL_RECONCILIATION).build());
        });
        return learned;
    }

    private static boolean learnedSince(TreeMap<Instant, PriceQuote> offerVersions, Instant from, Instant now) {
        return offerVersions.subMap(from, false, now, true).values().stream()
                .anyMatch(PriceQuote::learnedFromBill);
    }
}
