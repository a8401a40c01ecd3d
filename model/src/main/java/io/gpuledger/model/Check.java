package io.gpuledger.model;

import java.time.Instant;
import java.util.regex.Pattern;

/** Field checks shared by the record constructors; each failure names its field. */
public final class Check {

    /** Identity fields become parts of composite keys, so they must not contain the separator. */
    public static final char KEY_SEPARATOR = '|';
    /** The most characters (code points) an identity may have. */
    public static final int MAX_IDENTITY_LENGTH = 256;

    /** Compiled once: every usage window and roll-up checks its currency. */
    private static final Pattern CURRENCY = Pattern.compile("[A-Z]{3}");

    private Check() {
    }

    public static String identity(String field, String value) {
        if (value == null || value.isBlank()) {
            throw new InvalidRecordException(field, "is required");
        }
        if (value.indexOf(KEY_SEPARATOR) >= 0) {
            throw new InvalidRecordException(field, "must not contain '" + KEY_SEPARATOR + "'");
        }
        // Characters as the schema's maxLength counts them: code points, an emoji one, not two UTF-16 units.
        if (value.length() > MAX_IDENTITY_LENGTH && value.codePointCount(0, value.length()) > MAX_IDENTITY_LENGTH) {
            throw new InvalidRecordException(field, "is longer than " + MAX_IDENTITY_LENGTH + " characters");
        }
        return value;
    }

    /**
     * A job that used a GPU or reports its work: an identity, and not {@value TelemetrySample#SHARED_JOB}, which
     * marks a shared GPU's samples and is no job's name (a part or report of it would be counted as a job's).
     */
    public static String jobId(String value) {
        identity("jobId", value);
        if (value.equals(TelemetrySample.SHARED_JOB)) {
            throw new InvalidRecordException("jobId", "is '" + value + "', which marks a shared GPU's samples, not"
                    + " a job; name the job itself");
        }
        return value;
    }

    /**
     * A job one of a shared GPU's allocations names: a {@link #jobId}, and neither {@value TelemetrySample#UNKNOWN_JOB}
     * (use no job is known of stays out of the allocations, unallocated, never charged to a job of that name) nor
     * {@value JobPart#UNLISTED_JOB} (which names the jobs past those a window lists, a team's, not one job).
     */
    public static String allocatedJobId(String value) {
        jobId(value);
        if (value.equals(TelemetrySample.UNKNOWN_JOB)) {
            throw new InvalidRecordException("jobId", "is '" + value + "', which says no job is known: leave use of"
                    + " no known job out of the allocations, where it stays unallocated");
        }
        if (value.equals(JobPart.UNLISTED_JOB)) {
            throw new InvalidRecordException("jobId", "is '" + value + "', which names the jobs a window does not"
                    + " list, not one job; name the job itself");
        }
        return value;
    }

    public static <T> T present(String field, T value) {
        if (value == null) {
            throw new InvalidRecordException(field, "is required");
        }
        return value;
    }

    public static double finite(String field, double value) {
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            throw new InvalidRecordException(field, "must be a finite number, was " + value);
        }
        return value;
    }

    public static double nonNegative(String field, double value) {
        finite(field, value);
        if (value < 0) {
            throw new InvalidRecordException(field, "must not be negative, was " + value);
        }
        return value;
    }

    public static double positive(String field, double value) {
        finite(field, value);
        if (value <= 0) {
            throw new InvalidRecordException(field, "must be positive, was " + value);
        }
        return value;
    }

    public static double ratio(String field, double value) {
        finite(field, value);
        if (value < 0 || value > 1) {
            throw new InvalidRecordException(field, "must be a ratio between 0 and 1, was " + value);
        }
        return value;
    }

    /** Optional ratio: absent (null) is allowed, present must be within 0–1. */
    public static Double optionalRatio(String field, Double value) {
        return value == null ? null : ratio(field, value);
    }

    public static Double optionalNonNegative(String field, Double value) {
        return value == null ? null : nonNegative(field, value);
    }

    public static Instant instant(String field, Instant value) {
        return present(field, value);
    }

    /** A window's {@code windowStart} and {@code windowEnd}: both present, the end after the start. */
    public static void window(Instant windowStart, Instant windowEnd) {
        instant("windowStart", windowStart);
        instant("windowEnd", windowEnd);
        if (!windowEnd.isAfter(windowStart)) {
            throw new InvalidRecordException("windowEnd", "must be after windowStart");
        }
    }

    public static String currency(String field, String value) {
        present(field, value);
        if (!CURRENCY.matcher(value).matches()) {
            throw new InvalidRecordException(field, "must be an ISO 4217 code such as USD, was '" + value + "'");
        }
        return value;
    }
}
