package io.gpuledger.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonSetter;
import com.fasterxml.jackson.annotation.Nulls;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;

/**
 * A job's cost set against its work in one minute. Keyed on {@link Topics#JOB_ECONOMICS} by job
 * id; re-emitted as the job's GPU windows or work reports change (keep the latest per window).
 * A job that reported no work says so ({@code throughputReported} false, no per-unit figures):
 * its throughput is unknown, not zero.
 *
 * @param stalePricedSeconds  part of the GPU time charged at a price not confirmed recently enough (see
 *                            {@link UsageTotals#stalePricedSeconds()}): the cost is an estimate
 * @param gpus                GPUs (or MIG slices) the job ran on
 * @param gpuSeconds          GPU time covered, a slice counting its share of the GPU
 * @param costPerHour         what the job spends per hour of wall time ({@link UsageRollup#costPerHour()})
 * @param costPerMillionUnits cost of one million units, by unit name
 * @param unitsPerGpuSecond   throughput per second of a whole GPU's time, by unit name: seven 1/7
 *                            slices doing 700 units a second do 700 per GPU-second
 * @param communicationOverheadRatio exposed communication time ÷ step time; null when not reported
 * @param unpricedSeconds     part of the GPU time with no price or no exchange rate: charged nothing (see
 *                            {@link UsageTotals#unpricedSeconds()}), so {@code cost} leaves it out
 * @param unmonitoredCost     estimated cost of the job's GPU time no sample covered (see
 *                            {@link UsageTotals#unmonitoredCost()}); not part of {@code cost}. Both are 0
 *                            in economics written before they existed
 * @param sharedGpuSeconds    part of {@code gpuSeconds} on GPUs the job shared with others, each charged by its
 *                            share ({@link UsageTotals#sharedGpuSeconds()}); 0 in economics written before it existed
 */
public record JobEconomics(
        String jobId,
        Instant windowStart,
        Instant windowEnd,
        String currency,
        long gpus,
        double gpuSeconds,
        double stalePricedSeconds,
        double cost,
        double costPerHour,
        boolean throughputReported,
        Map<String, Double> workUnits,
        Map<String, Double> costPerMillionUnits,
        Map<String, Double> unitsPerGpuSecond,
        Double communicationOverheadRatio,
        double ncclBytes,
        @JsonSetter(nulls = Nulls.AS_EMPTY) double unpricedSeconds,
        @JsonSetter(nulls = Nulls.AS_EMPTY) double unmonitoredCost,
        @JsonSetter(nulls = Nulls.AS_EMPTY) double sharedGpuSeconds) {

    public JobEconomics {
        Check.identity("jobId", jobId);
        workUnits = workUnits == null ? Map.of() : Map.copyOf(workUnits);
        costPerMillionUnits = costPerMillionUnits == null ? Map.of() : Map.copyOf(costPerMillionUnits);
        unitsPerGpuSecond = unitsPerGpuSecond == null ? Map.of() : Map.copyOf(unitsPerGpuSecond);
    }

    /** Economics with no unpriced time, no unmonitored cost and no shared GPU. */
    public JobEconomics(String jobId, Instant windowStart, Instant windowEnd, String currency, long gpus,
            double gpuSeconds, double stalePricedSeconds, double cost, double costPerHour, boolean throughputReported,
            Map<String, Double> workUnits, Map<String, Double> costPerMillionUnits,
            Map<String, Double> unitsPerGpuSecond, Double communicationOverheadRatio, double ncclBytes) {
        this(jobId, windowStart, windowEnd, currency, gpus, gpuSeconds, stalePricedSeconds, cost, costPerHour,
                throughputReported, workUnits, costPerMillionUnits, unitsPerGpuSecond, communicationOverheadRatio,
                ncclBytes, 0, 0, 0);
    }

    /** The economics of a job minute from its GPUs' roll-up and its work reports (null: none reported). */
    public static JobEconomics of(UsageRollup usage, WorkTotals work) {
        UsageTotals totals = usage.totals();
        boolean reported = work != null && work.reports() > 0;
        Map<String, Double> perMillion = new TreeMap<>();
        Map<String, Double> perGpuSecond = new TreeMap<>();
        if (reported) {
            work.workUnits().forEach((unit, units) -> {
                if (units > 0) {
                    perMillion.put(unit, totals.cost() / units * 1_000_000);
                }
                if (totals.gpuSeconds() > 0) {
                    perGpuSecond.put(unit, units / totals.gpuSeconds());
                }
            });
        }
        return builder().jobId(usage.id()).windowStart(usage.windowStart()).windowEnd(usage.windowEnd())
                .currency(usage.currency()).gpus(usage.gpus()).gpuSeconds(totals.gpuSeconds())
                .stalePricedSeconds(totals.stalePricedSeconds()).cost(totals.cost()).costPerHour(usage.costPerHour())
                .throughputReported(reported).workUnits(reported ? work.workUnits() : Map.of())
                .costPerMillionUnits(perMillion).unitsPerGpuSecond(perGpuSecond)
                .communicationOverheadRatio(reported ? work.communicationOverheadRatio() : null)
                .ncclBytes(reported ? work.ncclBytes() : 0).unpricedSeconds(totals.unpricedSeconds())
                .unmonitoredCost(totals.unmonitoredCost()).sharedGpuSeconds(totals.sharedGpuSeconds()).build();
    }

    @JsonProperty(access = JsonProperty.Access.READ_ONLY)
    public String throughput() {
        return throughputReported ? "reported" : "no throughput reported";
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Fluent construction; amounts not set are 0, maps not set are empty. */
    public static final class Builder {
        private String jobId;
        private Instant windowStart;
        private Instant windowEnd;
        private String currency;
        private long gpus;
        private double gpuSeconds;
        private double stalePricedSeconds;
        private double cost;
        private double costPerHour;
        private boolean throughputReported;
        private Map<String, Double> workUnits;
        private Map<String, Double> costPerMillionUnits;
        private Map<String, Double> unitsPerGpuSecond;
        private Double communicationOverheadRatio;
        private double ncclBytes;
        private double unpricedSeconds;
        private double unmonitoredCost;
        private double sharedGpuSeconds;

        private Builder() {
        }

        public Builder jobId(String value) { jobId = value; return this; }
        public Builder windowStart(Instant value) { windowStart = value; return this; }
        public Builder windowEnd(Instant value) { windowEnd = value; return this; }
        public Builder currency(String value) { currency = value; return this; }
        public Builder gpus(long value) { gpus = value; return this; }
        public Builder gpuSeconds(double value) { gpuSeconds = value; return this; }
        public Builder stalePricedSeconds(double value) { stalePricedSeconds = value; return this; }
        public Builder cost(double value) { cost = value; return this; }
        public Builder costPerHour(double value) { costPerHour = value; return this; }
        public Builder throughputReported(boolean value) { throughputReported = value; return this; }
        public Builder workUnits(Map<String, Double> value) { workUnits = value; return this; }
        public Builder costPerMillionUnits(Map<String, Double> value) { costPerMillionUnits = value; return this; }
        public Builder unitsPerGpuSecond(Map<String, Double> value) { unitsPerGpuSecond = value; return this; }
        public Builder communicationOverheadRatio(Double value) { communicationOverheadRatio = value; return this; }
        public Builder ncclBytes(double value) { ncclBytes = value; return this; }
        public Builder unpricedSeconds(double value) { unpricedSeconds = value; return this; }
        public Builder unmonitoredCost(double value) { unmonitoredCost = value; return this; }
        public Builder sharedGpuSeconds(double value) { sharedGpuSeconds = value; return this; }

        public JobEconomics build() {
            return new JobEconomics(jobId, windowStart, windowEnd, currency, gpus, gpuSeconds, stalePricedSeconds,
                    cost, costPerHour, throughputReported, workUnits, costPerMillionUnits, unitsPerGpuSecond,
                    communicationOverheadRatio, ncclBytes, unpricedSeconds, unmonitoredCost, sharedGpuSeconds);
        }
    }
}
