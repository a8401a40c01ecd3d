package io.gpuledger.model;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonValue;

/**
 * What a reserved price commits its buyer to: the term, and how it is paid where the price feed
 * says. A reserved quote's price is the effective hourly rate over the term, so the whole
 * commitment of one instance is that rate times {@link #hours()}, however it is paid.
 *
 * @param termMonths    the length of the commitment
 * @param paymentOption how it is paid; null where the feed does not say (Azure's reservations cost the
 *                      same paid up front or monthly)
 * @param upfrontFee    what one instance's reservation costs up front, in the quote's currency; null where
 *                      not known
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ReservationTerms(@JsonProperty(required = true) int termMonths, PaymentOption paymentOption,
        Double upfrontFee) {

    /** A year counts 8,760 hours and a month 730: the conventions AWS and Azure quote effective hourly rates by. */
    public static final int HOURS_PER_YEAR = 8760;
    public static final int HOURS_PER_MONTH = 730;

    /** How a reservation is paid, as AWS names its options. */
    public enum PaymentOption {
        NO_UPFRONT("no-upfront"),
        PARTIAL_UPFRONT("partial-upfront"),
        ALL_UPFRONT("all-upfront");

        private final String wire;

        PaymentOption(String wire) {
            this.wire = wire;
        }

        @JsonValue
        public String wire() {
            return wire;
        }

        @JsonCreator
        public static PaymentOption fromWire(String value) {
            return WireNames.find(values(), PaymentOption::wire, value).orElseThrow(() -> new InvalidRecordException(
                    "reservation.paymentOption", "unknown payment option '" + value + "', expected one of "
                            + WireNames.expected(values(), PaymentOption::wire)));
        }

        /** The option that paying {@code upfrontFee} once and {@code hourlyFee} an hour is. */
        public static PaymentOption of(double hourlyFee, double upfrontFee) {
            if (upfrontFee <= 0) {
                return NO_UPFRONT;
            }
            return hourlyFee <= 0 ? ALL_UPFRONT : PARTIAL_UPFRONT;
        }
    }

    public ReservationTerms {
        if (termMonths < 1 || termMonths > 120) {
            throw new InvalidRecordException("reservation.termMonths", "must be between 1 and 120, was " + termMonths);
        }
        Check.optionalNonNegative("reservation.upfrontFee", upfrontFee);
    }

    /** A term of {@code months} whose payment is not known. */
    public static ReservationTerms ofMonths(int months) {
        return new ReservationTerms(months, null, null);
    }

    /** Hours of the term: whole years of 8,760 hours, other terms 730 hours a month. */
    public long hours() {
        return hoursOf(termMonths);
    }

    /** Hours of a term of {@code months}, by the same convention. */
    public static long hoursOf(int months) {
        return months % 12 == 0 ? (long) months / 12 * HOURS_PER_YEAR : (long) months * HOURS_PER_MONTH;
    }
}
