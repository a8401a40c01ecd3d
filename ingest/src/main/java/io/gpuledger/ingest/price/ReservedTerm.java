package io.gpuledger.ingest.price;

import io.gpuledger.model.InvalidRecordException;
import io.gpuledger.model.ReservationTerms;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The length of a reservation, and the arithmetic that turns what is paid for it into the
 * effective hourly rate the contract carries for reserved capacity.
 *
 * <p>A year counts 8,760 hours and a month 730, the conventions AWS and Azure use when they
 * quote a reservation's effective hourly price; leap days are not part of any term's price.
 */
public record ReservedTerm(int months) {

    public static final ReservedTerm ONE_YEAR = new ReservedTerm(12);
    public static final ReservedTerm THREE_YEARS = new ReservedTerm(36);

    private static final Pattern FORM = Pattern.compile(
            "(\\d+)\\s*(y|yr|yrs|year|years|m|mo|month|months)", Pattern.CASE_INSENSITIVE);

    public ReservedTerm {
        if (months <= 0) {
            throw new IllegalArgumentException("a reservation lasts at least one month, not " + months);
        }
    }

    /**
     * Reads {@code 1y}, {@code 3 Years} (Azure's {@code reservationTerm}), {@code 12 months},
     * {@code 36m} and the like.
     *
     * @param field the field named in the error when the text is not a term
     */
    public static ReservedTerm parse(String field, String text) {
        if (text == null || text.isBlank()) {
            throw new InvalidRecordException(field, "is required");
        }
        Matcher matcher = FORM.matcher(text.trim());
        if (!matcher.matches()) {
            throw new InvalidRecordException(field,
                    "is not a reservation term such as 1y, 3y, '1 Year' or '36 months': '" + text + "'");
        }
        long count;
        try {
            count = Long.parseLong(matcher.group(1));
        } catch (NumberFormatException e) {
            count = 0;
        }
        long months = matcher.group(2).toLowerCase(Locale.ROOT).startsWith("y") ? count * 12 : count;
        if (months <= 0 || months > 120) {
            throw new InvalidRecordException(field, "must be between one month and ten years, was '" + text + "'");
        }
        return new ReservedTerm((int) months);
    }

    public long hours() {
        return ReservationTerms.hoursOf(months);
    }

    /** The hourly rate that costs, over the whole term, what was paid up front plus every hour's fee. */
    public double effectiveHourly(double hourlyFee, double upfrontFee) {
        return hourlyFee + upfrontFee / hours();
    }

    @Override
    public String toString() {
        return months % 12 == 0 ? months / 12 + "y" : months + "m";
    }
}
