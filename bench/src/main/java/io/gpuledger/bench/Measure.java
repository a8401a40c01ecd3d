package io.gpuledger.bench;

/** {@code records} done in {@code nanos}: a benchmark's figure. */
record Measure(long records, long nanos) {

    double seconds() {
        return nanos / 1e9;
    }

    double rate() {
        return records / seconds();
    }
}
