package io.gpuledger.streams.cost;

import io.gpuledger.model.Reading;
import io.gpuledger.model.UsageTotals;
import io.gpuledger.model.UsageTotals.Sum;

/**
 * {@link UsageTotals} being added up in place: a window or partial takes every sample this way
 * without making new objects, and becomes a {@code UsageTotals} again when it is sent or stored.
 */
final class RunningTotals {

    static final int SUMS = Sum.values().length;
    static final int MEAN_PARTS = 2 * Reading.KEPT.size();

    private long samples;
    /** As {@link UsageTotals#of} takes them: by {@link Sum} ordinal, and two per kept reading. */
    private final double[] sums = new double[SUMS];
    private final double[] means = new double[MEAN_PARTS];

    static RunningTotals of(UsageTotals totals) {
        RunningTotals running = new RunningTotals();
        running.add(totals);
        return running;
    }

    void add(UsageTotals more) {
        samples += more.samples();
        more.addTo(sums, means);
    }

    /** Adds totals laid out as {@link UsageTotals#addTo} lays them out: {@link #SUMS} sums, then the means' parts. */
    void add(long moreSamples, double[] moreSums, double[] moreMeans) {
        samples += moreSamples;
        for (int i = 0; i < SUMS; i++) {
            sums[i] += moreSums[i];
        }
        for (int i = 0; i < MEAN_PARTS; i++) {
            means[i] += moreMeans[i];
        }
    }

    void add(RunningTotals more) {
        add(more.samples, more.sums, more.means);
    }

    double sum(Sum sum) {
        return sums[sum.ordinal()];
    }

    long samples() {
        return samples;
    }

    double unmonitoredSeconds() {
        return sums[Sum.UNMONITORED_SECONDS.ordinal()];
    }

    /** GPU time on shared GPUs, by whatever policy ({@link UsageTotals#sharedGpuSeconds()}). */
    double sharedGpuSeconds() {
        return sums[Sum.SM_SHARED_SECONDS.ordinal()] + sums[Sum.MEMORY_SHARED_SECONDS.ordinal()]
                + sums[Sum.EVEN_SHARED_SECONDS.ordinal()];
    }

    UsageTotals snapshot() {
        return UsageTotals.of(samples, sums, means);
    }
}
