package io.gpuledger.ingest.sim;

import io.gpuledger.model.PriceQuote;

/**
 * What a GPU, job or pool cost, as the simulation knows it: GPU time reported, and its cost at the
 * price in force at each sample's middle. Time for which no price was known is counted apart and
 * costs nothing, as the cost engine does.
 *
 * @param currency null until the first priced sample; a GPU, job or pool lives in one offer, so in one currency
 */
public record Tally(double gpuSeconds, double unpricedSeconds, double cost, String currency, long samples) {

    public static final Tally NONE = new Tally(0, 0, 0, null, 0);

    /** One sample's {@code gpuSeconds} at {@code price}, the whole instance's hourly price; null: none in force. */
    public static Tally of(double gpuSeconds, PriceQuote price) {
        return price == null
                ? new Tally(gpuSeconds, gpuSeconds, 0, null, 1)
                : new Tally(gpuSeconds, 0, price.pricePerGpuHour() * gpuSeconds / 3600, price.currency(), 1);
    }

    public Tally plus(Tally other) {
        if (currency != null && other.currency != null && !currency.equals(other.currency)) {
            throw new IllegalStateException("one tally cannot add " + other.currency + " to " + currency);
        }
        return new Tally(gpuSeconds + other.gpuSeconds, unpricedSeconds + other.unpricedSeconds, cost + other.cost,
                currency != null ? currency : other.currency, samples + other.samples);
    }

    public double gpuHours() {
        return gpuSeconds / 3600;
    }

    /** Mean cost of one GPU-hour of priced time. */
    public double costPerGpuHour() {
        double priced = gpuSeconds - unpricedSeconds;
        return priced <= 0 ? 0 : cost / (priced / 3600);
    }
}
