package io.gpuledger.streams.cost;

import io.gpuledger.model.Mean;
import io.gpuledger.model.UsageTotals;

/**
 * {@link UsageTotals} being added up in place: a window or partial takes every sample this way
 * without making new objects, and becomes a {@code UsageTotals} again when it is sent or stored.
 */
final class RunningTotals {

    private long samples;
    private double gpuSeconds;
    private double unpricedSeconds;
    private double stalePricedSeconds;
    private double cost;
    private double idleSeconds;
    private double idleCost;
    private double unmonitoredSeconds;
    private final double[] means = new double[10];
    private double energyKwh;
    private double nvlinkBytes;
    private double unmonitoredCost;

    static RunningTotals of(UsageTotals totals) {
        RunningTotals running = new RunningTotals();
        running.add(totals);
        return running;
    }

    void add(UsageTotals more) {
        samples += more.samples();
        gpuSeconds += more.gpuSeconds();
        unpricedSeconds += more.unpricedSeconds();
        stalePricedSeconds += more.stalePricedSeconds();
        cost += more.cost();
        idleSeconds += more.idleSeconds();
        idleCost += more.idleCost();
        unmonitoredSeconds += more.unmonitoredSeconds();
        add(0, more.smActive());
        add(2, more.smOccupancy());
        add(4, more.dramActive());
        add(6, more.tensorActive());
        add(8, more.powerWatts());
        energyKwh += more.energyKwh();
        nvlinkBytes += more.nvlinkBytes();
        unmonitoredCost += more.unmonitoredCost();
    }

    private void add(int at, Mean mean) {
        means[at] += mean.weightedSum();
        means[at + 1] += mean.seconds();
    }

    long samples() {
        return samples;
    }

    double unmonitoredSeconds() {
        return unmonitoredSeconds;
    }

    UsageTotals snapshot() {
        return new UsageTotals(samples, gpuSeconds, unpricedSeconds, stalePricedSeconds, cost, idleSeconds, idleCost,
                unmonitoredSeconds, mean(0), mean(2), mean(4), mean(6), mean(8), energyKwh, nvlinkBytes,
                unmonitoredCost);
    }

    private Mean mean(int at) {
        return means[at] == 0 && means[at + 1] == 0 ? Mean.NONE : new Mean(means[at], means[at + 1]);
    }
}
