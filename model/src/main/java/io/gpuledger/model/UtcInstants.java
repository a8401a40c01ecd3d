package io.gpuledger.model;

import java.time.Instant;
import java.time.LocalDate;
import java.time.Month;
import java.time.Year;

/**
 * Reads an instant in the form the contract writes it, without a formatter: the engine and the
 * alert service read two or three of them in each of tens of thousands of records a second.
 */
final class UtcInstants {

    /** Powers of ten that scale a fraction of one to nine digits to nanoseconds. */
    private static final int[] NANOS_PER_DIGIT = {100_000_000, 10_000_000, 1_000_000, 100_000, 10_000, 1_000, 100,
        10, 1};

    private UtcInstants() {
    }

    /**
     * The instant of {@code text} when it has the form the contract writes: four-digit year, 24-hour time with
     * seconds, zero to nine fraction digits, {@code Z}; null for anything else, which is left to databind. In that
     * form ISO-8601 allows no other reading, so this agrees with databind's {@code ISO_INSTANT} parse.
     */
    static Instant parse(String text) {
        int length = text.length();
        boolean fraction = length > 21 && length <= 30 && text.charAt(19) == '.';
        if (!(length == 20 || fraction) || text.charAt(length - 1) != 'Z' || text.charAt(4) != '-'
                || text.charAt(7) != '-' || text.charAt(10) != 'T' || text.charAt(13) != ':'
                || text.charAt(16) != ':') {
            return null;
        }
        int year = digits(text, 0, 4);
        int month = digits(text, 5, 7);
        int day = digits(text, 8, 10);
        int hour = digits(text, 11, 13);
        int minute = digits(text, 14, 16);
        int second = digits(text, 17, 19);
        int nanos = fraction ? digits(text, 20, length - 1) : 0;
        if (year < 0 || month < 1 || month > 12 || day < 1 || day > Month.of(month).length(Year.isLeap(year))
                || hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59 || nanos < 0) {
            return null; // leap seconds and 24:00 included: databind reads those its own way
        }
        long seconds = LocalDate.of(year, month, day).toEpochDay() * 86_400 + hour * 3_600 + minute * 60 + second;
        return Instant.ofEpochSecond(seconds, fraction ? nanos * NANOS_PER_DIGIT[length - 22] : 0);
    }

    /** The decimal number in {@code text} from {@code start} to {@code end}, or -1 if not all digits. */
    private static int digits(String text, int start, int end) {
        int value = 0;
        for (int i = start; i < end; i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            value = value * 10 + (c - '0');
        }
        return value;
    }
}
