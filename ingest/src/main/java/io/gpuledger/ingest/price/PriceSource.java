package io.gpuledger.ingest.price;

/**
 * Somewhere prices can be read: a catalog file, a provider's price API, a published catalog.
 * It answers one question, "which quotes do you have now"; what has changed since the last
 * answer, and what to publish, is the feed's business.
 */
public interface PriceSource {

    /** Where the prices are read from, as a person would name it in a message. */
    String origin();

    /**
     * Reads the source once. Records it cannot turn into quotes are in the reading, each with
     * its line and the reason; they never become quotes.
     *
     * @throws PriceSourceException when nothing at all could be read (missing file, HTTP error, not the expected
     * format)
     */
    PriceReading read();
}
