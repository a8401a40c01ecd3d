package io.gpuledger.ingest.agent.collect;

import io.gpuledger.model.Reading;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the output of {@code nvidia-smi --query-gpu=... --format=csv[,noheader][,nounits]}. With a
 * header line, columns are found by name (units in brackets are ignored); without one, the field
 * list of the {@code --query-gpu} option is used. Values may carry units ({@code 35 %},
 * {@code 1234 MiB}, {@code 56.78 W}) or not; {@code [N/A]}, {@code [Not Supported]} and other
 * bracketed answers mean "no reading".
 */
public final class NvidiaSmiCsv {

    /**
     * The query the agent runs by default: every field it maps, no header, no units; {@code memory.total} is no
     * reading of the sample, but what a split by memory divides by.
     */
    public static final List<String> DEFAULT_FIELDS = List.of("index", "uuid", "name", "utilization.gpu",
            "memory.used", "memory.total", "power.draw", "power.limit");

    private static final Pattern QUERY = Pattern.compile("--query-gpu[= ]([A-Za-z0-9_.,]+)");
    private static final Pattern NUMBER = Pattern.compile("^[-+]?[0-9]*\\.?[0-9]+(?:[eE][-+]?[0-9]+)?");

    /** Rows that were read, and one message per row or value that could not be. */
    public record Result(List<GpuReading> readings, List<String> errors) {
    }

    private NvidiaSmiCsv() {
    }

    /** The {@code --query-gpu} fields named in a command line, or the defaults when it names none. */
    public static List<String> fieldsOf(String command) {
        Matcher matcher = QUERY.matcher(command == null ? "" : command);
        if (!matcher.find()) {
            return DEFAULT_FIELDS;
        }
        return Arrays.stream(matcher.group(1).split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
    }

    public static Result parse(String output, List<String> queriedFields) {
        List<GpuReading> readings = new ArrayList<>();
        List<String> errors = new ArrayList<>();
        LineReader reader = new LineReader(queriedFields);
        for (String line : output.split("\r?\n")) {
            reader.line(line, errors).ifPresent(readings::add);
        }
        return new Result(readings, errors);
    }

    /**
     * Reads a stream of nvidia-smi CSV line by line, as {@code nvidia-smi -l} prints it: a header
     * line (when there is one) before each block of rows, one row per GPU.
     */
    public static final class LineReader {
        private final List<String> queriedFields;
        private List<String> fields;
        private long lineNumber;

        public LineReader(List<String> queriedFields) {
            this.queriedFields = queriedFields;
        }

        /**
         * The reading of a data line; empty for a header or blank line, or one that cannot be read (then in errors).
         */
        public Optional<GpuReading> line(String rawLine, List<String> errors) {
            lineNumber++;
            String line = rawLine.strip();
            if (line.isEmpty()) {
                return Optional.empty();
            }
            List<String> cells = Arrays.stream(line.split(",", -1)).map(String::strip).toList();
            if (isHeader(cells)) {
                fields = cells.stream().map(NvidiaSmiCsv::fieldName).toList();
                return Optional.empty();
            }
            List<String> names = fields != null ? fields : queriedFields.stream().map(NvidiaSmiCsv::fieldName).toList();
            String where = "nvidia-smi line " + lineNumber;
            if (cells.size() != names.size()) {
                errors.add(where + ": " + cells.size() + " values for " + names.size() + " fields " + names);
                return Optional.empty();
            }
            Map<String, String> row = new HashMap<>();
            for (int c = 0; c < names.size(); c++) {
                row.put(names.get(c), cells.get(c));
            }
            try {
                return Optional.of(reading(row, where, errors));
            } catch (IllegalArgumentException e) {
                errors.add(e.getMessage());
                return Optional.empty();
            }
        }
    }

    private static GpuReading reading(Map<String, String> row, String where, List<String> errors) {
        String uuid = text(first(row, "uuid", "gpu_uuid"));
        if (uuid == null) {
            throw new IllegalArgumentException(where + ": no GPU UUID (query uuid, it identifies the GPU)");
        }
        Double index = number(first(row, "index", "count"), where, "index", errors);
        Double utilization = number(first(row, "utilization.gpu"), where, "utilization.gpu", errors);
        Double memoryMib = number(first(row, "memory.used"), where, "memory.used", errors);
        Double totalMib = number(first(row, "memory.total"), where, "memory.total", errors);
        Double power = number(first(row, "power.draw", "power.draw.instant", "power.draw.average"), where,
                "power.draw", errors);
        return GpuReading.builder(uuid).index(index == null ? null : index.intValue())
                .model(text(first(row, "name", "gpu_name")))
                .value(Reading.GPU_UTILIZATION, percent(utilization))
                .value(Reading.POWER_WATTS, power)
                .value(Reading.MEMORY_USED_BYTES, memoryMib == null ? null : memoryMib * 1024 * 1024)
                .value(Reading.POWER_LIMIT_WATTS, number(first(row, "power.limit"), where, "power.limit", errors))
                .memoryTotalBytes(totalMib == null ? null : totalMib * 1024 * 1024)
                .build();
    }

    /** A header names fields: its cells are not numbers or UUIDs, and include one we know. */
    private static boolean isHeader(List<String> cells) {
        return cells.stream().map(NvidiaSmiCsv::fieldName)
                .anyMatch(name -> name.equals("uuid") || name.equals("gpu_uuid") || name.equals("index")
                        || name.equals("name") || name.startsWith("utilization.") || name.startsWith("memory."));
    }

    /** {@code utilization.gpu [%]} becomes {@code utilization.gpu}. */
    private static String fieldName(String cell) {
        int bracket = cell.indexOf('[');
        return (bracket < 0 ? cell : cell.substring(0, bracket)).strip().toLowerCase(Locale.ROOT);
    }

    private static String first(Map<String, String> row, String... names) {
        for (String name : names) {
            if (row.containsKey(name)) {
                return row.get(name);
            }
        }
        return null;
    }

    private static String text(String value) {
        return value == null || value.isEmpty() || isNoReading(value) ? null : value;
    }

    /** nvidia-smi's bracketed answers: [N/A], [Not Supported], [Unknown Error], [Insufficient Permissions]… */
    private static boolean isNoReading(String value) {
        return value.startsWith("[") && value.endsWith("]");
    }

    private static Double number(String value, String where, String field, List<String> errors) {
        if (value == null || value.isEmpty() || isNoReading(value)) {
            return null;
        }
        Matcher matcher = NUMBER.matcher(value);
        if (!matcher.find()) {
            errors.add(where + ": " + field + " '" + value + "' is not a number; left out");
            return null;
        }
        return Double.parseDouble(matcher.group());
    }

    private static Double percent(Double value) {
        return value == null ? null : Math.max(0, Math.min(1, value / 100));
    }
}
