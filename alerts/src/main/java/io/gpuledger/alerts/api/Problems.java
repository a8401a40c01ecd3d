package io.gpuledger.alerts.api;

import io.gpuledger.model.Json;
import java.util.Map;

/** Error bodies of the API: one JSON object with a message a person can act on. */
final class Problems {

    private Problems() {
    }

    static String json(String message) {
        return Json.writeString(Map.of("error", message));
    }
}
