package io.gpuledger.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.gpuledger.testing.RequiredTool;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The Prometheus rules under deploy/prometheus, their promtool unit tests, the Prometheus
 * configuration and the Alertmanager example. The real tools check them where installed (CI
 * installs both); the checks that need no tool hold them to the metric catalogue, the runbooks
 * and each other everywhere.
 */
class PrometheusRulesTest {

    private static final String RULES = "deploy/prometheus/rules";
    private static final String RULE_TESTS = "deploy/prometheus/tests";
    private static final String PROMETHEUS_CONFIG = "deploy/prometheus/prometheus.yml";
    private static final String ALERTMANAGER_CONFIG = "deploy/alertmanager/alertmanager.yml";
    private static final String RUNBOOKS = "deploy/prometheus/README.md";
    private static final String CATALOGUE = "alerts/src/main/resources/io/gpuledger/alerts/metrics/catalogue.tsv";
    /** The cost engine's own families, on its own /metrics. */
    private static final String ENGINE_CATALOGUE =
            "streams/src/main/resources/io/gpuledger/streams/metrics/catalogue.tsv";

    /** Series the Grafana dashboards read: renaming one breaks them. */
    private static final List<String> DASHBOARD_SERIES = List.of(
            "gpuledger:cost_per_hour:sum",
            "gpuledger:cost_per_hour:sum_by_provider",
            "gpuledger:cost_per_hour:sum_by_team",
            "gpuledger:idle_cost_per_hour:sum",
            "gpuledger:idle_cost:ratio",
            "gpuledger:gpus:sum_by_lifecycle",
            "gpuledger:team_cost:increase1h");

    private static final Set<String> TEAMS = Set.of("sre", "finance");
    /** A finance alert passes on the severity its anomaly was published with. */
    private static final Set<String> SEVERITIES = Set.of("warning", "critical", "{{ $labels.severity }}");

    private static final Pattern METRIC = Pattern.compile("gpuledger_[a-z0-9_]+");
    private static final Pattern JOB = Pattern.compile("\\bjob\\s*=\\s*\"([^\"]*)\"");
    private static final Pattern ALERT_NAME = Pattern.compile("alertname\\s*=~?\\s*\"([^\"]*)\"");
    private static final Pattern TEAM = Pattern.compile("team\\s*=\\s*\"([^\"]*)\"");

    private static final ObjectMapper YAML = new YAMLMapper();

    /** One rule of a rules file, recording or alerting. */
    private record Rule(String file, String group, JsonNode node) {

        boolean isAlert() {
            return node.has("alert");
        }

        String name() {
            return isAlert() ? node.path("alert").asText() : node.path("record").asText();
        }

        String expr() {
            return node.path("expr").asText();
        }

        String where() {
            return file + " " + group + "/" + name();
        }
    }

    static Stream<String> ruleFiles() {
        return yamlFiles(RULES);
    }

    static Stream<String> ruleTestFiles() {
        return yamlFiles(RULE_TESTS);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("ruleFiles")
    void shouldPassPromtoolCheckRules(String file) throws Exception {
        RequiredTool.require("promtool");
        assertSucceeds(InstalledTool.run("promtool", "check", "rules", file));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("ruleTestFiles")
    void shouldPassPromtoolUnitTests(String file) throws Exception {
        RequiredTool.require("promtool");
        assertSucceeds(InstalledTool.run("promtool", "test", "rules", file));
    }

    @Test
    void shouldPassPromtoolCheckConfig() throws Exception {
        RequiredTool.require("promtool");
        assertSucceeds(InstalledTool.run("promtool", "check", "config", PROMETHEUS_CONFIG));
    }

    @Test
    void shouldPassAmtoolCheckConfig() throws Exception {
        RequiredTool.require("amtool");
        assertSucceeds(InstalledTool.run("amtool", "check-config", ALERTMANAGER_CONFIG));
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
            "team=sre severity=critical     | sre-pager,sre-slack",
            "team=sre severity=warning      | sre-slack",
            "team=finance severity=warning  | finance-email",
            "team=finance severity=critical | finance-critical",
            "alertname=WithoutTeam          | sre-slack"})
    void shouldRouteEachAudienceToItsReceivers(String labels, String receivers) throws Exception {
        RequiredTool.require("amtool");
        List<String> command = new ArrayList<>(List.of("amtool", "config", "routes", "test",
                "--config.file=" + ALERTMANAGER_CONFIG, "--verify.receivers=" + receivers));
        command.addAll(Arrays.asList(labels.split(" ")));
        assertSucceeds(InstalledTool.run(command.toArray(String[]::new)));
    }

    @Test
    void shouldNameOnlyCatalogueFamiliesInExpressions() {
        Set<String> families = catalogueSeriesNames();
        Map<String, Set<String>> unknown = new TreeMap<>();
        for (Rule rule : rules()) {
            Matcher metric = METRIC.matcher(rule.expr());
            while (metric.find()) {
                if (!families.contains(metric.group())) {
                    unknown.computeIfAbsent(rule.where(), key -> new TreeSet<>()).add(metric.group());
                }
            }
        }
        assertThat(unknown).as("metrics that neither %s nor %s lists", CATALOGUE, ENGINE_CATALOGUE).isEmpty();
    }

    @Test
    void shouldGiveEveryAlertSeverityTeamSummaryDescriptionAndRunbook() throws IOException {
        String runbooks = Files.readString(RepositoryFiles.resolve(RUNBOOKS));
        List<String> problems = new ArrayList<>();
        for (Rule rule : rules()) {
            if (!rule.isAlert()) {
                continue;
            }
            JsonNode labels = rule.node().path("labels");
            JsonNode annotations = rule.node().path("annotations");
            if (!SEVERITIES.contains(labels.path("severity").asText())) {
                problems.add(rule.where() + ": severity is not one of " + SEVERITIES);
            }
            if (!TEAMS.contains(labels.path("team").asText())) {
                problems.add(rule.where() + ": team is not one of " + TEAMS);
            }
            for (String annotation : List.of("summary", "description")) {
                if (annotations.path(annotation).asText().isBlank()) {
                    problems.add(rule.where() + ": no " + annotation);
                }
            }
            String runbook = RUNBOOKS + "#" + rule.name().toLowerCase();
            if (!annotations.path("runbook").asText().equals(runbook)) {
                problems.add(rule.where() + ": runbook is not " + runbook);
            }
            if (!runbooks.contains("\n### " + rule.name() + "\n")) {
                problems.add(rule.where() + ": " + RUNBOOKS + " has no section ### " + rule.name());
            }
        }
        assertThat(problems).isEmpty();
    }

    @Test
    void shouldRecordTheSeriesDashboardsRead() {
        List<String> recorded = rules().stream()
                .filter(rule -> !rule.isAlert() && rule.group().equals("gpuledger-recording"))
                .map(Rule::name)
                .toList();
        assertThat(recorded).containsAll(DASHBOARD_SERIES);
    }

    @Test
    void shouldUnitTestEveryAlertFiringAndQuietAndEveryRecordedSeries() {
        Set<String> firing = new TreeSet<>();
        Set<String> quiet = new TreeSet<>();
        Set<String> evaluated = new TreeSet<>();
        ruleTestFiles().forEach(file -> {
            for (JsonNode test : read(file).path("tests")) {
                for (JsonNode check : test.path("alert_rule_test")) {
                    (check.path("exp_alerts").isEmpty() ? quiet : firing).add(check.path("alertname").asText());
                }
                for (JsonNode check : test.path("promql_expr_test")) {
                    evaluated.add(check.path("expr").asText().trim());
                }
            }
        });
        List<String> untested = new ArrayList<>();
        for (Rule rule : rules()) {
            if (rule.isAlert() && !firing.contains(rule.name())) {
                untested.add(rule.where() + ": never seen firing");
            }
            if (rule.isAlert() && !quiet.contains(rule.name())) {
                untested.add(rule.where() + ": never seen quiet");
            }
            if (!rule.isAlert() && !evaluated.contains(rule.name())) {
                untested.add(rule.where() + ": no promql_expr_test evaluates it");
            }
        }
        assertThat(untested).as("rules without a case in %s", RULE_TESTS).isEmpty();
    }

    @Test
    void shouldScrapeEveryJobTheRulesName() {
        Set<String> scraped = new TreeSet<>();
        for (JsonNode job : read(PROMETHEUS_CONFIG).path("scrape_configs")) {
            scraped.add(job.path("job_name").asText());
        }
        Set<String> named = new TreeSet<>();
        for (Rule rule : rules()) {
            Matcher job = JOB.matcher(rule.expr());
            while (job.find()) {
                named.add(job.group(1));
            }
        }
        assertThat(named).isNotEmpty();
        assertThat(scraped).containsAll(named);
    }

    @Test
    void shouldRouteEveryTeamAndInhibitOnlyAlertsThatExist() {
        JsonNode alertmanager = read(ALERTMANAGER_CONFIG);
        Set<String> routedTeams = new TreeSet<>();
        collectRouteMatchers(alertmanager.path("route"), TEAM, routedTeams);
        assertThat(routedTeams).containsAll(TEAMS);

        Set<String> alerts = rules().stream().filter(Rule::isAlert).map(Rule::name)
                .collect(Collectors.toCollection(TreeSet::new));
        Set<String> inhibited = new TreeSet<>();
        for (JsonNode inhibition : alertmanager.path("inhibit_rules")) {
            for (String side : List.of("source_matchers", "target_matchers")) {
                for (JsonNode matcher : inhibition.path(side)) {
                    Matcher name = ALERT_NAME.matcher(matcher.asText());
                    if (name.find()) {
                        inhibited.add(name.group(1));
                    }
                }
            }
        }
        assertThat(alerts).containsAll(inhibited);
    }

    private static void assertSucceeds(InstalledTool.Run run) {
        assertThat(run.exitCode()).as(run::report).isZero();
    }

    private static void collectRouteMatchers(JsonNode route, Pattern pattern, Set<String> into) {
        for (JsonNode matcher : route.path("matchers")) {
            Matcher found = pattern.matcher(matcher.asText());
            if (found.find()) {
                into.add(found.group(1));
            }
        }
        for (JsonNode child : route.path("routes")) {
            collectRouteMatchers(child, pattern, into);
        }
    }

    private static List<Rule> rules() {
        List<Rule> rules = new ArrayList<>();
        ruleFiles().forEach(file -> {
            for (JsonNode group : read(file).path("groups")) {
                for (JsonNode rule : group.path("rules")) {
                    rules.add(new Rule(file, group.path("name").asText(), rule));
                }
            }
        });
        assertThat(rules).as("rules under %s", RULES).isNotEmpty();
        return rules;
    }

    /** The names series of each family of both catalogues carry: a counter's ends in _total. */
    private static Set<String> catalogueSeriesNames() {
        Set<String> names = new TreeSet<>(catalogueSeriesNames(CATALOGUE));
        names.addAll(catalogueSeriesNames(ENGINE_CATALOGUE));
        return names;
    }

    private static Set<String> catalogueSeriesNames(String catalogue) {
        try (Stream<String> lines = Files.lines(RepositoryFiles.resolve(catalogue))) {
            Set<String> names = lines
                    .filter(line -> !line.isBlank() && !line.startsWith("#") && !line.startsWith("name\t"))
                    .map(line -> line.split("\t"))
                    .map(columns -> columns[1].equals("counter") && !columns[0].endsWith("_total")
                            ? columns[0] + "_total" : columns[0])
                    .collect(Collectors.toCollection(TreeSet::new));
            assertThat(names).as("families in %s", catalogue).isNotEmpty();
            return names;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static JsonNode read(String file) {
        try {
            return YAML.readTree(RepositoryFiles.resolve(file).toFile());
        } catch (IOException e) {
            throw new UncheckedIOException(file, e);
        }
    }

    /** The YAML files directly under {@code dir}, as paths from the repository root, sorted. */
    private static Stream<String> yamlFiles(String dir) {
        try (Stream<Path> files = Files.list(RepositoryFiles.resolve(dir))) {
            List<String> names = files
                    .map(path -> path.getFileName().toString())
                    .filter(name -> name.endsWith(".yml") || name.endsWith(".yaml"))
                    .sorted()
                    .map(name -> dir + "/" + name)
                    .toList();
            assertThat(names).as("YAML files in %s", dir).isNotEmpty();
            return names.stream();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
