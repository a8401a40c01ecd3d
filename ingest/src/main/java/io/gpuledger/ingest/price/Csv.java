package io.gpuledger.ingest.price;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The CSV dialect every price file here is written in: one record per line, a header line,
 * double quotes around cells that hold commas ({@code ""} inside them is a quote), blank lines
 * and {@code #} lines ignored. Line numbers are kept so that a bad row can be named.
 */
public final class Csv {

    /** One record and the line of the file it was on (from 1). */
    public record Line(int number, List<String> cells) {

        /** The trimmed cell of a column, empty when the column or the cell is missing or blank. */
        public Optional<String> cell(Header header, String column) {
            Integer index = header.positions().get(column.toLowerCase(Locale.ROOT));
            if (index == null || index >= cells.size()) {
                return Optional.empty();
            }
            String value = cells.get(index).trim();
            return value.isEmpty() ? Optional.empty() : Optional.of(value);
        }
    }

    /** Column positions by lower-cased name. */
    public record Header(Map<String, Integer> positions) {

        public static Header of(List<String> cells) {
            Map<String, Integer> positions = new HashMap<>();
            for (int i = 0; i < cells.size(); i++) {
                positions.putIfAbsent(cells.get(i).trim().toLowerCase(Locale.ROOT), i);
            }
            return new Header(Map.copyOf(positions));
        }

        public List<String> missing(List<String> required) {
            return required.stream().filter(c -> !positions.containsKey(c.toLowerCase(Locale.ROOT))).toList();
        }
    }

    private Csv() {
    }

    /** The records of a text, comments and blank lines left out. */
    public static List<Line> lines(String text) {
        List<Line> lines = new ArrayList<>();
        String[] raw = text.split("\r?\n", -1);
        for (int i = 0; i < raw.length; i++) {
            String line = raw[i];
            if (i == 0 && line.startsWith("\uFEFF")) {
                // Spreadsheet programs save UTF-8 with a byte order mark; it is not part of the header.
                line = line.substring(1);
            }
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            lines.add(new Line(i + 1, split(line)));
        }
        return lines;
    }

    /** Splits one CSV line; double quotes protect commas, and {@code ""} inside quotes is a quote. */
    public static List<String> split(String line) {
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
