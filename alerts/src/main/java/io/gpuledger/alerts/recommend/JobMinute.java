package io.gpuledger.alerts.recommend;

import io.gpuledger.model.JobEconomics;
import io.gpuledger.model.Mean;
import io.gpuledger.model.Reading;
import io.gpuledger.model.UsageRollup;
import java.time.Instant;
import java.util.Map;

/**
 * One final minute of a job, as {@link JobBook} keeps it: its economics and, where its roll-up
 * came, how much GPU it held and how busy that was. {@code workUnits} is empty when the job
 * reported no work for it.
 */
record JobMinute(Instant start, String currency, long gpus, double gpuEquivalents, double cost, double costPerHour,
        Map<String, Double> workUnits, Double communicationOverheadRatio, double gpuSeconds, Mean smActive,
        Mean dramActive) {

    /** Units of work of every unit it reported, together: a job reports one unit, as a rule. */
    double units() {
        double sum = 0;
        for (double count : workUnits.values()) {
            sum += count;
        }
        return sum;
    }

    static JobMinute of(JobEconomics economics, UsageRollup rollup) {
        boolean reported = economics.throughputReported();
        return builder().start(economics.windowStart()).currency(economics.currency()).gpus(economics.gpus())
                .gpuEquivalents(rollup != null ? rollup.gpuEquivalents() : economics.gpus()).cost(economics.cost())
                .costPerHour(economics.costPerHour()).workUnits(reported ? economics.workUnits() : Map.of())
                .communicationOverheadRatio(reported ? economics.communicationOverheadRatio() : null)
                .gpuSeconds(economics.gpuSeconds()).smActive(rollup != null ? rollup.totals().smActive() : Mean.NONE)
                .dramActive(rollup != null ? rollup.totals().mean(Reading.DRAM_ACTIVE) : Mean.NONE).build();
    }

    static Builder builder() {
        return new Builder();
    }

    static final class Builder {
        private Instant start;
        private String currency;
        private long gpus;
        private double gpuEquivalents;
        private double cost;
        private double costPerHour;
        private Map<String, Double> workUnits;
        private Double communicationOverheadRatio;
        private double gpuSeconds;
        private Mean smActive;
        private Mean dramActive;

        private Builder() {
        }

        Builder start(Instant value) { start = value; return this; }
        Builder currency(String value) { currency = value; return this; }
        Builder gpus(long value) { gpus = value; return this; }
        Builder gpuEquivalents(double value) { gpuEquivalents = value; return this; }
        Builder cost(double value) { cost = value; return this; }
        Builder costPerHour(double value) { costPerHour = value; return this; }
        Builder workUnits(Map<String, Double> value) { workUnits = value; return this; }
        Builder communicationOverheadRatio(Double value) { communicationOverheadRatio = value; return this; }
        Builder gpuSeconds(double value) { gpuSeconds = value; return this; }
        Builder smActive(Mean value) { smActive = value; return this; }
        Builder dramActive(Mean value) { dramActive = value; return this; }

        JobMinute build() {
            return new JobMinute(start, currency, gpus, gpuEquivalents, cost, costPerHour, workUnits,
                    communicationOverheadRatio, gpuSeconds, smActive, dramActive);
        }
    }
}
