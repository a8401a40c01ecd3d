package io.gpuledger.alerts.api;

import io.gpuledger.model.Json;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.Map;
import java.util.function.Supplier;

/** Error answers of the API: one JSON object with a message a person can act on. */
final class Problems {

    private Problems() {
    }

    static String json(String message) {
        return Json.writeString(Map.of("error", message));
    }

    static WebApplicationException status(Response.Status status, String message) {
        return new WebApplicationException(Response.status(status).type(MediaType.APPLICATION_JSON)
                .entity(json(message)).build());
    }

    /** The value {@code parser} reads from a query parameter, or a 400 naming the parameter. */
    static <T> T parse(Supplier<T> parser, String parameter, String value) {
        try {
            return parser.get();
        } catch (IllegalArgumentException e) {
            throw status(Response.Status.BAD_REQUEST, "unknown " + parameter + " '" + value + "'");
        }
    }
}
