package io.gpuledger.ingest.price;

import io.gpuledger.model.InvalidRecordException;
import io.gpuledger.model.PriceQuote;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Which GPUs an instance type carries. Price feeds such as AWS spot price history and Azure
 * retail prices name only the instance type, while a quote must say how many GPUs the price
 * buys; this table answers that, and a type missing from it cannot be priced per GPU.
 *
 * <p>Instance types are matched without regard to case: providers are not consistent in it
 * (Azure's {@code armSkuName} and the names its other APIs use differ in capitals).
 */
public final class InstanceTypes {

    /**
     * The project's one table of instance types, shipped in the contract's module (the alert
     * service reads it too); its comments say where the figures come from.
     */
    public static final String DEFAULT_RESOURCE = "/io/gpuledger/model/instance-types.csv";

    private static final List<String> COLUMNS = List.of("provider", "instance_type", "gpu_model");
    /** The column of the GPU count: the shipped table's name for it, or the one tables given by hand may use. */
    private static final List<String> COUNT_COLUMNS = List.of("gpus_per_instance", "gpu_count");

    /** The GPUs of one instance. */
    public record Gpus(String model, int count) {
    }

    private final Map<String, Gpus> byType;
    private final List<String> errors;

    private InstanceTypes(Map<String, Gpus> byType, List<String> errors) {
        this.byType = Map.copyOf(byType);
        this.errors = List.copyOf(errors);
    }

    public static InstanceTypes empty() {
        return new InstanceTypes(Map.of(), List.of());
    }

    /** What the quotes of a catalog say about the GPUs of their instance types. */
    public static InstanceTypes of(Collection<PriceQuote> quotes) {
        Map<String, Gpus> byType = new HashMap<>();
        for (PriceQuote quote : quotes) {
            byType.put(key(quote.provider(), quote.instanceType()), new Gpus(quote.gpuModel(), quote.gpuCount()));
        }
        return new InstanceTypes(byType, List.of());
    }

    /** The shipped table and the shipped catalog's rows. */
    public static InstanceTypes defaults() {
        try (InputStream in = InstanceTypes.class.getResourceAsStream(DEFAULT_RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("default instance-type table " + DEFAULT_RESOURCE
                        + " is not on the classpath");
            }
            InstanceTypes table = parse(new String(in.readAllBytes(), StandardCharsets.UTF_8), DEFAULT_RESOURCE);
            return of(PriceCatalog.loadDefault().quotes()).with(table);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Reads a table with the columns {@code provider,instance_type,gpu_model} and the GPU count as
     * {@code gpus_per_instance} or {@code gpu_count}, and any others (the shipped table's
     * {@code network_gbps}); bad rows are reported in {@link #errors()} by line and left out.
     *
     * @throws IllegalArgumentException when the header lacks a column
     */
    public static InstanceTypes parse(String csv, String origin) {
        Map<String, Gpus> byType = new HashMap<>();
        List<String> errors = new ArrayList<>();
        Csv.Header header = null;
        String countColumn = null;
        for (Csv.Line line : Csv.lines(csv)) {
            if (header == null) {
                header = Csv.Header.of(line.cells());
                List<String> missing = new ArrayList<>(header.missing(COLUMNS));
                countColumn = COUNT_COLUMNS.stream().filter(header.positions()::containsKey).findFirst().orElse(null);
                if (countColumn == null) {
                    missing.add(String.join(" or ", COUNT_COLUMNS));
                }
                if (!missing.isEmpty()) {
                    throw new IllegalArgumentException(origin + ": header lacks column(s) " + missing);
                }
                continue;
            }
            try {
                String provider = line.cell(header, "provider")
                        .orElseThrow(() -> new InvalidRecordException("provider", "is required"));
                String type = line.cell(header, "instance_type")
                        .orElseThrow(() -> new InvalidRecordException("instance_type", "is required"));
                String column = countColumn;
                String count = line.cell(header, column)
                        .orElseThrow(() -> new InvalidRecordException(column, "is required"));
                byType.put(key(provider, type), new Gpus(line.cell(header, "gpu_model").orElse(null),
                        positiveWholeNumber(column, count)));
            } catch (InvalidRecordException e) {
                errors.add(origin + " line " + line.number() + ": " + e.getMessage());
            }
        }
        return new InstanceTypes(byType, errors);
    }

    /** This table with the entries of {@code more}, which win where both name a type. */
    public InstanceTypes with(InstanceTypes more) {
        Map<String, Gpus> merged = new HashMap<>(byType);
        merged.putAll(more.byType);
        List<String> allErrors = new ArrayList<>(errors);
        allErrors.addAll(more.errors);
        return new InstanceTypes(merged, allErrors);
    }

    public Optional<Gpus> find(String provider, String instanceType) {
        return Optional.ofNullable(byType.get(key(provider, instanceType)));
    }

    /** One message per row of a parsed table that was left out, naming the line and the field. */
    public List<String> errors() {
        return errors;
    }

    /** The number of a GPU count such as {@code 8} or SkyPilot's {@code 8.0}; a share of one GPU is not a count. */
    public static int positiveWholeNumber(String field, String text) {
        double value;
        try {
            value = Double.parseDouble(text);
        } catch (NumberFormatException e) {
            throw new InvalidRecordException(field, "is not a number: '" + text + "'");
        }
        if (value != Math.rint(value) || value < 1 || value > 1024) {
            throw new InvalidRecordException(field, "must be a whole number of GPUs, was '" + text + "'");
        }
        return (int) value;
    }

    private static String key(String provider, String instanceType) {
        return provider.toLowerCase(Locale.ROOT) + '|' + instanceType.toLowerCase(Locale.ROOT);
    }
}
