package io.gpuledger.ingest.price;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gpuledger.model.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Reads a JSON document whose records sit in one array, keeping the line each record starts on:
 * a tree parse forgets where things were, and a bad record must be named by its line.
 */
public final class JsonRows {

    /** One element of the array and the line of the document it starts on. */
    public record Row(int line, JsonNode node) {
    }

    /**
     * The array's rows, and the document's other top-level fields (such as a next-page link).
     *
     * @param rows empty when the document has no such array
     */
    public record Document(Optional<List<Row>> rows, ObjectNode fields) {
    }

    /** Element by element, so the whole-document rule against trailing tokens does not apply here. */
    private static final ObjectReader TREES = Json.MAPPER.reader()
            .without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    private JsonRows() {
    }

    /**
     * @param arrayField the top-level field that holds the records; null when the document itself is the array
     * @throws IllegalArgumentException when the text is not JSON, naming the line where it stops being so
     */
    public static Document read(String text, String origin, String arrayField) {
        ObjectNode fields = JsonNodeFactory.instance.objectNode();
        try (JsonParser parser = Json.MAPPER.createParser(text)) {
            JsonToken first = parser.nextToken();
            if (first == JsonToken.START_ARRAY && arrayField == null) {
                return new Document(Optional.of(elements(parser, origin)), fields);
            }
            if (first != JsonToken.START_OBJECT || arrayField == null) {
                return new Document(Optional.empty(), fields);
            }
            List<Row> rows = null;
            for (JsonToken token = parser.nextToken(); token == JsonToken.FIELD_NAME; token = parser.nextToken()) {
                String name = parser.currentName();
                JsonToken value = parser.nextToken();
                if (name.equals(arrayField) && value == JsonToken.START_ARRAY) {
                    rows = elements(parser, origin);
                } else {
                    fields.set(name, TREES.readTree(parser));
                }
            }
            return new Document(Optional.ofNullable(rows), fields);
        } catch (JsonProcessingException e) {
            String where = e.getLocation() == null ? "" : " line " + e.getLocation().getLineNr();
            throw new IllegalArgumentException(origin + where + ": not valid JSON: " + e.getOriginalMessage(), e);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + origin, e);
        }
    }

    private static List<Row> elements(JsonParser parser, String origin) throws IOException {
        List<Row> rows = new ArrayList<>();
        for (JsonToken token = parser.nextToken(); token != JsonToken.END_ARRAY; token = parser.nextToken()) {
            if (token == null) {
                throw new IllegalArgumentException(origin + ": the array of records is not closed");
            }
            int line = parser.currentTokenLocation().getLineNr();
            rows.add(new Row(line, TREES.readTree(parser)));
        }
        return rows;
    }
}
