package io.gpuledger.alerts.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuledger.model.Reading;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The catalogue, the code that registers meters and the docs name the same families. */
class MetricCatalogueTest {

    private static final Path DOCS = Path.of("..", "docs", "metrics.md");
    private static final Path SOURCES = Path.of("src", "main", "java");
    private static final String START = "<!-- catalogue:start -->";
    private static final String END = "<!-- catalogue:end -->";
    private static final Pattern FAMILY_LITERAL = Pattern.compile("\"(gpuledger_[a-z0-9_]+)\"");

    @Test
    void shouldDocumentEveryFamilyExactlyAsTheCatalogueSaysIt() throws IOException {
        // Given the table in docs/metrics.md between its markers
        String docs = Files.readString(DOCS, StandardCharsets.UTF_8);
        int start = docs.indexOf(START);
        int end = docs.indexOf(END);
        assertThat(start).as("docs/metrics.md has the %s marker", START).isNotNegative();
        assertThat(end).as("docs/metrics.md has the %s marker", END).isGreaterThan(start);

        // Then it is the table generated from the catalogue (paste the expected text into the docs when this fails)
        assertThat(docs.substring(start + START.length(), end).strip())
                .isEqualTo(MetricCatalogue.shipped().markdownTable().strip());
    }

    @Test
    void shouldNameOnlyCatalogueFamiliesInTheCodeAndUseEveryOne() throws IOException {
        // Given every family name the service's code spells, and the readings' gauges it exports
        Set<String> named = new TreeSet<>();
        for (Reading reading : Reading.values()) {
            if (reading.gpuGauge() != null) {
                named.add(reading.gpuGauge());
            }
        }
        try (Stream<Path> files = Files.walk(SOURCES)) {
            for (Path file : files.filter(path -> path.toString().endsWith(".java")).toList()) {
                Matcher matcher = FAMILY_LITERAL.matcher(Files.readString(file, StandardCharsets.UTF_8));
                while (matcher.find()) {
                    named.add(matcher.group(1));
                }
            }
        }
        Set<String> catalogued = new TreeSet<>();
        MetricCatalogue.shipped().families().forEach(family -> catalogued.add(family.name()));

        // Then code and catalogue name the same families
        assertThat(named).isEqualTo(catalogued);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "gpuledger_x_seconds\tcounter\tseconds\t-\thelp | counters, and only counters, end in _total",
            "gpuledger_x_total\tgauge\tthings\t-\thelp | counters, and only counters, end in _total",
            "gpuledger_x\tgauge\tratio\t-\thelp | ratios, and only ratios, end in _ratio",
            "gpuledger_x_ratio\tgauge\tpercent\t-\thelp | ratios, and only ratios, end in _ratio",
            "gpuledger_X\tgauge\tthings\t-\thelp | is not a gpuledger_ snake_case name",
            "other_x\tgauge\tthings\t-\thelp | is not a gpuledger_ snake_case name",
            "gpuledger_x\tgauge\tthings\tgpuUuid\thelp | is not snake_case",
            "'gpuledger_x\tgauge\tthings\t-\t  ' | has no help text",
            "gpuledger_x\tgauge\tthings\t- | expected 5 tab-separated cells"})
    void shouldRefuseAnEntryThatBreaksPrometheusConventions(String row, String problem) {
        // Given a catalogue with one faulty row; When it is read; Then the row's problem is named
        List<String> lines = List.of("name\ttype\tunit\tlabels\thelp", row.replace("\\t", "\t"));
        assertThatThrownBy(() -> MetricCatalogue.parse(lines)).hasMessageContaining(problem);
    }

    @Test
    void shouldRegisterOnlyWithTheCataloguedLabelsAndType() {
        // Given the catalogue's per-team cost gauge (labels team, currency)
        MetricCatalogue.Family family = MetricCatalogue.shipped().family("gpuledger_team_cost_per_hour");
        SimpleMeterRegistry registry = new SimpleMeterRegistry();

        // Then a gauge with other labels, or a counter, is refused, and the right gauge registers
        assertThatThrownBy(() -> family.gauge(registry, Tags.of("team", "a"), new Cell(), Cell::get))
                .hasMessageContaining("labels");
        assertThatThrownBy(() -> family.counter(registry, Tags.of("team", "a", "currency", "USD")))
                .hasMessageContaining("is a GAUGE");
        assertThat(family.gauge(registry, Tags.of("currency", "USD", "team", "a"), new Cell(), Cell::get).getId()
                .getName()).isEqualTo("gpuledger_team_cost_per_hour");
        assertThatThrownBy(() -> MetricCatalogue.shipped().family("gpuledger_made_up"))
                .hasMessageContaining("not in the metric catalogue");
    }
}
