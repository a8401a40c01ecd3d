package io.gpuledger.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.gpuledger.deploy.MetricSelectors.Matcher;
import io.gpuledger.deploy.MetricSelectors.Selector;
import io.gpuledger.testing.RequiredTool;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The Grafana dashboards and their provisioning, checked against the metric catalogue: a dashboard
 * that reads a metric the alert service does not export, filters on a label the metric does not
 * carry, or shows a panel without a query or a unit fails the build.
 */
class DashboardsTest {

    static final Path DASHBOARDS = RepositoryFiles.resolve("grafana/dashboards");
    static final Path DATA_SOURCES = RepositoryFiles.resolve("grafana/provisioning/datasources/prometheus.yml");
    static final Path DASHBOARD_PROVIDERS = RepositoryFiles.resolve("grafana/provisioning/dashboards/gpu-ledger.yml");
    static final Path CATALOGUE = RepositoryFiles.resolve(
            "alerts/src/main/resources/io/gpuledger/alerts/metrics/catalogue.tsv");
    /** The cost engine's own families, on its own /metrics. */
    static final Path ENGINE_CATALOGUE = RepositoryFiles.resolve(
            "streams/src/main/resources/io/gpuledger/streams/metrics/catalogue.tsv");

    /** Where docker-compose and the Kubernetes manifests mount grafana/dashboards. */
    static final String DASHBOARDS_MOUNT = "/var/lib/grafana/dashboards/gpu-ledger";

    static final Set<String> SHIPPED_UIDS = Set.of("gpu-ledger-fleet", "gpu-ledger-utilization", "gpu-ledger-jobs",
            "gpu-ledger-capacity", "gpu-ledger-recommendations", "gpu-ledger-finance");

    /** The filter variables every dashboard offers, and the label each filters on. */
    static final Map<String, String> FILTERS = orderedMap("provider", "provider", "region", "region",
            "pool", "instance_type", "team", "team", "job", "job_id");

    /**
     * The split of a shared GPU's cost among the jobs that shared it. Its team and job_id are the GPU's own (the
     * node's team, job "shared"); the job and team each part is charged to, those the filters choose, are
     * sharing_job_id and sharing_team (FleetMetrics writes them from the window's job parts).
     */
    static final String SPLIT = "gpuledger_gpu_job_cost_total";
    static final Map<String, String> SPLIT_FILTERS = orderedMap("provider", "provider", "region", "region",
            "pool", "instance_type", "team", "sharing_team", "job", "sharing_job_id");
    /**
     * A GPU's families that describe its sharing. On a shared GPU their job_id is "shared", a value $job never
     * takes ($job lists gpuledger_job_gpus), and their team is the node's: a job or team that shares the GPU finds it
     * only through the split.
     */
    static final Set<String> SHARED_GPU_FAMILIES = Set.of("gpuledger_gpu_sharing_jobs",
            "gpuledger_gpu_unallocated_cost_total");

    /**
     * The recording rules of deploy/prometheus/rules/recording.yml a dashboard may read, with the labels each keeps.
     */
    static final Map<String, Set<String>> RECORDING_RULES = Map.of(
            "gpuledger:cost_per_hour:sum", Set.of("currency"),
            "gpuledger:cost_per_hour:sum_by_provider", Set.of("provider", "currency"),
            "gpuledger:cost_per_hour:sum_by_team", Set.of("team", "currency"),
            "gpuledger:idle_cost_per_hour:sum", Set.of("currency"),
            "gpuledger:idle_cost:ratio", Set.of("currency"),
            "gpuledger:gpus:sum_by_lifecycle", Set.of("lifecycle"),
            "gpuledger:team_cost:increase1h", Set.of("team", "currency"));

    /**
     * Grafana units the dashboards use. Money is never a currency unit, since the currency is a
     * label: amounts per hour or month use a suffix ({@code suffix:/h}) and the legend names the currency.
     */
    static final Set<String> UNITS = Set.of("percentunit", "s", "joule", "watt", "short", "none", "bytes", "cps");

    /** A Grafana variable in an expression, $name or ${name}. */
    static final Pattern VARIABLE = Pattern.compile("\\$\\{?([A-Za-z_]+)}?");

    /** Anything in an expression that looks like a GPU Ledger metric or recording rule, wherever it stands. */
    static final Pattern GPULEDGER_NAME = Pattern.compile("gpuledger_[a-z0-9_]+|gpuledger:[a-z0-9_:]+");

    static final ObjectMapper JSON = new ObjectMapper();
    static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    static Stream<String> dashboards() throws IOException {
        try (Stream<Path> files = Files.list(DASHBOARDS)) {
            return files.map(file -> file.getFileName().toString()).filter(name -> name.endsWith(".json")).sorted()
                    .toList().stream();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dashboards")
    void shouldBeADashboardOfTheSupportedSchema(String file) throws IOException {
        JsonNode dashboard = read(file);

        assertThat(dashboard.path("schemaVersion").asInt()).as("schemaVersion").isEqualTo(39);
        assertThat(dashboard.path("uid").asText()).as("uid").matches("gpu-ledger-[a-z]+(-[a-z]+)*").hasSizeLessThan(41);
        assertThat(dashboard.path("title").asText()).as("title").startsWith("GPU Ledger / ");
        assertThat(dashboard.path("tags").toString()).as("tags").contains("\"gpu-ledger\"");
        List<Integer> ids = panels(dashboard).stream().map(panel -> panel.path("id").asInt(-1)).toList();
        assertThat(ids).as("panel ids").doesNotContain(-1).doesNotHaveDuplicates();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dashboards")
    void shouldOfferADataSourceAndTheFilterVariables(String file) throws IOException {
        Map<String, JsonNode> variables = new HashMap<>();
        read(file).path("templating").path("list").forEach(variable -> variables.put(variable.path("name").asText(),
                variable));

        JsonNode dataSource = variables.get("datasource");
        assertThat(dataSource).as("variable datasource").isNotNull();
        assertThat(dataSource.path("type").asText()).isEqualTo("datasource");
        assertThat(dataSource.path("query").asText()).isEqualTo("prometheus");
        for (var filter : FILTERS.entrySet()) {
            JsonNode variable = variables.get(filter.getKey());
            assertThat(variable).as("variable " + filter.getKey()).isNotNull();
            assertThat(variable.path("type").asText()).as(filter.getKey() + " type").isEqualTo("query");
            assertThat(variable.path("datasource").path("uid").asText()).as(filter.getKey() + " data source")
                    .isEqualTo("${datasource}");
            assertThat(variable.path("multi").asBoolean()).as(filter.getKey() + " multi").isTrue();
            assertThat(variable.path("includeAll").asBoolean()).as(filter.getKey() + " includeAll").isTrue();
            assertThat(variable.path("allValue").asText()).as(filter.getKey() + " allValue").isEqualTo(".*");
            String query = variable.path("query").isTextual() ? variable.path("query").asText()
                    : variable.path("query").path("query").asText();
            assertThat(query).as(filter.getKey() + " query")
                    .matches("label_values\\((gpuledger_[a-z_]+)(\\{.*})?, " + filter.getValue() + "\\)");
            String metric = query.substring("label_values(".length()).split("[{,]")[0];
            assertThat(catalogue()).as(filter.getKey() + " reads a catalogue family").containsKey(metric);
            assertThat(catalogue().get(metric)).as(filter.getKey() + " reads a family labelled " + filter.getValue())
                    .contains(filter.getValue());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dashboards")
    void shouldGiveEveryPanelAQueryAndAUnit(String file) throws IOException {
        List<String> problems = new ArrayList<>();
        for (JsonNode panel : panels(read(file))) {
            String title = panel.path("title").asText();
            if (!panel.path("datasource").path("uid").asText().equals("${datasource}")) {
                problems.add(title + ": data source is not ${datasource}");
            }
            List<String> exprs = new ArrayList<>();
            for (JsonNode target : panel.path("targets")) {
                if (!target.path("expr").asText().isBlank()) {
                    exprs.add(target.path("expr").asText());
                }
                if (!target.path("datasource").path("uid").asText().equals("${datasource}")) {
                    problems.add(title + ": a query's data source is not ${datasource}");
                }
            }
            if (exprs.isEmpty()) {
                problems.add(title + ": no query with an expr");
            }
            String unit = panel.path("fieldConfig").path("defaults").path("unit").asText();
            if (!UNITS.contains(unit) && !unit.matches("suffix:\\S.*")) {
                problems.add(title + ": unit '" + unit + "' is none of " + UNITS + " nor suffix:<text>");
            }
            if (panel.path("description").asText().isBlank()) {
                problems.add(title + ": no description");
            }
        }
        assertThat(problems).isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dashboards")
    void shouldReadOnlyMetricsTheServiceExports(String file) throws IOException {
        Map<String, Set<String>> known = knownMetrics();
        List<String> problems = new ArrayList<>();
        for (var query : queries(read(file))) {
            List<String> names = MetricSelectors.metricNames(query.expr());
            if (names.isEmpty()) {
                problems.add(query.panel() + ": reads no metric");
            }
            var tokens = GPULEDGER_NAME.matcher(query.expr()).results().map(match -> match.group());
            Stream.concat(names.stream(), tokens).filter(name -> !known.containsKey(name)).distinct()
                    .forEach(name -> problems.add(query.panel() + ": " + name
                            + " is neither in the metric catalogue nor a recording rule"));
        }
        assertThat(problems).isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dashboards")
    void shouldFilterOnEveryVariableTheMetricHasALabelFor(String file) throws IOException {
        Map<String, Set<String>> known = knownMetrics();
        List<String> problems = new ArrayList<>();
        for (var query : queries(read(file))) {
            for (Selector selector : MetricSelectors.of(query.expr())) {
                Set<String> labels = known.get(selector.metric());
                if (labels == null) {
                    continue; // reported by shouldReadOnlyMetricsTheServiceExports
                }
                Map<String, String> filters = SPLIT.equals(selector.metric()) ? SPLIT_FILTERS : FILTERS;
                for (Matcher matcher : selector.matchers()) {
                    if (!labels.contains(matcher.label())) {
                        problems.add(query.panel() + ": " + selector.metric() + " has no label " + matcher.label());
                    }
                    for (var filter : filters.entrySet()) {
                        boolean itsVariable = matcher.value().equals("$" + filter.getKey());
                        if (itsVariable && !matcher.label().equals(filter.getValue())) {
                            problems.add(query.panel() + ": " + selector.metric() + " filters $" + filter.getKey()
                                    + " on " + matcher.label() + ", not on " + filter.getValue());
                        }
                    }
                }
                for (var filter : filters.entrySet()) {
                    if (SHARED_GPU_FAMILIES.contains(selector.metric())
                            && (filter.getKey().equals("team") || filter.getKey().equals("job"))) {
                        continue; // its query chooses GPUs by the split: shouldChooseSharedGpusByTheJobsSharingThem
                    }
                    Matcher expected = new Matcher(filter.getValue(), "=~", "$" + filter.getKey());
                    if (labels.contains(filter.getValue()) && !selector.matchers().contains(expected)) {
                        problems.add(query.panel() + ": " + selector.metric() + " is not filtered by "
                                + filter.getValue() + "=~\"$" + filter.getKey() + "\"");
                    }
                }
            }
        }
        assertThat(problems).isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dashboards")
    void shouldChooseSharedGpusByTheJobsSharingThem(String file) throws IOException {
        List<Matcher> bySharers = List.of(new Matcher("sharing_team", "=~", "$team"),
                new Matcher("sharing_job_id", "=~", "$job"));
        List<String> problems = new ArrayList<>();
        for (var query : queries(read(file))) {
            List<Selector> selectors = MetricSelectors.of(query.expr());
            boolean ofSharedGpus = selectors.stream().anyMatch(selector -> SPLIT.equals(selector.metric())
                    || SHARED_GPU_FAMILIES.contains(selector.metric()));
            boolean chosenBySharers = selectors.stream().anyMatch(selector -> SPLIT.equals(selector.metric())
                    && selector.matchers().containsAll(bySharers));
            if (ofSharedGpus && !chosenBySharers) {
                problems.add(query.panel() + ": reads shared GPUs without choosing them by " + SPLIT
                        + "{sharing_team=~\"$team\", sharing_job_id=~\"$job\"}; a shared GPU's own job_id is"
                        + " \"shared\" and its team the node's");
            }
        }
        assertThat(problems).isEmpty();
    }

    @Test
    void shouldShowASharedGpuToEveryJobAndTeamSharingIt(@TempDir Path temp) throws Exception {
        String promtool = RequiredTool.require("promtool").toString();
        // Given a GPU on team infra's node that ranker (of team search) and feed (of team ads) share, as the alert
        // service exports it
        Map<String, String> gpu = Map.of("gpu", "GPU-1", "gpu_model", "H100", "host", "node-1",
                "instance_type", "p5.48xlarge", "provider", "aws", "region", "us-east-1", "lifecycle", "on-demand",
                "team", "infra", "job_id", "shared", "currency", "USD");
        List<Map<String, String>> series = List.of(
                series("gpuledger_gpu_sharing_jobs", gpu, Map.of(), "2+0x15"),
                series(SPLIT, gpu, Map.of("sharing_job_id", "ranker", "sharing_team", "search"), "0+0.5x15"),
                series(SPLIT, gpu, Map.of("sharing_job_id", "feed", "sharing_team", "ads"), "0+0.3x15"),
                series("gpuledger_gpu_unallocated_cost_total", gpu, Map.of(), "0+0.2x15"));

        // When every query of a panel of shared GPUs is asked with the filters at All, and at ranker or its team
        List<Map<String, String>> selections = List.of(Map.of(), Map.of("job", "ranker"), Map.of("team", "search"),
                Map.of("team", "search", "job", "ranker"));
        List<Map<String, Object>> checks = new ArrayList<>();
        List<String> origins = new ArrayList<>();
        for (String file : dashboards().toList()) {
            for (var query : queries(read(file))) {
                boolean ofSharedGpus = MetricSelectors.metricNames(query.expr()).stream()
                        .anyMatch(name -> SPLIT.equals(name) || SHARED_GPU_FAMILIES.contains(name));
                for (Map<String, String> selection : ofSharedGpus ? selections : List.<Map<String, String>>of()) {
                    String expr = "group((" + asPrometheusSees(query.expr(), selection) + ") > 0)";
                    origins.add(file + ", panel " + query.panel() + ", filters " + selection + ": " + expr);
                    checks.add(Map.of("expr", expr, "eval_time", "15m",
                            "exp_samples", List.of(Map.of("labels", "{}", "value", 1))));
                }
            }
        }
        assertThat(checks).as("queries of shared GPUs").isNotEmpty();
        Path tests = temp.resolve("shared-gpu-panels.yml");
        YAML.writeValue(tests.toFile(), Map.of("rule_files", List.of(), "evaluation_interval", "1m",
                "tests", List.of(Map.of("interval", "1m", "input_series", series, "promql_expr_test", checks))));
        Process test = new ProcessBuilder(promtool, "test", "rules", tests.toString()).redirectErrorStream(true)
                .start();

        // Then each shows the GPU: it is empty for none of them
        assertThat(test.waitFor(60, TimeUnit.SECONDS)).as("promtool finished").isTrue();
        String output = new String(test.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(test.exitValue()).as(() -> output + String.join("\n", origins)).isZero();
    }

    @Test
    void shouldShipTheSixDashboardsWithUniqueUidsAndTitles() throws IOException {
        List<JsonNode> all = new ArrayList<>();
        for (String file : dashboards().toList()) {
            all.add(read(file));
        }

        List<String> uids = all.stream().map(dashboard -> dashboard.path("uid").asText()).toList();
        List<String> titles = all.stream().map(dashboard -> dashboard.path("title").asText()).toList();
        assertThat(uids).doesNotHaveDuplicates().containsAll(SHIPPED_UIDS);
        assertThat(titles).doesNotHaveDuplicates();
    }

    @Test
    void shouldParseEveryQueryWithPromtool(@TempDir Path temp) throws Exception {
        String promtool = RequiredTool.require("promtool").toString();
        List<Map<String, String>> rules = new ArrayList<>();
        List<String> origins = new ArrayList<>();
        for (String file : dashboards().toList()) {
            for (var query : queries(read(file))) {
                origins.add("dashboard:query_" + rules.size() + " is " + file + ", panel " + query.panel());
                rules.add(Map.of("record", "dashboard:query_" + rules.size(), "expr", asPrometheusSees(query.expr())));
            }
        }
        Path rulesFile = temp.resolve("dashboard-queries.yml");
        YAML.writeValue(rulesFile.toFile(), Map.of("groups", List.of(Map.of("name", "dashboards", "rules", rules))));

        Process check = new ProcessBuilder(promtool, "check", "rules", rulesFile.toString()).redirectErrorStream(true)
                .start();
        assertThat(check.waitFor(60, TimeUnit.SECONDS)).as("promtool finished").isTrue();
        String output = new String(check.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(check.exitValue()).as(() -> output + String.join("\n", origins)).isZero();
    }

    @Test
    void shouldProvisionThePrometheusDataSourceTheDashboardsSelect() throws IOException {
        JsonNode prometheus = onlyEntry(DATA_SOURCES, "datasources");

        assertThat(prometheus.path("name").asText()).isEqualTo("Prometheus");
        assertThat(prometheus.path("type").asText()).isEqualTo("prometheus");
        assertThat(prometheus.path("uid").asText()).isEqualTo("prometheus");
        assertThat(prometheus.path("url").asText()).isEqualTo("${PROMETHEUS_URL}");
        for (String file : dashboards().toList()) {
            for (JsonNode variable : read(file).path("templating").path("list")) {
                if (variable.path("type").asText().equals("datasource")) {
                    assertThat(variable.path("current").path("value").asText()).as(file + " default data source")
                            .isEqualTo(prometheus.path("uid").asText());
                }
            }
        }
    }

    @Test
    void shouldProvisionTheDashboardsFromTheirMountIntoOneFolder() throws IOException {
        JsonNode provider = onlyEntry(DASHBOARD_PROVIDERS, "providers");

        assertThat(provider.path("type").asText()).isEqualTo("file");
        assertThat(provider.path("folder").asText()).isEqualTo("GPU Ledger");
        assertThat(provider.path("options").path("path").asText()).isEqualTo(DASHBOARDS_MOUNT);
    }

    /** A query of a panel, with the panel's title for messages. */
    record Query(String panel, String expr) {
    }

    /** The one entry of the list {@code key} of a provisioning file (apiVersion 1). */
    static JsonNode onlyEntry(Path provisioning, String key) throws IOException {
        JsonNode file = YAML.readTree(provisioning.toFile());
        assertThat(file.path("apiVersion").asInt()).as(provisioning + " apiVersion").isEqualTo(1);
        assertThat(file.path(key)).as(provisioning + " " + key).hasSize(1);
        return file.path(key).get(0);
    }

    static JsonNode read(String file) throws IOException {
        return JSON.readTree(DASHBOARDS.resolve(file).toFile());
    }

    /** Every panel that shows data, including those inside rows, collapsed or not. */
    static List<JsonNode> panels(JsonNode dashboard) {
        List<JsonNode> found = new ArrayList<>();
        collect(dashboard.path("panels"), found);
        return found;
    }

    private static void collect(JsonNode panels, List<JsonNode> found) {
        for (JsonNode panel : panels) {
            if (panel.path("type").asText().equals("row")) {
                collect(panel.path("panels"), found);
            } else {
                found.add(panel);
            }
        }
    }

    static List<Query> queries(JsonNode dashboard) {
        List<Query> queries = new ArrayList<>();
        for (JsonNode panel : panels(dashboard)) {
            for (JsonNode target : panel.path("targets")) {
                if (target.hasNonNull("expr")) {
                    queries.add(new Query(panel.path("title").asText(), target.path("expr").asText()));
                }
            }
        }
        return queries;
    }

    /** The families of both catalogues (the alert service's and the engine's) and their labels. */
    static Map<String, Set<String>> catalogue() throws IOException {
        Map<String, Set<String>> families = new HashMap<>(catalogue(CATALOGUE));
        families.putAll(catalogue(ENGINE_CATALOGUE));
        return families;
    }

    private static Map<String, Set<String>> catalogue(Path file) throws IOException {
        Map<String, Set<String>> families = new HashMap<>();
        boolean header = true;
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            if (header) {
                header = false;
                continue;
            }
            String[] columns = line.split("\t");
            Set<String> labels = columns[3].equals("-") ? Set.of() : Set.of(columns[3].split(","));
            families.put(columns[0], labels);
        }
        return families;
    }

    /** What a dashboard may read: the catalogue's families (counters already end in _total) and the recording rules. */
    static Map<String, Set<String>> knownMetrics() throws IOException {
        Map<String, Set<String>> known = new HashMap<>(catalogue());
        known.putAll(RECORDING_RULES);
        return known;
    }

    /** An expression as Prometheus receives it from Grafana with every filter at All. */
    static String asPrometheusSees(String expr) {
        return asPrometheusSees(expr, Map.of());
    }

    /** An expression as Prometheus receives it from Grafana with values chosen for some filters, the rest at All. */
    static String asPrometheusSees(String expr, Map<String, String> chosen) {
        return VARIABLE.matcher(expr.replace("$__rate_interval", "1m").replace("$__interval", "1m")
                .replace("$__range", "1h")).replaceAll(variable -> java.util.regex.Matcher.quoteReplacement(
                        chosen.getOrDefault(variable.group(1), ".*")));
    }

    /**
     * A promtool input series of {@code family}: the GPU's labels and its own, which must be those the catalogue
     * lists for it.
     */
    private static Map<String, String> series(String family, Map<String, String> gpu, Map<String, String> own,
            String values) throws IOException {
        Map<String, String> labels = new TreeMap<>(gpu);
        labels.putAll(own);
        assertThat(labels.keySet()).as(family + " labels").isEqualTo(catalogue().get(family));
        String selector = labels.entrySet().stream().map(label -> label.getKey() + "=\"" + label.getValue() + "\"")
                .collect(Collectors.joining(", ", family + "{", "}"));
        return Map.of("series", selector, "values", values);
    }

    private static Map<String, String> orderedMap(String... keysAndValues) {
        Map<String, String> map = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            map.put(keysAndValues[i], keysAndValues[i + 1]);
        }
        return map;
    }
}
