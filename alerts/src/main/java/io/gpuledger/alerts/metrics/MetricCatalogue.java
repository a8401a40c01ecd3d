package io.gpuledger.alerts.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import java.util.regex.Pattern;

/**
 * The metric catalogue ({@code catalogue.tsv} beside this class): name, type, unit, labels and
 * help of every family the service exports. Meters are only registered through it, with exactly
 * its labels, so code and catalogue cannot drift; the docs table is generated from it.
 */
public final class MetricCatalogue {

    static final String RESOURCE = "catalogue.tsv";
    private static final Pattern NAME = Pattern.compile("gpuledger_[a-z0-9]+(_[a-z0-9]+)*");
    private static final Pattern LABEL = Pattern.compile("[a-z][a-z0-9_]*");

    public enum Type {
        GAUGE, COUNTER
    }

    /** One family: what a scraper sees under {@code name}. */
    public record Family(String name, Type type, String unit, List<String> labels, String help) {

        /**
         * A gauge of this family with {@code tags} (exactly the family's labels), reading {@code fn} of {@code obj}.
         */
        public <T> Gauge gauge(MeterRegistry registry, Tags tags, T obj, ToDoubleFunction<T> fn) {
            expect(Type.GAUGE, tags);
            return Gauge.builder(name, obj, fn).description(help).tags(tags).strongReference(true).register(registry);
        }

        /**
         * A counter of this family; Micrometer's Prometheus naming adds the {@code _total} that the catalogue shows.
         */
        public Counter counter(MeterRegistry registry, Tags tags) {
            expect(Type.COUNTER, tags);
            return Counter.builder(meterName()).description(help).tags(tags).register(registry);
        }

        /** A counter of this family whose count another part keeps, read by {@code fn} at each scrape. */
        public <T> FunctionCounter functionCounter(MeterRegistry registry, Tags tags, T obj, ToDoubleFunction<T> fn) {
            expect(Type.COUNTER, tags);
            return FunctionCounter.builder(meterName(), obj, fn).description(help).tags(tags).register(registry);
        }

        /** The name Micrometer knows the family by. */
        public String meterName() {
            return type == Type.COUNTER ? name.substring(0, name.length() - "_total".length()) : name;
        }

        private void expect(Type wanted, Tags tags) {
            if (type != wanted) {
                throw new IllegalArgumentException(name + " is a " + type + " in the catalogue, not a " + wanted);
            }
            List<String> keys = new ArrayList<>();
            for (Tag tag : tags) {
                keys.add(tag.getKey());
            }
            if (!keys.equals(labels.stream().sorted().toList())) {
                throw new IllegalArgumentException(name + " has labels " + labels + " in the catalogue, not " + keys);
            }
        }
    }

    private static final MetricCatalogue SHIPPED = load();

    private final Map<String, Family> families;

    private MetricCatalogue(Map<String, Family> families) {
        this.families = Collections.unmodifiableMap(families);
    }

    /** The catalogue shipped with the service. */
    public static MetricCatalogue shipped() {
        return SHIPPED;
    }

    /** @throws IllegalArgumentException when {@code name} is not in the catalogue */
    public Family family(String name) {
        Family family = families.get(name);
        if (family == null) {
            throw new IllegalArgumentException("metric " + name + " is not in the metric catalogue (" + RESOURCE + ")");
        }
        return family;
    }

    public List<Family> families() {
        return List.copyOf(families.values());
    }

    /** The Markdown table of {@code docs/metrics.md}, one row per family in catalogue order. */
    public String markdownTable() {
        StringBuilder table = new StringBuilder("| name | type | unit | labels | help |\n|---|---|---|---|---|\n");
        for (Family family : families.values()) {
            String labels = family.labels().isEmpty() ? "—"
                    : String.join(", ", family.labels().stream().map(label -> "`" + label + "`").toList());
            table.append("| `").append(family.name()).append("` | ").append(family.type().name().toLowerCase())
                    .append(" | ").append(family.unit()).append(" | ").append(labels).append(" | ")
                    .append(family.help()).append(" |\n");
        }
        return table.toString();
    }

    static MetricCatalogue load() {
        try (InputStream in = MetricCatalogue.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(RESOURCE + " is missing from the class path");
            }
            return parse(new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8)).lines().toList());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static MetricCatalogue parse(List<String> lines) {
        Map<String, Family> families = new LinkedHashMap<>();
        boolean header = true;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            if (header) {
                header = false;
                continue;
            }
            Family family = row(line, i + 1);
            if (families.put(family.name(), family) != null) {
                throw new IllegalArgumentException(RESOURCE + " line " + (i + 1) + ": " + family.name() + " twice");
            }
        }
        return new MetricCatalogue(families);
    }

    private static Family row(String line, int number) {
        String[] cells = line.split("\t", -1);
        String where = RESOURCE + " line " + number + ": ";
        if (cells.length != 5) {
            throw new IllegalArgumentException(where + "expected 5 tab-separated cells, found " + cells.length);
        }
        String name = cells[0];
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException(where + "'" + name + "' is not a gpuledger_ snake_case name");
        }
        Type type = Type.valueOf(cells[1].toUpperCase());
        if ((type == Type.COUNTER) != name.endsWith("_total")) {
            throw new IllegalArgumentException(where + name + ": counters, and only counters, end in _total");
        }
        if (cells[2].equals("ratio") != name.endsWith("_ratio")) {
            throw new IllegalArgumentException(where + name + ": ratios, and only ratios, end in _ratio");
        }
        List<String> labels = cells[3].equals("-") ? List.of() : List.of(cells[3].split(","));
        for (String label : labels) {
            if (!LABEL.matcher(label).matches()) {
                throw new IllegalArgumentException(where + name + ": label '" + label + "' is not snake_case");
            }
        }
        if (cells[4].isBlank()) {
            throw new IllegalArgumentException(where + name + " has no help text");
        }
        return new Family(name, type, cells[2], labels, cells[4]);
    }
}
