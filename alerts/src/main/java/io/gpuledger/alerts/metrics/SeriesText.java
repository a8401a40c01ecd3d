package io.gpuledger.alerts.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.config.NamingConvention;
import io.prometheus.client.Collector;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.Predicate;

/** Meters in the Prometheus text format (0.0.4), written here where a registry's own scrape would hold them all. */
public final class SeriesText {

    private SeriesText() {
    }

    /**
     * {@code meters} whose exported name {@code names} takes, each family's samples together under its
     * {@code # TYPE} line, as a scrape needs them.
     */
    public static String families(List<Meter> meters, NamingConvention naming, Predicate<String> names) {
        StringBuilder text = new StringBuilder();
        families(meters, naming, names, text::append);
        return text.toString();
    }

    /**
     * As {@link #families(List, NamingConvention, Predicate)}, a family at a time to {@code out}: a large
     * fleet's text is never held whole.
     */
    public static void families(List<Meter> meters, NamingConvention naming, Predicate<String> names,
            Consumer<String> out) {
        Map<String, List<Meter>> byFamily = new TreeMap<>();
        for (Meter meter : meters) {
            String name = exportedName(meter, naming);
            if (names.test(name)) {
                byFamily.computeIfAbsent(name, family -> new ArrayList<>()).add(meter);
            }
        }
        byFamily.forEach((name, samples) -> {
            StringBuilder text = new StringBuilder("# TYPE ").append(name).append(' ')
                    .append(samples.get(0) instanceof Counter ? "counter" : "gauge").append('\n');
            for (Meter meter : samples) {
                sample(text, meter, name, naming);
            }
            out.accept(text.toString());
        });
    }

    /** One sample line of {@code meter}, when its exported name is among {@code wanted}. */
    public static void appendSample(StringBuilder text, Meter meter, NamingConvention naming, Set<String> wanted) {
        String name = exportedName(meter, naming);
        if (wanted.contains(name)) {
            sample(text, meter, name, naming);
        }
    }

    private static String exportedName(Meter meter, NamingConvention naming) {
        Meter.Id id = meter.getId();
        return naming.name(id.getName(), id.getType(), id.getBaseUnit());
    }

    /** One sample line, as the text format writes it: the exported name, labels by name, the value. */
    private static void sample(StringBuilder text, Meter meter, String name, NamingConvention naming) {
        double value = meter instanceof Counter counter ? counter.count()
                : meter instanceof Gauge gauge ? gauge.value() : Double.NaN;
        text.append(name).append('{');
        String separator = "";
        for (Tag tag : meter.getId().getConventionTags(naming)) {
            text.append(separator).append(tag.getKey()).append("=\"");
            escape(text, tag.getValue());
            text.append('"');
            separator = ",";
        }
        text.append("} ").append(Collector.doubleToGoString(value)).append('\n');
    }

    /** A label value as the text format escapes it: backslash, double quote and line feed. */
    private static void escape(StringBuilder text, String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '\\' -> text.append("\\\\");
                case '"' -> text.append("\\\"");
                case '\n' -> text.append("\\n");
                default -> text.append(c);
            }
        }
    }
}
