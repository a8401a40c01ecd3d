package io.gpuledger.ingest.price;

import io.gpuledger.model.PriceQuote;
import java.util.List;

/**
 * What one read of a {@link PriceSource} found.
 *
 * @param origin   the source, as named in messages
 * @param dating   where the quotes' {@code validFrom} comes from
 * @param quotes   the quotes read, in the order of the source
 * @param rejected records that break the source's format or the contract, one message each naming
 *                 the line (or record) and the field; never published
 * @param skipped  well-formed records that are deliberately not prices GPU Ledger publishes
 *                 (Windows licences, non-GPU instance types, ...), each with its reason
 */
public record PriceReading(String origin, Dating dating, List<PriceQuote> quotes, List<String> rejected,
        List<Skipped> skipped) {

    /** Where a reading's {@code validFrom} instants come from. */
    public enum Dating {
        /** The source says when each price took effect; each distinct instant is a price version. */
        FROM_SOURCE,
        /**
         * The source gives prices without a start time, so each is dated with the time it was read:
         * a price equal to the one already in force is no news and is not a new version.
         */
        AT_READING
    }

    /** A record left out on purpose, and why. */
    public record Skipped(String where, String reason) {
    }

    public PriceReading {
        quotes = List.copyOf(quotes);
        rejected = List.copyOf(rejected);
        skipped = List.copyOf(skipped);
    }
}
