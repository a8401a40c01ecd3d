package io.gpuledger.ingest.prom;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A reader of the Prometheus text exposition format (version 0.0.4), as dcgm-exporter and the
 * alert service serve it: comment and blank lines are skipped, each other line is one sample.
 * A line that cannot be read is collected in {@link Scrape#errors()} rather than failing the scrape.
 */
public final class PrometheusText {

    /** One sample line: metric name, labels in their order, value (NaN and ±Inf allowed). */
    public record Sample(String name, Map<String, String> labels, double value) {

        public String label(String name) {
            return labels.get(name);
        }
    }

    /** Every sample of a scrape, and the lines that could not be read ("line N: why"). */
    public record Scrape(List<Sample> samples, List<String> errors) {

        public List<Sample> family(String name) {
            return samples.stream().filter(sample -> sample.name().equals(name)).toList();
        }
    }

    private PrometheusText() {
    }

    public static Scrape parse(String text) {
        List<Sample> samples = new ArrayList<>();
        List<String> errors = new ArrayList<>();
        String[] lines = text.split("\r?\n");
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i].strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            try {
                samples.add(parseLine(line));
            } catch (RuntimeException e) {
                errors.add("line " + (i + 1) + ": " + e.getMessage());
            }
        }
        return new Scrape(Collections.unmodifiableList(samples), Collections.unmodifiableList(errors));
    }

    static Sample parseLine(String line) {
        int nameEnd = 0;
        while (nameEnd < line.length() && isNameChar(line.charAt(nameEnd))) {
            nameEnd++;
        }
        if (nameEnd == 0) {
            throw new IllegalArgumentException("no metric name in '" + abbreviate(line) + "'");
        }
        String name = line.substring(0, nameEnd);
        Map<String, String> labels = new LinkedHashMap<>();
        int i = nameEnd;
        if (i < line.length() && line.charAt(i) == '{') {
            i = parseLabels(line, i + 1, labels);
        }
        String[] rest = line.substring(i).strip().split("\\s+");
        if (rest.length == 0 || rest[0].isEmpty()) {
            throw new IllegalArgumentException("no value for " + name);
        }
        return new Sample(name, Collections.unmodifiableMap(labels), parseValue(rest[0]));
    }

    /** Reads {@code name="value",...}} from {@code start}; returns the index after the closing brace. */
    private static int parseLabels(String line, int start, Map<String, String> labels) {
        int i = start;
        while (true) {
            while (i < line.length() && (line.charAt(i) == ' ' || line.charAt(i) == ',')) {
                i++;
            }
            if (i >= line.length()) {
                throw new IllegalArgumentException("unterminated label set");
            }
            if (line.charAt(i) == '}') {
                return i + 1;
            }
            int equals = line.indexOf('=', i);
            if (equals < 0 || equals + 1 >= line.length() || line.charAt(equals + 1) != '"') {
                throw new IllegalArgumentException("malformed label at column " + (i + 1));
            }
            String labelName = line.substring(i, equals).strip();
            StringBuilder value = new StringBuilder();
            int j = equals + 2;
            for (; j < line.length() && line.charAt(j) != '"'; j++) {
                char c = line.charAt(j);
                if (c == '\\' && j + 1 < line.length()) {
                    char escaped = line.charAt(++j);
                    value.append(escaped == 'n' ? '\n' : escaped);
                } else {
                    value.append(c);
                }
            }
            if (j >= line.length()) {
                throw new IllegalArgumentException("unterminated value of label " + labelName);
            }
            labels.put(labelName, value.toString());
            i = j + 1;
        }
    }

    private static double parseValue(String text) {
        switch (text) {
            case "NaN":
                return Double.NaN;
            case "+Inf":
            case "Inf":
                return Double.POSITIVE_INFINITY;
            case "-Inf":
                return Double.NEGATIVE_INFINITY;
            default:
                try {
                    return Double.parseDouble(text);
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("value '" + abbreviate(text) + "' is not a number");
                }
        }
    }

    private static boolean isNameChar(char c) {
        return Character.isLetterOrDigit(c) || c == '_' || c == ':';
    }

    private static String abbreviate(String text) {
        return text.length() <= 60 ? text : text.substring(0, 57) + "...";
    }
}
