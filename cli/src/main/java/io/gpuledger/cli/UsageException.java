package io.gpuledger.cli;

/** A command line that cannot be run as written; the message says what to change. */
final class UsageException extends RuntimeException {

    UsageException(String message) {
        super(message);
    }

    /** The value of a command-line option that takes a positive whole number. */
    static int positive(String option, String value) {
        return wholeNumber(option, value, 1, "a positive whole number");
    }

    /** The value of a command-line option that takes a whole number of 0 or more. */
    static int nonNegative(String option, String value) {
        return wholeNumber(option, value, 0, "a whole number of 0 or more");
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
