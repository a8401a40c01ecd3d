package io.gpuledger.alerts.recommend;

import io.gpuledger.model.Offer;
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
        Map<String, Object> fields = of(quote.offer(), gpuModel);
        fields.put("gpusPerInstance", quote.gpuCount());
        fields.put("pricePerHour", quote.pricePerHour());
        fields.put("currency", quote.currency());
        return fields;
    }

    /** An offer without a price: the fields of {@link #of(PriceQuote, String)} up to {@code gpuModel}. */
    static Map<String, Object> of(Offer offer, String gpuModel) {
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("offerKey", offer.key());
        fields.put("provider", offer.provider());
        fields.put("region", offer.region());
        fields.put("instanceType", offer.instanceType());
        fields.put("lifecycle", offer.lifecycle().wire());
        if (gpuModel != null) {
            fields.put("gpuModel", gpuModel);
        }
        return fields;
    }
}
