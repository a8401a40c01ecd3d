package io.gpuledger.ingest.price;

import io.gpuledger.model.InvalidRecordException;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.PriceQuote;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A price catalog file: one row per instance type, lifecycle and price version, as CSV with a
 * header line ({@code #} lines are comments). Rows that cannot be read are reported with their
 * line number and left out; the rest of the catalog still loads.
 */
public final class PriceCatalog {

    /** The catalog shipped with GPU Ledger; its comments say where each figure comes from. */
    public static final String DEFAULT_RESOURCE = "/io/gpuledger/ingest/price/default-catalog.csv";

    static final List<String> COLUMNS = List.of("provider", "region", "instance_type", "gpu_model", "gpu_count",
            "lifecycle", "price_per_hour", "currency", "valid_from", "source");

    private final List<PriceQuote> quotes;
    private final List<String> errors;

    private PriceCatalog(List<PriceQuote> quotes, List<String> errors) {
        this.quotes = List.copyOf(quotes);
        this.errors = List.copyOf(errors);
    }

    public static PriceCatalog loadDefault() {
        try (InputStream in = PriceCatalog.class.getResourceAsStream(DEFAULT_RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("default price catalog " + DEFAULT_RESOURCE + " is not on the classpath");
            }
            return parse(in, DEFAULT_RESOURCE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static PriceCatalog load(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            return parse(in, file.toString());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read price catalog " + file, e);
        }
    }

    static PriceCatalog parse(InputStream in, String origin) throws IOException {
        List<PriceQuote> quotes = new ArrayList<>();
        List<String> errors = new ArrayList<>();
        Map<String, Integer> header = null;
        BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
        int lineNumber = 0;
        for (String line = reader.readLine(); line != null; line = reader.readLine()) {
            lineNumber++;
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            List<String> cells = splitCsv(line);
            if (header == null) {
                header = header(cells, origin);
                continue;
            }
            try {
                quotes.add(row(header, cells));
            } catch (InvalidRecordException e) {
                errors.add(origin + " line " + lineNumber + ": " + e.getMessage());
            }
        }
        if (header == null) {
            throw new IllegalArgumentException(origin + ": no header line; expected " + String.join(",", COLUMNS));
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

    private static Map<String, Integer> header(List<String> cells, String origin) {
        Map<String, Integer> positions = new HashMap<>();
        for (int i = 0; i < cells.size(); i++) {
            positions.put(cells.get(i).trim().toLowerCase(), i);
        }
        List<String> missing = COLUMNS.stream().filter(c -> !c.equals("source") && !c.equals("gpu_model"))
                .filter(c -> !positions.containsKey(c)).toList();
        if (!missing.isEmpty()) {
            throw new IllegalArgumentException(origin + ": header lacks column(s) " + missing);
        }
        return positions;
    }

    private static PriceQuote row(Map<String, Integer> header, List<String> cells) {
        String lifecycle = cell(header, cells, "lifecycle");
        Lifecycle parsedLifecycle;
        try {
            parsedLifecycle = lifecycle == null ? null : Lifecycle.fromWire(lifecycle);
        } catch (IllegalArgumentException e) {
            throw new InvalidRecordException("lifecycle", e.getMessage());
        }
        return new PriceQuote(
                cell(header, cells, "provider"),
                cell(header, cells, "region"),
                cell(header, cells, "instance_type"),
                parsedLifecycle,
                cell(header, cells, "gpu_model"),
                (int) number(header, cells, "gpu_count"),
                number(header, cells, "price_per_hour"),
                cell(header, cells, "currency"),
                instant(header, cells, "valid_from"),
                cell(header, cells, "source"));
    }

    private static String cell(Map<String, Integer> header, List<String> cells, String column) {
        Integer index = header.get(column);
        if (index == null || index >= cells.size()) {
            return null;
        }
        String value = cells.get(index).trim();
        return value.isEmpty() ? null : value;
    }

    private static double number(Map<String, Integer> header, List<String> cells, String column) {
        String value = cell(header, cells, column);
        if (value == null) {
            throw new InvalidRecordException(column, "is required");
        }
        try {
            return Double.parseDouble(value);
        } catch (NumberFormatException e) {
            throw new InvalidRecordException(column, "is not a number: '" + value + "'");
        }
    }

    private static Instant instant(Map<String, Integer> header, List<String> cells, String column) {
        String value = cell(header, cells, column);
        if (value == null) {
            throw new InvalidRecordException(column, "is required");
        }
        try {
            return Instant.parse(value);
        } catch (DateTimeParseException e) {
            throw new InvalidRecordException(column, "is not an ISO-8601 UTC instant: '" + value + "'");
        }
    }

    /** Splits one CSV line; double quotes protect commas, and {@code ""} inside quotes is a quote. */
    static List<String> splitCsv(String line) {
        List<String> cells = new ArrayList<>();
        StringBuilder cell = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quoted) {
                if (c == '"' && i + 1 < line.length() && line.charAt(i + 1) == '"') {
                    cell.append('"');
                    i++;
                } else if (c == '"') {
                    quoted = false;
                } else {
                    cell.append(c);
                }
            } else if (c == '"') {
                quoted = true;
            } else if (c == ',') {
                cells.add(cell.toString());
                cell.setLength(0);
            } else {
                cell.append(c);
            }
        }
        cells.add(cell.toString());
        return cells;
    }
}
