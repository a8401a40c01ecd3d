package io.gpuledger.alerts.metrics;

/** The value behind a gauge: written by the thread that learns it, read by the scrape. */
public final class Cell {

    private volatile double value;

    public Cell() {
    }

    /** A cell holding {@code value} until set: NaN for "not known yet". */
    public Cell(double value) {
        this.value = value;
    }

    public double get() {
        return value;
    }

    public void set(double value) {
        this.value = value;
    }
}
