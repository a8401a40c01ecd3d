package io.gpuledger.ingest.price;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpuledger.model.InvalidRecordException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.Optional;

/** Reading the fields of one JSON record of a provider's price format; each failure names its field. */
public final class Fields {

    private Fields() {
    }

    public static Optional<String> text(JsonNode record, String field) {
        JsonNode value = record.get(field);
        if (value == null || value.isNull()) {
            return Optional.empty();
        }
        if (!value.isValueNode()) {
            throw new InvalidRecordException(field, "must be a single value, not " + value.getNodeType().name()
                    .toLowerCase());
        }
        String text = value.asText().trim();
        return text.isEmpty() ? Optional.empty() : Optional.of(text);
    }

    public static String required(JsonNode record, String field) {
        return text(record, field).orElseThrow(() -> new InvalidRecordException(field, "is required"));
    }

    /** A number written as a JSON number or as a string holding one (AWS writes prices as strings). */
    public static double number(JsonNode record, String field) {
        String text = required(record, field);
        try {
            return Double.parseDouble(text);
        } catch (NumberFormatException e) {
            throw new InvalidRecordException(field, "is not a number: '" + text + "'");
        }
    }

    /** An ISO-8601 instant, with {@code Z} or a numeric offset. */
    public static Instant instant(JsonNode record, String field) {
        return instant(field, required(record, field));
    }

    public static Instant instant(String field, String text) {
        try {
            return Instant.parse(text);
        } catch (DateTimeParseException e) {
            try {
                return OffsetDateTime.parse(text).toInstant();
            } catch (DateTimeParseException again) {
                throw new InvalidRecordException(field, "is not an ISO-8601 instant: '" + text + "'");
            }
        }
    }
}
