package io.gpuledger.alerts;

import java.util.LinkedHashMap;
import java.util.Map;

/** The alert service's settings as application.properties ships them, with a test's own set over them by name. */
public final class TestSettings {

    private TestSettings() {
    }

    /** The shipped settings with {@code namesAndValues} ({@code "gpuledger.recommendation.ttl", "15m", …}). */
    public static AlertSettings with(String... namesAndValues) {
        if (namesAndValues.length % 2 != 0) {
            throw new IllegalArgumentException("settings come in pairs of a name and a value");
        }
        Map<String, String> set = new LinkedHashMap<>();
        for (int i = 0; i < namesAndValues.length; i += 2) {
            set.put(namesAndValues[i], namesAndValues[i + 1]);
        }
        return ShippedSettings.with(set);
    }

    /** The settings of the recommendation rules, as shipped but for {@code namesAndValues}. */
    public static AlertSettings.Recommendation recommendation(String... namesAndValues) {
        return with(namesAndValues).recommendation();
    }
}
