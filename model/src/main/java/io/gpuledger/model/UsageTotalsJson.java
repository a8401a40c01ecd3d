package io.gpuledger.model;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.SerializerProvider;
import io.gpuledger.model.UsageTotals.Sum;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

/**
 * {@link UsageTotals} in JSON, figure by figure from its tables: {@code samples}, each {@link Sum},
 * each kept reading's {@link Mean} (its weighted sum, seconds and value), then the figures derived
 * from them. Databind writes every other field of the records that hold totals.
 */
final class UsageTotalsJson {

    private static final Sum[] SUM_ORDER = Sum.values();
    private static final Map<String, Sum> SUMS = new HashMap<>();
    private static final Map<String, Reading> MEANS = new HashMap<>();

    static {
        for (Sum sum : SUM_ORDER) {
            SUMS.put(sum.wireName(), sum);
        }
        for (Reading reading : Reading.KEPT) {
            MEANS.put(reading.wireName(), reading);
        }
    }

    private UsageTotalsJson() {
    }

    static void write(JsonGenerator out, UsageTotals totals) throws IOException {
        out.writeStartObject();
        out.writeNumberField("samples", totals.samples());
        for (Sum sum : SUM_ORDER) {
            out.writeNumberField(sum.wireName(), totals.sum(sum));
        }
        for (Reading reading : Reading.KEPT) {
            Mean mean = totals.mean(reading);
            out.writeObjectFieldStart(reading.wireName());
            out.writeNumberField("weightedSum", mean.weightedSum());
            out.writeNumberField("seconds", mean.seconds());
            Double value = mean.value();
            if (value == null) {
                out.writeNullField("value");
            } else {
                out.writeNumberField("value", value);
            }
            out.writeEndObject();
        }
        out.writeNumberField("activityUnknownSeconds", totals.activityUnknownSeconds());
        out.writeNumberField("sharedGpuSeconds", totals.sharedGpuSeconds());
        out.writeNumberField("costPerGpuHour", totals.costPerGpuHour());
        out.writeNumberField("idleCostPerGpuHour", totals.idleCostPerGpuHour());
        out.writeEndObject();
    }

    static final class Writer extends JsonSerializer<UsageTotals> {
        @Override
        public void serialize(UsageTotals totals, JsonGenerator out, SerializerProvider provider) throws IOException {
            write(out, totals);
        }
    }

    /**
     * Reads what {@link #write} writes. A figure left out or null is 0 (totals written before it
     * existed); the derived figures and unknown fields are skipped.
     */
    static final class Reader extends JsonDeserializer<UsageTotals> {
        @Override
        public UsageTotals deserialize(JsonParser in, DeserializationContext context) throws IOException {
            String first;
            if (in.isExpectedStartObjectToken()) {
                first = in.nextFieldName();
            } else if (in.currentToken() == JsonToken.FIELD_NAME) {
                first = in.currentName(); // a parser databind buffered past the object's start
            } else {
                return (UsageTotals) context.handleUnexpectedToken(UsageTotals.class, in);
            }
            UsageTotals.Builder totals = UsageTotals.builder();
            for (String name = first; name != null; name = in.nextFieldName()) {
                JsonToken value = in.nextToken();
                Sum sum = SUMS.get(name);
                Reading reading = MEANS.get(name);
                if (value == JsonToken.VALUE_NULL) {
                    continue;
                } else if (name.equals("samples")) {
                    totals.samples(context.readValue(in, long.class));
                } else if (sum != null) {
                    totals.sum(sum, context.readValue(in, double.class));
                } else if (reading != null) {
                    totals.mean(reading, context.readValue(in, Mean.class));
                } else {
                    in.skipChildren();
                }
            }
            return totals.build();
        }
    }
}
