package io.gpuledger.cli;

/** A command line that cannot be run as written; the message says what to change. */
final class UsageException extends RuntimeException {

    UsageException(String message) {
        super(message);
    }

    /** The value of a command-line option that takes a positive whole number. */
    static int positive(String option, String value) {
        try {
            int number = Integer.parseInt(value);
            if (number > 0) {
                return number;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new UsageException(option + " takes a positive whole number, not '" + value + "'");
    }
}
