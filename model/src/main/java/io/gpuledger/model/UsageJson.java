package io.gpuledger.model;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.stream.IntStream;

/**
 * Writes {@link GpuUsage} and {@link UsageRollup} as JSON field by field: the same document as
 * {@link Json#write} makes of them (a test compares the two), without databind's reflection, for
 * the cost engine, which writes tens of thousands of them a second.
 */
public final class UsageJson {

    /** "0.0" to "3600.0": whole seconds of up to an hour. */
    private static final String[] WHOLE_NUMBERS = IntStream.rangeClosed(0, 3600).mapToObj(whole -> whole + ".0")
            .toArray(String[]::new);

    /** Null: usage is written here; else, in the benchmark that weighs this class, by databind. */
    private static final ObjectMapper INSTEAD = Json.instead("gpuledger.compare.usage");

    private UsageJson() {
    }

    public static byte[] write(GpuUsage usage) {
        if (INSTEAD != null) {
            return databind(usage);
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(1024);
        try (JsonGenerator out = Json.MAPPER.getFactory().createGenerator(bytes)) {
            out.writeStartObject();
            out.writeStringField("gpuUuid", usage.gpuUuid());
            out.writeNumberField("gpuIndex", usage.gpuIndex());
            out.writeStringField("gpuModel", usage.gpuModel());
            Placement placement = usage.placement();
            out.writeStringField("host", placement.host());
            out.writeStringField("instanceId", placement.instanceId());
            out.writeStringField("instanceType", placement.instanceType());
            out.writeStringField("provider", placement.provider());
            out.writeStringField("region", placement.region());
            out.writeStringField("lifecycle", placement.lifecycle().wire());
            out.writeStringField("jobId", usage.jobId());
            out.writeStringField("team", usage.team());
            writeInstant(out, "windowStart", usage.windowStart());
            writeInstant(out, "windowEnd", usage.windowEnd());
            out.writeStringField("currency", usage.currency());
            writeTotals(out, usage.totals());
            out.writeBooleanField("closed", usage.closed());
            number(out, "gpuFraction", usage.gpuFraction());
            out.writeNumberField("smActive", usage.smActive());
            out.writeNumberField("costPerHour", usage.costPerHour());
            out.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write a GpuUsage as JSON", e);
        }
        return bytes.toByteArray();
    }

    public static byte[] write(UsageRollup rollup) {
        if (INSTEAD != null) {
            return databind(rollup);
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(1024);
        try (JsonGenerator out = Json.MAPPER.getFactory().createGenerator(bytes)) {
            out.writeStartObject();
            out.writeStringField("dimension", rollup.dimension().name());
            out.writeStringField("id", rollup.id());
            writeInstant(out, "windowStart", rollup.windowStart());
            writeInstant(out, "windowEnd", rollup.windowEnd());
            out.writeStringField("currency", rollup.currency());
            out.writeNumberField("gpus", rollup.gpus());
            number(out, "gpuEquivalents", rollup.gpuEquivalents());
            writeTotals(out, rollup.totals());
            out.writeNumberField("costPerHour", rollup.costPerHour());
            out.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write a UsageRollup as JSON", e);
        }
        return bytes.toByteArray();
    }

    private static byte[] databind(Object value) {
        try {
            return INSTEAD.writeValueAsBytes(value);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + value.getClass().getSimpleName() + " as JSON", e);
        }
    }

    private static void writeInstant(JsonGenerator out, String name, Instant at) throws IOException {
        out.writeStringField(name, at == null ? null : at.toString());
    }

    private static void writeTotals(JsonGenerator out, UsageTotals totals) throws IOException {
        out.writeFieldName("totals");
        UsageTotalsJson.write(out, totals);
    }

    /**
     * A double as databind writes it. Many are whole numbers of seconds (60.0, 0.0): those are
     * written from a table, which costs far less than finding the shortest digits of a double.
     */
    static void number(JsonGenerator out, String name, double value) throws IOException {
        out.writeFieldName(name);
        int whole = (int) value;
        if (whole == value && whole >= 0 && whole < WHOLE_NUMBERS.length
                && (whole > 0 || Double.doubleToRawLongBits(value) == 0L)) {
            out.writeNumber(WHOLE_NUMBERS[whole]);
        } else {
            out.writeNumber(value);
        }
    }
}
