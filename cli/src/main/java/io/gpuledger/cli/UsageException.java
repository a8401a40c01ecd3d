package io.gpuledger.cli;

/** A command line that cannot be run as written; the message says what to change. */
final class UsageException extends RuntimeException {

    UsageException(String message) {
        super(message);
    }
}
