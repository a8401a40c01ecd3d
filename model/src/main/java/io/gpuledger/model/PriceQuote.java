package io.gpuledger.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Duration;
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
 *
 * <p>A version is published when a price changes, so a quiet topic can mean an unchanged price or
 * a feed that stopped. A feed therefore re-confirms the version in force of every offer it still
 * reads, once its last confirmation is {@link #CONFIRMATION_INTERVAL} old (by default): it
 * publishes the same version again, under the same key, with a later {@code observedAt}
 * (compaction keeps the latest copy).
 *
 * @param observedAt when the feed last read this version as the one in force; absent in records
 *                   written before it existed, and then taken as {@code validFrom}. Not part of
 *                   the key, never before {@code validFrom}
 * @param interruptionFrequency for a spot offer, the share of its instances (0–1) the provider
 *                   reports taken back in a month, where it publishes one (AWS's Spot Instance
 *                   Advisor gives bands, read as their upper bound: {@code 5-10%} is 0.10);
 *                   absent when not known, and never on other lifecycles. Not part of the key
 * @param interruptionFrequencyLow the lower edge of the band {@code interruptionFrequency} is the upper
 *                   edge of ({@code 5-10%}: 0.05); absent when the provider gives one figure, which
 *                   is then both edges. Never without {@code interruptionFrequency}, never above it
 * @param reservation for a reserved offer, what its price commits to: the term and, where the feed
 *                   says, how it is paid; absent when not known, and never on other lifecycles
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
        String source,
        Instant observedAt,
        @JsonInclude(JsonInclude.Include.NON_NULL) Double interruptionFrequency,
        @JsonInclude(JsonInclude.Include.NON_NULL) Double interruptionFrequencyLow,
        @JsonInclude(JsonInclude.Include.NON_NULL) ReservationTerms reservation) {

    /**
     * How long after its {@code observedAt} a price is still taken as current, unless a consumer
     * is told otherwise: the cost engine counts time charged at an older one as stale-priced.
     */
    public static final Duration DEFAULT_MAX_AGE = Duration.ofMinutes(30);

    /**
     * The {@link #source()} of a version learned from a provider's bill ({@code gpu-ledger reconcile}): what the
     * offer effectively costs, discounts included. A price feed's next reading of the same list price is no news
     * against it.
     */
    public static final String BILL_RECONCILIATION = "bill-reconciliation";

    /**
     * How often a feed confirms the prices it reads, unless told otherwise: a third of
     * {@link #DEFAULT_MAX_AGE}, so that a round or two of the feed may fail before a price goes stale.
     */
    public static final Duration CONFIRMATION_INTERVAL = DEFAULT_MAX_AGE.dividedBy(3);

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
        observedAt = observedAt == null ? validFrom : observedAt.truncatedTo(ChronoUnit.SECONDS);
        if (observedAt.isBefore(validFrom)) {
            throw new InvalidRecordException("observedAt", "must not be before validFrom (" + validFrom + "), was "
                    + observedAt);
        }
        Check.optionalRatio("interruptionFrequency", interruptionFrequency);
        if (interruptionFrequency != null && lifecycle != Lifecycle.SPOT) {
            throw new InvalidRecordException("interruptionFrequency", "only a spot offer is interrupted, this one is "
                    + lifecycle.wire());
        }
        Check.optionalRatio("interruptionFrequencyLow", interruptionFrequencyLow);
        if (interruptionFrequencyLow != null && (interruptionFrequency == null
                || interruptionFrequencyLow > interruptionFrequency)) {
            throw new InvalidRecordException("interruptionFrequencyLow", "is the lower edge of the band whose"
                    + " upper edge is interruptionFrequency (" + interruptionFrequency + "), was "
                    + interruptionFrequencyLow);
        }
        if (reservation != null && lifecycle != Lifecycle.RESERVED) {
            throw new InvalidRecordException("reservation", "only a reserved offer has reservation terms, this one is "
                    + lifecycle.wire());
        }
    }

    /** A quote without an interruption frequency. */
    public PriceQuote(String provider, String region, String instanceType, Lifecycle lifecycle, String gpuModel,
            int gpuCount, double pricePerHour, String currency, Instant validFrom, String source, Instant observedAt) {
        this(provider, region, instanceType, lifecycle, gpuModel, gpuCount, pricePerHour, currency, validFrom, source,
                observedAt, null, null, null);
    }

    /** A quote as read before it was confirmed: observed when it became valid. */
    public PriceQuote(String provider, String region, String instanceType, Lifecycle lifecycle, String gpuModel,
            int gpuCount, double pricePerHour, String currency, Instant validFrom, String source) {
        this(provider, region, instanceType, lifecycle, gpuModel, gpuCount, pricePerHour, currency, validFrom, source,
                null, null, null, null);
    }

    /** This version, read again at {@code at} as the one in force: the same key, a later {@code observedAt}. */
    public PriceQuote confirmedAt(Instant at) {
        return toBuilder().observedAt(at).build();
    }

    /** This quote with the provider's spot interruption frequency, one figure ({@code null}: not known). */
    public PriceQuote withInterruptionFrequency(Double frequency) {
        return withInterruptionBand(frequency, null);
    }

    /**
     * This quote with the band of the share of instances the provider reports taken back in a month:
     * from {@code low} (null: the band is the one figure {@code high}) to {@code high}.
     */
    public PriceQuote withInterruptionBand(Double high, Double low) {
        return toBuilder().interruptionFrequency(high).interruptionFrequencyLow(low).build();
    }

    /** This reserved quote with what it commits to ({@code null}: not known). */
    public PriceQuote withReservation(ReservationTerms terms) {
        return toBuilder().reservation(terms).build();
    }

    /** The lower edge of the reported interruption band: the one figure where the band is one. */
    public Double interruptionFrequencyFloor() {
        return interruptionFrequencyLow != null ? interruptionFrequencyLow : interruptionFrequency;
    }

    /**
     * This version as a feed that reads it at {@code at} publishes it: observed then, or, when it
     * becomes valid only later, observed from then on.
     */
    public PriceQuote readAt(Instant at) {
        return validFrom.isAfter(at) ? this : confirmedAt(at);
    }

    /** Whether {@code other} is this version with the same terms, however recently each was confirmed. */
    public boolean sameVersionAs(PriceQuote other) {
        return other != null && key().equals(other.key()) && equals(other.confirmedAt(observedAt));
    }

    public Offer offer() {
        return new Offer(provider, region, instanceType, lifecycle);
    }

    /** Whether it was learned from the bill ({@link #BILL_RECONCILIATION}): the account's own rate, no market's. */
    public boolean learnedFromBill() {
        return BILL_RECONCILIATION.equals(source);
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

    public static Builder builder() {
        return new Builder();
    }

    public Builder toBuilder() {
        return new Builder().provider(provider).region(region).instanceType(instanceType).lifecycle(lifecycle)
                .gpuModel(gpuModel).gpuCount(gpuCount).pricePerHour(pricePerHour).currency(currency)
                .validFrom(validFrom).source(source).observedAt(observedAt)
                .interruptionFrequency(interruptionFrequency).interruptionFrequencyLow(interruptionFrequencyLow)
                .reservation(reservation);
    }

    /** Fluent construction; {@link #build()} validates like the JSON reader does. */
    public static final class Builder {
        private String provider;
        private String region;
        private String instanceType;
        private Lifecycle lifecycle;
        private String gpuModel;
        private int gpuCount;
        private double pricePerHour;
        private String currency;
        private Instant validFrom;
        private String source;
        private Instant observedAt;
        private Double interruptionFrequency;
        private Double interruptionFrequencyLow;
        private ReservationTerms reservation;

        private Builder() {
        }

        public Builder provider(String value) { provider = value; return this; }
        public Builder region(String value) { region = value; return this; }
        public Builder instanceType(String value) { instanceType = value; return this; }
        public Builder lifecycle(Lifecycle value) { lifecycle = value; return this; }
        public Builder gpuModel(String value) { gpuModel = value; return this; }
        public Builder gpuCount(int value) { gpuCount = value; return this; }
        public Builder pricePerHour(double value) { pricePerHour = value; return this; }
        public Builder currency(String value) { currency = value; return this; }
        public Builder validFrom(Instant value) { validFrom = value; return this; }
        public Builder source(String value) { source = value; return this; }
        public Builder observedAt(Instant value) { observedAt = value; return this; }
        public Builder interruptionFrequency(Double value) { interruptionFrequency = value; return this; }
        public Builder interruptionFrequencyLow(Double value) { interruptionFrequencyLow = value; return this; }
        public Builder reservation(ReservationTerms value) { reservation = value; return this; }

        /** What is priced: copies the provider, region, instance type and lifecycle of {@code offer}. */
        public Builder offer(Offer offer) {
            return provider(offer.provider()).region(offer.region()).instanceType(offer.instanceType())
                    .lifecycle(offer.lifecycle());
        }

        public PriceQuote build() {
            return new PriceQuote(provider, region, instanceType, lifecycle, gpuModel, gpuCount, pricePerHour,
                    currency, validFrom, source, observedAt, interruptionFrequency, interruptionFrequencyLow,
                    reservation);
        }
    }
}
