package io.gpuledger.streams.state;

/** A value written in a format version newer than this release reads: written by a newer release. */
public final class UnknownFormatException extends RuntimeException {

    private final int version;

    UnknownFormatException(int version, int readsUpTo) {
        super("format version " + version + " is newer than the " + readsUpTo
                + " this release reads: the value was written by a newer release");
        this.version = version;
    }

    public int version() {
        return version;
    }
}
