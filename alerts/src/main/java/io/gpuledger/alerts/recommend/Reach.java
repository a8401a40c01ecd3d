package io.gpuledger.alerts.recommend;

import io.gpuledger.model.Offer;

/**
 * Where a job may be moved: its own provider and region unless the deployment allows others. A move
 * across regions or providers sends the job's storage traffic across, priced at
 * {@code egressPricePerGb} (in the reporting currency) where the job says how much that is.
 *
 * @param otherRegions     whether a job may go to another region of its provider
 * @param otherProviders   whether a job may go to another provider (any region)
 * @param egressPricePerGb what a gigabyte sent out of the job's region costs
 */
public record Reach(boolean otherRegions, boolean otherProviders, double egressPricePerGb) {

    /** Data sent out of a cloud region to the internet, as AWS lists it: 0.09 USD per GB (the first 10 TB). */
    public static final double DEFAULT_EGRESS_PRICE_PER_GB = 0.09;

    /** The default: a job stays in its provider and region. */
    public static final Reach SAME_REGION = new Reach(false, false, DEFAULT_EGRESS_PRICE_PER_GB);

    public Reach {
        if (!(egressPricePerGb >= 0)) {
            throw new IllegalArgumentException("egressPricePerGb must not be negative, was " + egressPricePerGb);
        }
    }

    /** What a move from {@code from} to {@code to} crosses. */
    enum Move {
        NONE, REGION, PROVIDER;

        String wire() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    static Move move(Offer from, Offer to) {
        if (!from.provider().equals(to.provider())) {
            return Move.PROVIDER;
        }
        return from.region().equals(to.region()) ? Move.NONE : Move.REGION;
    }

    /** Whether a job may be moved from {@code from} to {@code to}. */
    boolean allows(Offer from, Offer to) {
        return switch (move(from, to)) {
            case NONE -> true;
            case REGION -> otherRegions || otherProviders;
            case PROVIDER -> otherProviders;
        };
    }
}
