package io.gpuledger.ingest.sim;

import io.gpuledger.model.Offer;
import io.gpuledger.model.PriceQuote;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * Every price version the simulation knows, per offer, answering what the cost engine answers:
 * the version in force at an instant is the latest whose {@code validFrom} is not after that
 * instant taken to the whole second (price-version keys carry whole seconds).
 */
final class PriceBook {

    private final Map<String, NavigableMap<Instant, PriceQuote>> byOffer = new HashMap<>();

    void add(PriceQuote quote) {
        byOffer.computeIfAbsent(quote.offer().key(), key -> new TreeMap<>()).put(quote.validFrom(), quote);
    }

    /** The version in force at {@code at}; null when the offer had no price yet. */
    PriceQuote inForce(Offer offer, Instant at) {
        NavigableMap<Instant, PriceQuote> versions = byOffer.get(offer.key());
        if (versions == null) {
            return null;
        }
        Map.Entry<Instant, PriceQuote> entry = versions.floorEntry(at.truncatedTo(ChronoUnit.SECONDS));
        return entry == null ? null : entry.getValue();
    }
}
