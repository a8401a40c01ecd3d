package io.gpuledger.streams.state;

/**
 * A value in a format this release does not read: a newer release's, or one without a version
 * byte (an untagged build's from before the first release).
 */
public final class UnknownFormatException extends RuntimeException {

    private final int version;

    UnknownFormatException(int version, int readsUpTo) {
        super(version == 0 ? "no format version byte: the value was written before the first release"
                : "format version " + version + " is newer than the " + readsUpTo
                        + " this release reads: the value was written by a newer release");
        this.version = version;
    }

    public int version() {
        return version;
    }
}
