package io.gpuledger.streams.cost;

import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.TelemetrySample;
import io.gpuledger.streams.price.CurrencyRates;
import io.gpuledger.streams.price.PriceTable;
import java.util.Optional;
import org.apache.kafka.streams.processor.api.FixedKeyProcessor;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorContext;
import org.apache.kafka.streams.processor.api.FixedKeyRecord;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Looks up the price in force at each sample's event time and attaches the per-GPU hourly price
 * in the reporting currency (null when no price, or no exchange rate for its currency, is known).
 */
final class ChargeSample implements FixedKeyProcessor<String, TelemetrySample, PricedSample> {

    private final String priceStoreName;
    private final CurrencyRates rates;
    private FixedKeyProcessorContext<String, PricedSample> context;
    private PriceTable prices;

    ChargeSample(String priceStoreName, CurrencyRates rates) {
        this.priceStoreName = priceStoreName;
        this.rates = rates;
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
        Double price = quote.flatMap(q -> rates.toReporting(q.pricePerGpuHour(), q.currency())).orElse(null);
        context.forward(record.withValue(new PricedSample(sample, price)));
    }
}
