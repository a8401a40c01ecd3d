package io.gpuledger.streams.price;

import io.gpuledger.model.CurrencyRates;
import io.gpuledger.model.InvalidRecordException;
import io.gpuledger.model.Json;
import io.gpuledger.model.Offer;
import io.gpuledger.model.PriceQuote;
import java.time.Duration;
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
 *
 * <p>A quote is <em>stale</em> at times more than the maximum age after its {@code observedAt}, the
 * feed's latest confirmation of it: it is still the price in force, but nobody has said so lately.
 * A confirmation rewrites its version in the store, so the spans asked afterwards see it.
 */
public final class PriceTable {

    private final ReadOnlyKeyValueStore<String, byte[]> versions;
    private final long maxAgeMillis;
    /** Versions written to the store, for the spans of {@link #inForceByOffer} to know they may no longer hold. */
    private final PriceWrites writes;

    private final Map<String, Cached> parsedByKey = new HashMap<>();
    private final Map<Offer, InForce> inForceByOffer = new HashMap<>();
    private long invalidVersionsSkipped;

    /**
     * @param maxAge how long after its last confirmation a quote is taken as current
     * @param writes counts the versions written to {@code versions}
     */
    public PriceTable(ReadOnlyKeyValueStore<String, byte[]> versions, Duration maxAge, PriceWrites writes) {
        this.versions = versions;
        this.maxAgeMillis = maxAge.toMillis();
        this.writes = writes;
    }

    /**
     * The quote of {@code offer} in force at {@code at}: the latest version valid from at or before it.
     * The answer is kept per offer with the span of time it holds for (up to the next version),
     * until any price version is written: most samples of an offer fall in the same span.
     */
    public Optional<PriceQuote> inForce(Offer offer, Instant at) {
        return Optional.ofNullable(inForceAt(offer, at.toEpochMilli()).quote());
    }

    /**
     * The span of time around {@code millis} in which one quote of {@code offer} (or none) is in
     * force; a caller may keep it and ask {@link InForce#covers} instead of asking again.
     */
    public InForce inForceAt(Offer offer, long millis) {
        InForce span = inForceByOffer.get(offer);
        if (span == null || !span.covers(millis)) {
            Instant at = Instant.ofEpochMilli(millis);
            PriceQuote quote = versionAtOrBefore(offer, at);
            span = new InForce(writes, quote == null ? Long.MIN_VALUE : quote.validFrom().toEpochMilli(),
                    nextVersionAfter(offer, at), quote,
                    quote == null ? Long.MAX_VALUE : quote.observedAt().toEpochMilli() + maxAgeMillis);
            inForceByOffer.put(offer, span);
        }
        return span;
    }

    private PriceQuote versionAtOrBefore(Offer offer, Instant at) {
        try (KeyValueIterator<String, byte[]> candidates =
                versions.reverseRange(PriceQuote.firstVersionKey(offer), PriceQuote.versionKey(offer, at))) {
            while (candidates.hasNext()) {
                KeyValue<String, byte[]> candidate = candidates.next();
                PriceQuote quote = parse(candidate.key, candidate.value);
                if (quote != null) {
                    return quote;
                }
            }
        }
        return null;
    }

    /** When the next valid version of {@code offer} after {@code at} starts; {@link Long#MAX_VALUE} if none. */
    private long nextVersionAfter(Offer offer, Instant at) {
        String atKey = PriceQuote.versionKey(offer, at);
        try (KeyValueIterator<String, byte[]> candidates =
                versions.range(atKey, PriceQuote.firstVersionKey(offer) + Character.MAX_VALUE)) {
            while (candidates.hasNext()) {
                KeyValue<String, byte[]> candidate = candidates.next();
                PriceQuote quote = candidate.key.equals(atKey) ? null : parse(candidate.key, candidate.value);
                if (quote != null && quote.validFrom().isAfter(at)) {
                    return quote.validFrom().toEpochMilli();
                }
            }
        }
        return Long.MAX_VALUE;
    }

    /** Versions in the store that are not valid quotes; they are passed over, never charged. */
    public long invalidVersionsSkipped() {
        return invalidVersionsSkipped;
    }

    private PriceQuote parse(String key, byte[] raw) {
        Cached cached = parsedByKey.get(key);
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
        parsedByKey.put(key, new Cached(raw, quote));
        return quote;
    }

    private record Cached(byte[] raw, PriceQuote quote) {
    }

    /**
     * The quote in force (null: none) from {@code from} until {@code until}, as of the price
     * versions written when it was looked up; once another version (or confirmation) is written
     * to the store it covers no time. Its quote is current until {@code freshUntil} and stale after it.
     */
    public static final class InForce {

        private final PriceWrites writes;
        private final long written;
        private final long from;
        private final long until;
        private final PriceQuote quote;
        private final long freshUntil;
        /**
         * The price per GPU-hour in {@link #reportingIn}'s currency (null: unknown), worked out once
         * per span of rates in force.
         */
        private CurrencyRates.Converted reporting;
        private CurrencyRates reportingIn;

        private InForce(PriceWrites writes, long from, long until, PriceQuote quote, long freshUntil) {
            this.writes = writes;
            this.written = writes.count();
            this.from = from;
            this.until = until;
            this.quote = quote;
            this.freshUntil = freshUntil;
        }

        /** The quote in force; null if the offer had none. */
        public PriceQuote quote() {
            return quote;
        }

        /**
         * When the next version of the offer starts: this quote is in force until then; {@link Long#MAX_VALUE} if none
         * follows.
         */
        public long until() {
            return until;
        }

        /** Whether this is still the answer for {@code millis}. */
        public boolean covers(long millis) {
            return millis >= from && millis < until && written == writes.count();
        }

        /**
         * Whether a sample at {@code millis} is charged at a stale price: more than the maximum
         * age after the quote's latest confirmation. Never when there is no quote (that time is unpriced).
         */
        public boolean staleAt(long millis) {
            return millis > freshUntil;
        }

        /**
         * Until when, from {@code millis} on, the price of one GPU in the reporting currency of
         * {@code rates} stays what it is at {@code millis}: the next version of the offer, or the
         * next exchange rate of its currency, whichever comes first.
         */
        public long samePriceUntil(CurrencyRates rates, long millis) {
            if (quote == null) {
                return until;
            }
            perGpuHourIn(rates, millis);
            return Math.min(until, reporting.until());
        }

        /**
         * The price of one GPU for an hour in the reporting currency of {@code rates}, at the rates
         * in force at {@code millis}; null if unknown (no quote, or no rate for its currency).
         */
        public Double perGpuHourIn(CurrencyRates rates, long millis) {
            if (quote == null) {
                return null;
            }
            if (reportingIn != rates || !reporting.covers(millis)) {
                reporting = rates.convert(quote.pricePerGpuHour(), quote.currency(), millis);
                reportingIn = rates;
            }
            return reporting.amount();
        }
    }
}
