package io.gpuledger.ingest.sim;

import io.gpuledger.model.Offer;
import io.gpuledger.model.PriceQuote;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * Every price version the simulation knows, per offer, answering what the cost engine answers:
 * the version in force at an instant is the latest whose {@code validFrom} is not after that
 * instant taken to the whole second (price-version keys carry whole seconds).
 */
final class PriceVersions {

    /** By offer key, in key order: confirmations come out in the same order on every run. */
    private final Map<String, NavigableMap<Instant, PriceQuote>> byOffer = new TreeMap<>();

    void add(PriceQuote quote) {
        byOffer.computeIfAbsent(quote.offer().key(), key -> new TreeMap<>()).put(quote.validFrom(), quote);
    }

    /** The version in force at {@code at}; null when the offer had no price yet. */
    PriceQuote inForce(Offer offer, Instant at) {
        NavigableMap<Instant, PriceQuote> versions = byOffer.get(offer.key());
        return versions == null ? null : inForce(versions, at);
    }

    /** The version in force at {@code at} of every offer that had a price by then, by offer key. */
    List<PriceQuote> allInForce(Instant at) {
        List<PriceQuote> inForce = new ArrayList<>(byOffer.size());
        for (NavigableMap<Instant, PriceQuote> versions : byOffer.values()) {
            PriceQuote quote = inForce(versions, at);
            if (quote != null) {
                inForce.add(quote);
            }
        }
        return inForce;
    }

    private static PriceQuote inForce(NavigableMap<Instant, PriceQuote> versions, Instant at) {
        Map.Entry<Instant, PriceQuote> entry = versions.floorEntry(at.truncatedTo(ChronoUnit.SECONDS));
        return entry == null ? null : entry.getValue();
    }
}
