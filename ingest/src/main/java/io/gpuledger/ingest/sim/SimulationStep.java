package io.gpuledger.ingest.sim;

import io.gpuledger.model.CapacityEvent;
import io.gpuledger.model.JobProgress;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.TelemetrySample;
import java.time.Instant;
import java.util.List;

/**
 * Everything the fleet published for the interval that ends at {@code end}: a sample per running
 * GPU, a work report per node of each job that reports work, the capacity notices given at
 * {@code end}, the spot price versions valid from {@code end}, and, when the price feed confirms
 * its prices, the version in force of every offer, observed at {@code end}.
 */
public record SimulationStep(Instant end, List<TelemetrySample> telemetry, List<JobProgress> progress,
        List<CapacityEvent> capacityEvents, List<PriceQuote> priceChanges, List<PriceQuote> priceConfirmations) {

    public SimulationStep {
        telemetry = List.copyOf(telemetry);
        progress = List.copyOf(progress);
        capacityEvents = List.copyOf(capacityEvents);
        priceChanges = List.copyOf(priceChanges);
        priceConfirmations = List.copyOf(priceConfirmations);
    }

    public int records() {
        return telemetry.size() + progress.size() + capacityEvents.size() + priceChanges.size()
                + priceConfirmations.size();
    }
}
