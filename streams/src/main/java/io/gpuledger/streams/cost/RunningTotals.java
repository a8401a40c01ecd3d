package io.gpuledger.streams.cost;

import io.gpuledger.model.Mean;
import io.gpuledger.model.Reading;
import io.gpuledger.model.UsageTotals;
import io.gpuledger.model.UsageTotals.Sum;

/**
 * {@link UsageTotals} being added up in place: a window or partial takes every sample this way
 * without making new objects, and becomes a {@code UsageTotals} again when it is sent or stored.
 */
final class RunningTotals {

    private static final Sum[] SUMS = Sum.values();

    private long samples;
    private final double[] sums = new double[SUMS.length];
    /** Per kept reading, in {@link Reading#KEPT} order: its weighted sum, then its seconds. */
    private final double[] means = new double[2 * Reading.KEPT.size()];

    static RunningTotals of(UsageTotals totals) {
        RunningTotals running = new RunningTotals();
        running.add(totals);
        return running;
    }

    void add(UsageTotals more) {
        samples += more.samples();
        for (int i = 0; i < SUMS.length; i++) {
            sums[i] += more.sum(SUMS[i]);
        }
        for (int i = 0; i < Reading.KEPT.size(); i++) {
            Mean mean = more.mean(Reading.KEPT.get(i));
            means[2 * i] += mean.weightedSum();
            means[2 * i + 1] += mean.seconds();
        }
    }

    long samples() {
        return samples;
    }

    double unmonitoredSeconds() {
        return sums[Sum.UNMONITORED_SECONDS.ordinal()];
    }

    UsageTotals snapshot() {
        UsageTotals.Builder totals = UsageTotals.builder().samples(samples);
        for (int i = 0; i < SUMS.length; i++) {
            totals.sum(SUMS[i], sums[i]);
        }
        for (int i = 0; i < Reading.KEPT.size(); i++) {
            totals.mean(Reading.KEPT.get(i), new Mean(means[2 * i], means[2 * i + 1]));
        }
        return totals.build();
    }
}
