package io.gpuledger.ingest.price;

/** A price source that could not be read at all; the message says which one and why. */
public class PriceSourceException extends RuntimeException {

    public PriceSourceException(String message) {
        super(message);
    }

    public PriceSourceException(String message, Throwable cause) {
        super(message, cause);
    }
}
