package io.gpuledger.finance;

import io.gpuledger.model.Json;
import java.util.LinkedHashMap;
import java.util.Map;

/** JSON objects written as the text of a FOCUS key-value column ({@code Tags}, {@code SkuPriceDetails}). */
final class JsonText {

    private JsonText() {
    }

    /** The object of the given keys and values, in that order: {@code key1, value1, key2, value2, ...}. */
    static String object(Object... keysAndValues) {
        Map<String, Object> object = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            object.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        return Json.writeString(object);
    }
}
