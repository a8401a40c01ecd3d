package io.gpuledger.streams.cost;

import io.gpuledger.streams.price.PriceTable;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.streams.processor.api.ProcessorContext;

/**
 * The prices {@link GpuWindows} charges a GPU's seconds at: a second has the price of the GPU's
 * offer in force at its middle, in the reporting currency at the exchange rate in force then.
 */
final class GpuPricing {

    private final CostSettings settings;
    private final ProcessorContext<?, ?> context;
    private final PriceTable prices;
    /** Samples priced in a currency the rates table lacks, by currency. */
    private final Map<String, Sensor> unknownCurrencies = new HashMap<>();

    GpuPricing(CostSettings settings, ProcessorContext<?, ?> context, PriceTable prices) {
        this.settings = settings;
        this.context = context;
        this.prices = prices;
    }

    /** Seconds {@code [first, end)} of a GPU over which one price, in the reporting currency, holds. */
    interface PriceRun {
        void run(PriceTable.InForce price, long first, long end);
    }

    /** The middle, in epoch millis, of the epoch second {@code second}. */
    static long middleOf(long second) {
        return second * 1000 + 500;
    }

    /**
     * The span of time around {@code at} in which one price of the GPU's offer (or none) is in
     * force. It is kept in the GPU's cache: the next sample of the GPU most often falls in it too.
     */
    PriceTable.InForce inForce(GpuCache cache, GpuIdentity identity, long at) {
        if (cache.priceFor != identity || !cache.price.covers(at)) {
            cache.price = prices.inForceAt(identity.offer, at);
            cache.priceFor = identity;
        }
        return cache.price;
    }

    /**
     * Splits the GPU's seconds {@code [fromSecond, toSecond)} into runs of one price, and gives
     * each run to {@code run}, in order.
     */
    void forEachRun(GpuCache cache, GpuIdentity identity, long fromSecond, long toSecond, PriceRun run) {
        long runFirst = fromSecond;
        while (runFirst < toSecond) {
            PriceTable.InForce price = inForce(cache, identity, middleOf(runFirst));
            // The span holds the run's first second, so the next price starts at a later second.
            long runEnd = Math.min(toSecond,
                    GpuState.firstSecond(price.samePriceUntil(settings.rates(), middleOf(runFirst))));
            run.run(price, runFirst, runEnd);
            runFirst = runEnd;
        }
    }

    /** Whether {@code price} holds, in the reporting currency, over the seconds {@code [first, last)}. */
    boolean holdsOver(PriceTable.InForce price, long first, long last) {
        return price.covers(middleOf(last - 1))
                && price.samePriceUntil(settings.rates(), middleOf(first)) > middleOf(last - 1);
    }

    /**
     * The price of one GPU-hour at {@code at} in the reporting currency; null: unpriced. A sample
     * priced in a currency the rates table lacks is counted under that currency's name.
     */
    Double perGpuHour(PriceTable.InForce price, long at) {
        Double perHour = price.perGpuHourIn(settings.rates(), at);
        if (perHour == null && price.quote() != null) {
            unknownCurrencies.computeIfAbsent(price.quote().currency(), currency -> context.metrics()
                    .addRateTotalSensor("gpuledger", currency, "unknown-currency-samples", Sensor.RecordingLevel.INFO))
                    .record();
        }
        return perHour;
    }

    /**
     * What the GPU's unmonitored seconds {@code [fromSecond, toSecond)} cost, each at the price in
     * force at its middle (0 where none is known), for the GPU's share: the instance was paid for
     * all the same.
     */
    double unmonitoredCost(GpuCache cache, GpuIdentity identity, long fromSecond, long toSecond) {
        double[] cost = {0};
        forEachRun(cache, identity, fromSecond, toSecond, (price, runFirst, runEnd) -> {
            Double perHour = perGpuHour(price, middleOf(runFirst));
            if (perHour != null) {
                cost[0] += perHour * (runEnd - runFirst) / 3600;
            }
        });
        return cost[0] * identity.fraction;
    }
}
