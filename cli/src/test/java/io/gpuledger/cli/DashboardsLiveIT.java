package io.gpuledger.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import io.gpuledger.model.Json;
import io.gpuledger.processes.AlertServiceProcess;
import io.gpuledger.processes.LocalPorts;
import io.gpuledger.testing.RequiredTool;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real stack behind the dashboards: the demo on its embedded broker (with a budget small
 * enough to be overrun, a webhook receiver, frequent spot interruptions and price moves, and a
 * short grace so that minutes close quickly), a real Prometheus server scraping the alert
 * service and the cost engine every second with the shipped recording rules, and then every panel query of every
 * dashboard in {@code grafana/dashboards}, asked through Prometheus' HTTP API: each must return
 * data. A query naming a metric the service does not export returns none, and fails here.
 */
class DashboardsLiveIT {

    private static final Duration PATIENCE = Duration.ofSeconds(240);
    private final HttpClient http = HttpClient.newHttpClient();

    @TempDir
    Path work;

    @Test
    void shouldAnswerEveryPanelQueryOfEveryDashboardFromTheRunningDemo() throws Exception {
        // Given Prometheus (Debian's prometheus package; CI installs it) and the shipped dashboards
        RequiredTool.require("prometheus");
        Path home = Path.of(System.getProperty("gpuledger.home", "..")).toAbsolutePath().normalize();
        Map<String, String> queries = panelQueries(home.resolve("grafana/dashboards"));
        assertThat(queries).as("panel queries in grafana/dashboards").isNotEmpty();

        HttpServer finance = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        finance.createContext("/hook", exchange -> {
            exchange.getRequestBody().readAllBytes();
            exchange.sendResponseHeaders(200, -1);
            exchange.close();
        });
        finance.start();
        int alertsPort = LocalPorts.freePair();
        DemoOptions options = DemoOptions.parse(new String[] {"--gpus", "16", "--interval", "1", "--grace", "5",
                "--http-port", String.valueOf(alertsPort), "--spot-interruptions", "120", "--price-changes", "240",
                        "--history", "off"},
                Map.of("GPULEDGER_BUDGETS", "team:research=0.5 USD",
                        "GPULEDGER_WEBHOOKS_FINANCE_URL", "http://127.0.0.1:" + finance.getAddress().getPort() + "/hook",
                        "GPULEDGER_WEBHOOKS_FINANCE_SECRET", "dashboards-test",
                        "GPULEDGER_WEBHOOKS_FINANCE_ALLOW_HTTP", "true"));
        Demo demo = new Demo(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        Process prometheus = null;
        try {
            demo.start(options);
            int prometheusPort = LocalPorts.free();
            prometheus = startPrometheus(home, alertsPort, demo.engineMetricsPort(), prometheusPort);
            String api = "http://127.0.0.1:" + prometheusPort + "/api/v1/query?query=";

            // When every query is asked every two seconds until it answers
            Map<String, String> unanswered = new LinkedHashMap<>(queries);
            await().atMost(PATIENCE).pollInterval(Duration.ofSeconds(2)).untilAsserted(() -> {
                unanswered.entrySet().removeIf(query -> answers(api, query.getValue()));

                // Then none is left without data
                assertThat(unanswered).as("panel queries that returned no data yet").isEmpty();
            });
        } finally {
            if (prometheus != null) {
                prometheus.destroy();
                if (!prometheus.waitFor(10, TimeUnit.SECONDS)) {
                    prometheus.destroyForcibly();
                }
            }
            demo.close();
            finance.stop(0);
        }
    }

    /** Each panel's queries, by "dashboard / panel #refId", with Grafana's variables as Prometheus reads them. */
    static Map<String, String> panelQueries(Path dashboards) throws IOException {
        Map<String, String> queries = new LinkedHashMap<>();
        try (Stream<Path> files = Files.list(dashboards)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".json")).sorted().toList()) {
                JsonNode dashboard = Json.MAPPER.readTree(file.toFile());
                collect(dashboard.path("title").asText(file.getFileName().toString()), dashboard.path("panels"),
                        queries);
            }
        }
        return queries;
    }

    private static void collect(String dashboard, JsonNode panels, Map<String, String> queries) {
        for (JsonNode panel : panels) {
            collect(dashboard, panel.path("panels"), queries);
            for (JsonNode target : panel.path("targets")) {
                if (target.hasNonNull("expr") && !target.path("hide").asBoolean(false)) {
                    queries.put(dashboard + " / " + panel.path("title").asText() + " #" + target.path("refId").asText(),
                            resolve(target.get("expr").asText()));
                }
            }
        }
    }

    /** The query with every template variable set to "all", and Grafana's own intervals to fixed ones. */
    static String resolve(String expr) {
        return expr.replace("$__rate_interval", "1m").replace("${__rate_interval}", "1m")
                .replace("$__interval", "15s").replace("${__interval}", "15s")
                .replace("$__range", "10m").replace("${__range}", "10m")
                .replaceAll("\\$\\{?(provider|region|pool|team|job|instance_type|lifecycle|currency|gpu)(:[a-z]+)?}?",
                        ".*");
    }

    private boolean answers(String api, String query) {
        try {
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(
                    URI.create(api + URLEncoder.encode(query, StandardCharsets.UTF_8))).build(),
                    HttpResponse.BodyHandlers.ofString());
            JsonNode body = Json.MAPPER.readTree(response.body());
            JsonNode result = body.path("data").path("result");
            return "success".equals(body.path("status").asText())
                    && (result.isArray() ? !result.isEmpty() : !result.isMissingNode());
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private Process startPrometheus(Path home, int alertsPort, int enginePort, int port) throws IOException {
        List<String> rules = new ArrayList<>();
        Path recording = home.resolve("deploy/prometheus/rules/recording.yml");
        if (Files.isRegularFile(recording)) {
            rules.add(recording.toString());
        }
        Path config = work.resolve("prometheus.yml");
        Files.writeString(config, """
                global:
                  scrape_interval: 1s
                  evaluation_interval: 1s
                rule_files: %s
                scrape_configs:
                  - job_name: gpu-ledger-alerts
                    metrics_path: /q/metrics
                    static_configs:
                      - targets: ["127.0.0.1:%d"]
                  - job_name: gpu-ledger-cost-engine
                    static_configs:
                      - targets: ["127.0.0.1:%d"]
                """.formatted(Json.writeString(rules), AlertServiceProcess.managementPort(alertsPort), enginePort));
        return new ProcessBuilder("prometheus", "--config.file=" + config,
                "--storage.tsdb.path=" + work.resolve("data"), "--web.listen-address=127.0.0.1:" + port,
                "--log.level=warn")
                .redirectErrorStream(true).redirectOutput(work.resolve("prometheus.log").toFile()).start();
    }
}
