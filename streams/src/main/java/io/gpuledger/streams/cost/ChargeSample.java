package io.gpuledger.streams.cost;

import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.TelemetrySample;
import io.gpuledger.streams.price.PriceTable;
import java.util.Optional;
import org.apache.kafka.streams.processor.api.FixedKeyProcessor;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorContext;
import org.apache.kafka.streams.processor.api.FixedKeyRecord;
import org.apache.kafka.streams.state.KeyValueStore;

/** Looks up the price in force at each sample's event time and attaches the per-GPU hourly price. */
final class ChargeSample implements FixedKeyProcessor<String, TelemetrySample, PricedSample> {

    private final String priceStoreName;
    private FixedKeyProcessorContext<String, PricedSample> context;
    private PriceTable prices;

    ChargeSample(String priceStoreName) {
        this.priceStoreName = priceStoreName;
    }

    @Override
    public void init(FixedKeyProcessorContext<String, PricedSample> context) {
        this.context = context;
        KeyValueStore<String, byte[]> store = context.getStateStore(priceStoreName);
        this.prices = new PriceTable(store);
    }

    @Override
    public void process(FixedKeyRecord<String, TelemetrySample> record) {
        TelemetrySample sample = record.value();
        Optional<PriceQuote> quote = prices.inForce(sample.offer(), EventTime.of(sample));
        context.forward(record.withValue(new PricedSample(sample,
                quote.map(PriceQuote::pricePerGpuHour).orElse(null),
                quote.map(PriceQuote::currency).orElse(null))));
    }
}
