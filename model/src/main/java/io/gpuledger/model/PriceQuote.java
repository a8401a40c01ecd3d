package io.gpuledger.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;

/**
 * The hourly price of one whole instance of an offer from {@code validFrom} until the next quote
 * of the same offer. Reserved prices are effective hourly rates (upfront amortised over the term).
 *
 * <p>Keyed on {@link Topics#PRICES} by {@link #key()}: one key per price version, so that log
 * compaction keeps the history a late sample needs and only drops exact re-publications.
 */
public record PriceQuote(
        @JsonProperty(required = true) String provider,
        @JsonProperty(required = true) String region,
        @JsonProperty(required = true) String instanceType,
        @JsonProperty(required = true) Lifecycle lifecycle,
        String gpuModel,
        @JsonProperty(required = true) int gpuCount,
        @JsonProperty(required = true) double pricePerHour,
        @JsonProperty(required = true) String currency,
        @JsonProperty(required = true) Instant validFrom,
        String source) {

    /**
     * Fixed-width UTC instant: keys of one offer then sort by time as plain strings, which the
     * cost engine's price table relies on to find the version in force with one range scan.
     */
    private static final DateTimeFormatter KEY_TIME =
            DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss'Z'").withZone(ZoneOffset.UTC);

    public PriceQuote {
        Check.identity("provider", provider);
        Check.identity("region", region);
        Check.identity("instanceType", instanceType);
        Check.present("lifecycle", lifecycle);
        if (gpuCount <= 0) {
            throw new InvalidRecordException("gpuCount", "must be positive, was " + gpuCount);
        }
        Check.nonNegative("pricePerHour", pricePerHour);
        Check.currency("currency", currency);
        Check.instant("validFrom", validFrom);
        validFrom = validFrom.truncatedTo(ChronoUnit.SECONDS);
    }

    public Offer offer() {
        return new Offer(provider, region, instanceType, lifecycle);
    }

    /** The price of one of the instance's GPUs for one hour. */
    public double pricePerGpuHour() {
        return pricePerHour / gpuCount;
    }

    public String key() {
        return versionKey(offer(), validFrom);
    }

    /** {@code provider|region|instanceType|lifecycle|validFrom}, sortable by time within an offer. */
    public static String versionKey(Offer offer, Instant at) {
        return offer.key() + Check.KEY_SEPARATOR + KEY_TIME.format(at);
    }

    /** The lowest possible version key of an offer: every version key of it sorts after this. */
    public static String firstVersionKey(Offer offer) {
        return offer.key() + Check.KEY_SEPARATOR;
    }
}
