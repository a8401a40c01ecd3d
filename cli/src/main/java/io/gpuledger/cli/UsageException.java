package io.gpuledger.cli;

import java.util.ArrayList;
import java.util.List;

/** A command line that cannot be run as written; the message says what to change. */
public final class UsageException extends RuntimeException {

    public UsageException(String message) {
        super(message);
    }

    /** The value of a command-line option that takes a positive whole number. */
    public static int positive(String option, String value) {
        return wholeNumber(option, value, 1, "a positive whole number");
    }

    /** The value of a command-line option that takes a whole number of 0 or more. */
    public static int nonNegative(String option, String value) {
        return wholeNumber(option, value, 0, "a whole number of 0 or more");
    }

    /**
     * The value of a command-line option that takes positive whole numbers separated by commas ({@code 1000,10000}).
     */
    public static List<Integer> positives(String option, String value) {
        List<Integer> numbers = new ArrayList<>();
        for (String part : value.split(",", -1)) {
            numbers.add(wholeNumber(option, part.strip(), 1, "positive whole numbers separated by commas"));
        }
        return List.copyOf(numbers);
    }

    /** The value of a command-line option that takes a fraction from 0 to 1 ({@code 0.25}). */
    public static double fraction(String option, String value) {
        try {
            double fraction = Double.parseDouble(value);
            if (fraction >= 0 && fraction <= 1) {
                return fraction;
            }
        } catch (NumberFormatException e) {
            // said below
        }
        throw new UsageException(option + " takes a fraction from 0 to 1, not '" + value + "'");
    }

    private static int wholeNumber(String option, String value, int least, String what) {
        try {
            int number = Integer.parseInt(value);
            if (number >= least) {
                return number;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new UsageException(option + " takes " + what + ", not '" + value + "'");
    }
}
