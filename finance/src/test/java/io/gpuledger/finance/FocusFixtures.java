package io.gpuledger.finance;

import io.gpuledger.model.GpuHour;
import io.gpuledger.model.JobPart;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Mean;
import io.gpuledger.model.Placement;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.Reading;
import io.gpuledger.model.UsageTotals;
import io.gpuledger.model.UsageTotals.Sum;
import java.time.Instant;
import java.util.List;

/** GPU hours of each kind the engine sends, figures chosen by hand. */
final class FocusFixtures {

    static final Instant HOUR = Instant.parse("2026-11-30T23:00:00Z");

    private FocusFixtures() {
    }

    static Placement placement(String instance, String type, Lifecycle lifecycle) {
        return new Placement("node-" + instance, instance, type, "aws", "us-east-1", lifecycle);
    }

    static UsageTotals totals(double gpuSeconds, double cost, double idleCost, double unmonitoredSeconds,
            double unmonitoredCost, double energyKwh, double smActive) {
        return UsageTotals.builder().samples((long) (gpuSeconds / 10)).sum(Sum.GPU_SECONDS, gpuSeconds)
                .sum(Sum.COST, cost).sum(Sum.IDLE_COST, idleCost).sum(Sum.UNMONITORED_SECONDS, unmonitoredSeconds)
                .sum(Sum.UNMONITORED_COST, unmonitoredCost).sum(Sum.ENERGY_KWH, energyKwh)
                .mean(Reading.SM_ACTIVE, new Mean(smActive * gpuSeconds, gpuSeconds)).build();
    }

    /** A whole on-demand H100 of one job: 3,540 s sampled at 12.29 USD/h, 60 s unmonitored. */
    static GpuHour onDemand() {
        double rate = 12.29;
        return new GpuHour("GPU-od-0", 0, "H100", placement("i-0od", "p5.48xlarge", Lifecycle.ON_DEMAND), HOUR,
                HOUR.plusSeconds(3600), "USD", 1.0, totals(3540, rate * 3540 / 3600, 1.0, 60, rate * 60 / 3600, 0.6,
                        0.7),
                List.of(new JobPart("train-llm", "research", 3540, rate * 3540 / 3600, 0.6, 0)));
    }

    /** A spot GPU time-sliced by two jobs, 40% and 35% of the hour, the rest idle. */
    static GpuHour sharedSpot() {
        double cost = 4.0;
        return new GpuHour("GPU-sp-1", 1, "A100", placement("i-0sp", "p4d.24xlarge", Lifecycle.SPOT), HOUR,
                HOUR.plusSeconds(3600), "USD", 1.0, totals(3600, cost, 1.0, 0, 0, 0.3, 0.5),
                List.of(new JobPart("infer-a", "search", 1440, 1.6, 0.12, 0),
                        new JobPart("notebook-b", "unassigned", 1260, 1.4, 0.1, 0)));
    }

    /** {@link #sharedSpot()} on a node of team {@code platform}, which takes what no job took. */
    static GpuHour sharedSpotOfPlatform() {
        GpuHour hour = sharedSpot();
        return new GpuHour(hour.gpuUuid(), hour.gpuIndex(), hour.gpuModel(), hour.placement(), hour.windowStart(),
                hour.windowEnd(), hour.currency(), hour.gpuFraction(), hour.totals(), hour.jobParts(), "platform");
    }

    /** A reserved GPU's hour. */
    static GpuHour reserved() {
        return new GpuHour("GPU-rs-2", 2, "H100", placement("i-0rs", "p5.48xlarge", Lifecycle.RESERVED), HOUR,
                HOUR.plusSeconds(3600), "USD", 1.0, totals(3600, 7.5, 0, 0, 0, 0.65, 0.9),
                List.of(new JobPart("serve-x", "platform", 3600, 7.5, 0.65, 0)));
    }

    /** A 1/7 MIG slice of an on-demand A100 with no list price known for its type. */
    static GpuHour migSlice() {
        double seconds = 3600.0 / 7;
        return new GpuHour("MIG-a1", 0, "A100", new Placement("node-m", "i-0mig", "a2-highgpu-1g", "gcp",
                "us-central1", Lifecycle.ON_DEMAND), HOUR, HOUR.plusSeconds(3600), "USD", 1.0 / 7,
                totals(seconds, 0.53, 0, 0, 0, 0.04, 0.2),
                List.of(new JobPart("tune-1", null, seconds, 0.53, 0.04, 0)));
    }

    static List<GpuHour> all() {
        return List.of(onDemand(), sharedSpot(), reserved(), migSlice());
    }

    /** On-demand list prices: a p5.48xlarge at 98.32 USD/h for 8 GPUs, a p4d.24xlarge at 32.77 for 8. */
    static ListPrices listPrices() {
        ListPrices prices = new ListPrices(io.gpuledger.model.CurrencyRates.shipped("USD"));
        prices.add(quote("p5.48xlarge", 98.32));
        prices.add(quote("p4d.24xlarge", 32.77));
        return prices;
    }

    private static PriceQuote quote(String type, double perHour) {
        return PriceQuote.builder().provider("aws").region("us-east-1").instanceType(type)
                .lifecycle(Lifecycle.ON_DEMAND).gpuCount(8).pricePerHour(perHour).currency("USD")
                .validFrom(HOUR.minusSeconds(86400)).source("test").observedAt(HOUR.minusSeconds(86400)).build();
    }
}
