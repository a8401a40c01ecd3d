package io.gpuledger.finance;

import io.gpuledger.model.CurrencyRates;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Offer;
import io.gpuledger.model.PriceQuote;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * The providers' on-demand prices per GPU-hour, version by version, in the reporting currency: a FOCUS row's
 * {@code ListUnitPrice}, whatever the GPU was bought as. Built from the price versions on
 * {@code pricing.quotes.v1}.
 */
public final class ListPrices {

    /** Per on-demand offer key: the price per GPU-hour from each version's start (epoch millis). */
    private final Map<String, TreeMap<Long, PriceQuote>> versions = new HashMap<>();
    private final CurrencyRates rates;

    public ListPrices(CurrencyRates rates) {
        this.rates = rates;
    }

    /**
     * Takes a price version; those of other lifecycles than on-demand are no list price and are left out, and so are
     * prices learned from the bill ({@link PriceQuote#BILL_RECONCILIATION}): the account's negotiated rate, which a
     * list price next to it shows the discount of.
     */
    public void add(PriceQuote quote) {
        if (quote.lifecycle() == Lifecycle.ON_DEMAND && !quote.learnedFromBill()) {
            versions.computeIfAbsent(quote.offer().key(), key -> new TreeMap<>())
                    .put(quote.validFrom().toEpochMilli(), quote);
        }
    }

    /**
     * The on-demand price per GPU-hour of {@code offer}'s instance type in its region at {@code atMillis}, in
     * {@code currency}; null when no version was in force, its currency cannot be converted, or {@code currency}
     * is not the reporting currency these prices are converted to (a price in another currency is no list price).
     */
    public Double perGpuHour(Offer offer, String currency, long atMillis) {
        if (!rates.reporting().equals(currency)) {
            return null;
        }
        Offer onDemand = new Offer(offer.provider(), offer.region(), offer.instanceType(), Lifecycle.ON_DEMAND);
        TreeMap<Long, PriceQuote> offerVersions = versions.get(onDemand.key());
        if (offerVersions == null) {
            return null;
        }
        Map.Entry<Long, PriceQuote> inForce = offerVersions.floorEntry(atMillis);
        if (inForce == null) {
            return null;
        }
        PriceQuote quote = inForce.getValue();
        return rates.convert(quote.pricePerGpuHour(), quote.currency(), atMillis).amount();
    }
}
