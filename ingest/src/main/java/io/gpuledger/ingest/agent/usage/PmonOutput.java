package io.gpuledger.ingest.agent.usage;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Reads {@code nvidia-smi pmon -s um -c 1}: one row per process and GPU, or a row of dashes for a GPU with
 * none. Its columns changed with the driver (545 widened them; 550 added {@code jpg} and {@code ofa}; later
 * drivers print {@code ccpm} after {@code fb}), so they are found by the header line's names
 * ({@code # gpu pid type sm mem ... fb ... command}), never by position. The last column, the command, may
 * hold spaces. {@code -} is "no reading". A line that cannot be read is skipped and said in the errors.
 */
public final class PmonOutput {

    /** One process on one GPU. */
    public record Row(int gpuIndex, int pid, Double smRatio, Double memoryBytes) {
    }

    /** The rows read, and one message per line that could not be. */
    public record Result(List<Row> rows, List<String> errors) {
    }

    private static final double MIB = 1024.0 * 1024.0;

    private PmonOutput() {
    }

    public static Result parse(String output) {
        List<String> errors = new ArrayList<>();
        // A process printed twice (a count above 1) keeps its last sample.
        Map<String, Row> rows = new LinkedHashMap<>();
        List<String> columns = null;
        String[] lines = output.split("\r?\n");
        for (int number = 1; number <= lines.length; number++) {
            String line = lines[number - 1].strip();
            if (line.isEmpty()) {
                continue;
            }
            if (line.startsWith("#")) {
                List<String> names = Arrays.asList(line.substring(1).strip().toLowerCase(Locale.ROOT).split("\\s+"));
                if (names.contains("pid")) {
                    columns = names;
                }
                continue;
            }
            if (columns == null) {
                errors.add("pmon line " + number + ": a row before any header line, skipped");
                continue;
            }
            try {
                Row row = row(columns, line.split("\\s+"));
                if (row != null) {
                    rows.put(row.gpuIndex() + "|" + row.pid(), row);
                }
            } catch (IllegalArgumentException e) {
                errors.add("pmon line " + number + ": " + e.getMessage() + ", skipped: " + line);
            }
        }
        return new Result(List.copyOf(rows.values()), errors);
    }

    /** The process of a row; null for a GPU's row of dashes (no process). */
    private static Row row(List<String> columns, String[] cells) {
        int gpu = columns.indexOf("gpu");
        int pid = columns.indexOf("pid");
        if (gpu < 0) {
            throw new IllegalArgumentException("the header names no gpu column");
        }
        // The command, last, may hold spaces: every column before it must be there.
        int before = columns.contains("command") ? columns.size() - 1 : columns.size();
        if (cells.length < before) {
            throw new IllegalArgumentException(cells.length + " columns where the header has " + columns.size());
        }
        if (cells[pid].equals("-")) {
            return null;
        }
        return new Row(whole("gpu", cells[gpu]), whole("pid", cells[pid]),
                percentAsRatio(cell(columns, cells, "sm")), mebibytes(cell(columns, cells, "fb")));
    }

    private static String cell(List<String> columns, String[] cells, String name) {
        int at = columns.indexOf(name);
        return at < 0 ? "-" : cells[at];
    }

    private static int whole(String column, String cell) {
        try {
            int value = Integer.parseInt(cell);
            if (value < 0) {
                throw new NumberFormatException();
            }
            return value;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(column + " '" + cell + "' is not a whole number", e);
        }
    }

    private static Double percentAsRatio(String cell) {
        Double percent = number("sm", cell);
        if (percent != null && percent > 100) {
            throw new IllegalArgumentException("sm " + cell + "% is above 100%");
        }
        return percent == null ? null : percent / 100;
    }

    private static Double mebibytes(String cell) {
        Double value = number("fb", cell);
        return value == null ? null : value * MIB;
    }

    private static Double number(String column, String cell) {
        if (cell.equals("-")) {
            return null;
        }
        try {
            double value = Double.parseDouble(cell);
            if (!(value >= 0) || Double.isInfinite(value)) {
                throw new NumberFormatException();
            }
            return value;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(column + " '" + cell + "' is not a number", e);
        }
    }
}
