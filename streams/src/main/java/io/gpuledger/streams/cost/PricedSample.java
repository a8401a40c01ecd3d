package io.gpuledger.streams.cost;

import io.gpuledger.model.TelemetrySample;

/**
 * A sample with the price of its GPU in force at its event time, in the reporting currency;
 * {@code gpuPricePerHour} is null when no price was known. Lives only between the price join and
 * the window: never on a topic.
 */
public record PricedSample(TelemetrySample sample, Double gpuPricePerHour) {
}
