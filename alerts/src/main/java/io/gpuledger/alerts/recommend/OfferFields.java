package io.gpuledger.alerts.recommend;

import io.gpuledger.model.PriceQuote;
import java.util.LinkedHashMap;
import java.util.Map;

/** How every rule names a priced offer in an action, so that automation reads one shape. */
final class OfferFields {

    private OfferFields() {
    }

    /**
     * {@code offerKey}, {@code provider}, {@code region}, {@code instanceType}, {@code lifecycle},
     * {@code gpuModel} (when known), {@code gpusPerInstance}, {@code pricePerHour}, {@code currency}.
     */
    static Map<String, Object> of(PriceQuote quote, String gpuModel) {
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("offerKey", quote.offer().key());
        fields.put("provider", quote.provider());
        fields.put("region", quote.region());
        fields.put("instanceType", quote.instanceType());
        fields.put("lifecycle", quote.lifecycle().wire());
        if (gpuModel != null) {
            fields.put("gpuModel", gpuModel);
        }
        fields.put("gpusPerInstance", quote.gpuCount());
        fields.put("pricePerHour", quote.pricePerHour());
        fields.put("currency", quote.currency());
        return fields;
    }
}
