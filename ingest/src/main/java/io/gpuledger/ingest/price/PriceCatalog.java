package io.gpuledger.ingest.price;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpuledger.model.InvalidRecordException;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.ReservationTerms;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * A price catalog: one row per instance type, lifecycle and price version, with the same fields
 * in either of two forms. CSV has a header line ({@code #} lines are comments); JSON is an array
 * of objects keyed by the same column names. Rows that cannot be read are reported with their
 * line number and left out; the rest of the catalog still loads.
 *
 * <p>A reserved row may give what the reservation really costs: {@code upfront_fee} (paid once)
 * and {@code term}; its {@code price_per_hour} is then the recurring hourly fee (0 when all of
 * it is paid up front), and the quote carries the effective hourly rate over the term, with the
 * term and the payment option that fee and rate make (no, partial or all upfront). A term alone
 * is carried as the term, its payment not known.
 *
 * <p>A spot row may give {@code interruption_frequency}: the share of instances the provider
 * reports taken back in a month, as AWS's Spot Instance Advisor prints its bands ({@code <5%},
 * {@code 5-10%}, {@code 10-15%}, {@code 15-20%}, {@code >20%}) or as a figure ({@code 7%},
 * {@code 0.07}). The quote carries both edges of a band, the open {@code >20%} as 20% to 100%: a
 * move to spot is judged on the worst the band allows and shows what the rest of it would save.
 */
public final class PriceCatalog {

    /** The catalog shipped with GPU Ledger; its comments say where each figure comes from. */
    public static final String DEFAULT_RESOURCE = "/io/gpuledger/ingest/price/default-catalog.csv";

    static final List<String> COLUMNS = List.of("provider", "region", "instance_type", "gpu_model", "gpu_count",
            "lifecycle", "price_per_hour", "currency", "valid_from", "source", "upfront_fee", "term",
            "interruption_frequency");

    private static final List<String> OPTIONAL = List.of("gpu_model", "source", "upfront_fee", "term",
            "interruption_frequency");

    /** AWS Spot Instance Advisor's bands of the share of instances interrupted in a month: lower and upper edge. */
    private static final Map<String, double[]> INTERRUPTION_BANDS = Map.of("<5%", new double[] {0, 0.05},
            "5-10%", new double[] {0.05, 0.10}, "10-15%", new double[] {0.10, 0.15},
            "15-20%", new double[] {0.15, 0.20}, ">20%", new double[] {0.20, 1.0});

    private final List<PriceQuote> quotes;
    private final List<String> errors;

    private PriceCatalog(List<PriceQuote> quotes, List<String> errors) {
        this.quotes = List.copyOf(quotes);
        this.errors = List.copyOf(errors);
    }

    public static PriceCatalog loadDefault() {
        try (InputStream in = PriceCatalog.class.getResourceAsStream(DEFAULT_RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("default price catalog " + DEFAULT_RESOURCE
                        + " is not on the classpath");
            }
            return parse(in, DEFAULT_RESOURCE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static PriceCatalog load(Path file) {
        try {
            return parse(Files.readString(file, StandardCharsets.UTF_8), file.toString());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read price catalog " + file, e);
        }
    }

    /** Reads a CSV catalog. */
    static PriceCatalog parse(InputStream in, String origin) throws IOException {
        return parseCsv(new String(in.readAllBytes(), StandardCharsets.UTF_8), origin);
    }

    /**
     * Reads a catalog in whichever form it is written: JSON when its first character opens an
     * array, CSV otherwise.
     *
     * @throws IllegalArgumentException when the text is not a catalog at all (no header, not a JSON array)
     */
    public static PriceCatalog parse(String text, String origin) {
        String start = text.stripLeading();
        if (start.startsWith("\uFEFF")) {
            start = start.substring(1).stripLeading();
        }
        return start.startsWith("[") || start.startsWith("{") ? parseJson(text, origin) : parseCsv(text, origin);
    }

    static PriceCatalog parseCsv(String text, String origin) {
        List<PriceQuote> quotes = new ArrayList<>();
        List<String> errors = new ArrayList<>();
        Csv.Header header = null;
        for (Csv.Line line : Csv.lines(text)) {
            if (header == null) {
                header = Csv.Header.of(line.cells());
                List<String> missing = header.missing(required());
                if (!missing.isEmpty()) {
                    throw new IllegalArgumentException(origin + ": header lacks column(s) " + missing);
                }
                continue;
            }
            Csv.Header columns = header;
            try {
                quotes.add(row(column -> line.cell(columns, column).orElse(null)));
            } catch (InvalidRecordException e) {
                errors.add(origin + " line " + line.number() + ": " + e.getMessage());
            }
        }
        if (header == null) {
            throw new IllegalArgumentException(origin + ": no header line; expected " + String.join(",", COLUMNS));
        }
        return new PriceCatalog(quotes, errors);
    }

    static PriceCatalog parseJson(String text, String origin) {
        List<PriceQuote> quotes = new ArrayList<>();
        List<String> errors = new ArrayList<>();
        List<JsonRows.Row> rows = JsonRows.read(text, origin, null).rows().orElseThrow(
                () -> new IllegalArgumentException(origin + ": a JSON catalog is an array of rows, one object each"));
        for (JsonRows.Row row : rows) {
            if (!row.node().isObject()) {
                errors.add(origin + " line " + row.line() + ": $: a row must be a JSON object");
                continue;
            }
            try {
                quotes.add(row(column -> jsonField(row.node(), column)));
            } catch (InvalidRecordException e) {
                errors.add(origin + " line " + row.line() + ": " + e.getMessage());
            }
        }
        return new PriceCatalog(quotes, errors);
    }

    public List<PriceQuote> quotes() {
        return quotes;
    }

    /** One message per row left out, naming the line and the field. */
    public List<String> errors() {
        return errors;
    }

    private static List<String> required() {
        return COLUMNS.stream().filter(c -> !OPTIONAL.contains(c)).toList();
    }

    private static String jsonField(JsonNode row, String column) {
        JsonNode value = row.get(column);
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isValueNode()) {
            throw new InvalidRecordException(column, "must be a single value, not " + value.getNodeType().name()
                    .toLowerCase());
        }
        String text = value.asText().trim();
        return text.isEmpty() ? null : text;
    }

    /** One row, whatever form it came in: {@code field} gives a column's text, or null when it is absent. */
    private static PriceQuote row(UnaryOperator<String> field) {
        Lifecycle lifecycle = lifecycle(field.apply("lifecycle"));
        double pricePerHour = number(field, "price_per_hour");
        String upfront = field.apply("upfront_fee");
        String term = field.apply("term");
        ReservationTerms terms = null;
        if (upfront != null) {
            if (lifecycle != Lifecycle.RESERVED) {
                throw new InvalidRecordException("upfront_fee",
                        "only a reserved row has an upfront fee, this one is " + lifecycle.wire());
            }
            double fee = number(field, "upfront_fee");
            if (fee < 0) {
                throw new InvalidRecordException("upfront_fee", "must not be negative, was " + fee);
            }
            if (pricePerHour < 0) {
                throw new InvalidRecordException("price_per_hour", "must not be negative, was " + pricePerHour);
            }
            ReservedTerm length = ReservedTerm.parse("term", term);
            terms = new ReservationTerms(length.months(), ReservationTerms.PaymentOption.of(pricePerHour, fee), fee);
            pricePerHour = length.effectiveHourly(pricePerHour, fee);
        } else if (term != null) {
            // A term alone changes no price (the row's is already the effective hourly rate), but a
            // misspelt one still deserves to be caught here.
            ReservedTerm length = ReservedTerm.parse("term", term);
            terms = lifecycle == Lifecycle.RESERVED ? ReservationTerms.ofMonths(length.months()) : null;
        }
        double[] band = interruptionBand(field, lifecycle);
        return PriceQuote.builder()
                .provider(field.apply("provider"))
                .region(field.apply("region"))
                .instanceType(field.apply("instance_type"))
                .lifecycle(lifecycle)
                .gpuModel(field.apply("gpu_model"))
                .gpuCount(wholeNumber(field, "gpu_count"))
                .pricePerHour(pricePerHour)
                .currency(field.apply("currency"))
                .validFrom(instant(field, "valid_from"))
                .source(field.apply("source"))
                .interruptionFrequency(band == null ? null : band[1])
                .interruptionFrequencyLow(band == null || band[0] == band[1] ? null : band[0])
                .reservation(terms)
                .build();
    }

    /** The band's lower and upper edge; one figure is both; null when the row gives none. */
    private static double[] interruptionBand(UnaryOperator<String> field, Lifecycle lifecycle) {
        String value = field.apply("interruption_frequency");
        if (value == null) {
            return null;
        }
        if (lifecycle != Lifecycle.SPOT) {
            throw new InvalidRecordException("interruption_frequency",
                    "only a spot row has an interruption frequency, this one is " + lifecycle.wire());
        }
        String band = value.replace(" ", "");
        double[] edges = INTERRUPTION_BANDS.get(band);
        if (edges != null) {
            return edges.clone();
        }
        try {
            double share = band.endsWith("%") ? Double.parseDouble(band.substring(0, band.length() - 1)) / 100
                    : Double.parseDouble(band);
            if (!(share >= 0 && share <= 1)) {
                throw new NumberFormatException();
            }
            return new double[] {share, share};
        } catch (NumberFormatException e) {
            throw new InvalidRecordException("interruption_frequency", "expected a band (<5%, 5-10%, 10-15%, "
                    + "15-20%, >20%) or a share of instances a month (7% or 0.07), got '" + value + "'");
        }
    }

    private static Lifecycle lifecycle(String value) {
        if (value == null) {
            throw new InvalidRecordException("lifecycle", "is required");
        }
        try {
            return Lifecycle.fromWire(value);
        } catch (IllegalArgumentException e) {
            throw new InvalidRecordException("lifecycle", e.getMessage());
        }
    }

    private static double number(UnaryOperator<String> field, String column) {
        String value = field.apply(column);
        if (value == null) {
            throw new InvalidRecordException(column, "is required");
        }
        try {
            return Double.parseDouble(value);
        } catch (NumberFormatException e) {
            throw new InvalidRecordException(column, "is not a number: '" + value + "'");
        }
    }

    private static int wholeNumber(UnaryOperator<String> field, String column) {
        double value = number(field, column);
        if (value != Math.rint(value) || Math.abs(value) > Integer.MAX_VALUE) {
            throw new InvalidRecordException(column, "must be a whole number, was '" + field.apply(column) + "'");
        }
        return (int) value;
    }

    private static Instant instant(UnaryOperator<String> field, String column) {
        String value = field.apply(column);
        if (value == null) {
            throw new InvalidRecordException(column, "is required");
        }
        try {
            return Instant.parse(value);
        } catch (DateTimeParseException e) {
            throw new InvalidRecordException(column, "is not an ISO-8601 UTC instant: '" + value + "'");
        }
    }
}
