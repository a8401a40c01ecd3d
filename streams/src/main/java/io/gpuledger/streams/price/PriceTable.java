package io.gpuledger.streams.price;

import io.gpuledger.model.InvalidRecordException;
import io.gpuledger.model.Json;
import io.gpuledger.model.Offer;
import io.gpuledger.model.PriceQuote;
import java.time.Instant;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * Answers "what did this offer cost at time t" from the global store of price versions. The
 * store holds the raw records of {@code pricing.quotes.v1} under their version keys, which sort
 * by time within an offer, so the version in force is the first one met scanning backwards from
 * t. Parsed quotes are cached per version, and reparsed only if that version's bytes change.
 */
public final class PriceTable {

    private final ReadOnlyKeyValueStore<String, byte[]> versions;
    private final Map<String, Cached> parsed = new HashMap<>();
    private long invalidVersionsSkipped;

    public PriceTable(ReadOnlyKeyValueStore<String, byte[]> versions) {
        this.versions = versions;
    }

    /** The quote of {@code offer} in force at {@code at}: the latest version valid from at or before it. */
    public Optional<PriceQuote> inForce(Offer offer, Instant at) {
        try (KeyValueIterator<String, byte[]> candidates =
                versions.reverseRange(PriceQuote.firstVersionKey(offer), PriceQuote.versionKey(offer, at))) {
            while (candidates.hasNext()) {
                KeyValue<String, byte[]> candidate = candidates.next();
                PriceQuote quote = parse(candidate.key, candidate.value);
                if (quote != null) {
                    return Optional.of(quote);
                }
            }
        }
        return Optional.empty();
    }

    /** Versions in the store that are not valid quotes; they are passed over, never charged. */
    public long invalidVersionsSkipped() {
        return invalidVersionsSkipped;
    }

    private PriceQuote parse(String key, byte[] raw) {
        Cached cached = parsed.get(key);
        if (cached != null && Arrays.equals(cached.raw, raw)) {
            return cached.quote;
        }
        PriceQuote quote;
        try {
            quote = Json.read(raw, PriceQuote.class);
            if (!quote.key().equals(key)) {
                quote = null;
            }
        } catch (InvalidRecordException e) {
            quote = null;
        }
        if (quote == null) {
            invalidVersionsSkipped++;
        }
        parsed.put(key, new Cached(raw, quote));
        return quote;
    }

    private record Cached(byte[] raw, PriceQuote quote) {
    }
}
