package io.gpuledger.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import io.gpuledger.model.Json;
import io.gpuledger.model.Topics;
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
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real stack behind the dashboards: the demo on its embedded broker (with a budget small
 * enough to be overrun, a webhook receiver configured by environment variables, frequent spot
 * interruptions and price moves, and a short grace so that minutes close quickly), a real
 * Prometheus server scraping the alert service and the cost engine every second with the shipped
 * recording rules, and then every panel query of every dashboard in {@code grafana/dashboards},
 * asked through Prometheus' HTTP API: each must return data. A query naming a metric the service
 * does not export returns none, and fails here.
 */
class DashboardsLiveIT {

    private static final Duration PATIENCE = Duration.ofSeconds(240);
    private static final String FINANCE_SECRET = "dashboards-test";
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
        List<String> signedRight = new CopyOnWriteArrayList<>();
        List<String> signedWrong = new CopyOnWriteArrayList<>();
        finance.createContext("/hook", exchange -> {
            byte[] body = exchange.getRequestBody().readAllBytes();
            String id = exchange.getRequestHeaders().getFirst("webhook-id");
            String expected = standardWebhooksSignature(FINANCE_SECRET, id,
                    exchange.getRequestHeaders().getFirst("webhook-timestamp"), body);
            if (expected.equals(exchange.getRequestHeaders().getFirst("webhook-signature"))) {
                signedRight.add(id);
            } else {
                signedWrong.add(exchange.getRequestHeaders().entrySet() + " "
                        + new String(body, StandardCharsets.UTF_8));
            }
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
                        "GPULEDGER_WEBHOOKS_FINANCE_SECRET", FINANCE_SECRET,
                        "GPULEDGER_WEBHOOKS_FINANCE_ALLOW_HTTP", "true"));
        Demo demo = new Demo(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        Process prometheus = null;
        try {
            demo.start(options);
            int prometheusPort = LocalPorts.free();
            prometheus = startPrometheus(home, alertsPort, demo.engineMetricsPort(), prometheusPort);
            String api = "http://127.0.0.1:" + prometheusPort + "/api/v1/query?query=";

            // and a reconciliation with a bill published as gpu-ledger reconcile --publish writes it, written here as
            // JSON text as another client would write it, for the finance dashboard's bill panels
            publishReconciliation(demo.bootstrap());

            // When every query is asked every two seconds until it answers
            Map<String, String> unanswered = new LinkedHashMap<>(queries);
            await().atMost(PATIENCE).pollInterval(Duration.ofSeconds(2)).untilAsserted(() -> {
                unanswered.entrySet().removeIf(query -> answers(api, query.getValue()));

                // Then none is left without data
                assertThat(unanswered).as("panel queries that returned no data yet").isEmpty();
            });

            // And an anomaly published as another client would write it is delivered to the receiver configured
            // only by environment variables (GPULEDGER_WEBHOOKS_FINANCE_*, read by WebhookVariables inside the
            // packaged service), signed with its secret
            publishAnomaly(demo.bootstrap());
            await().atMost(PATIENCE).untilAsserted(() -> assertThat(signedRight)
                    .as("deliveries signed with the secret; signed otherwise: %s", signedWrong).isNotEmpty());
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

    /** A budget anomaly as JSON text, to the topic the webhook dispatcher reads. */
    private static void publishReconciliation(String bootstrap) throws Exception {
        String now = java.time.Instant.now().truncatedTo(java.time.temporal.ChronoUnit.HOURS).toString();
        String weekAgo = java.time.Instant.now().truncatedTo(java.time.temporal.ChronoUnit.HOURS)
                .minus(Duration.ofDays(7)).toString();
        String ratio = "{\"provider\":\"aws\",\"region\":\"us-east-1\",\"instanceType\":\"p5.48xlarge\","
                + "\"lifecycle\":\"on-demand\",\"billingAccountId\":\"012345678901\",\"currency\":\"USD\","
                + "\"from\":\"" + weekAgo + "\",\"to\":\"" + now + "\",\"estimated\":16222.8,\"effective\":15087.2,"
                + "\"ratio\":0.93,\"reconciledAt\":\"" + now + "\"}";
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (KafkaProducer<String, String> producer =
                new KafkaProducer<>(props, new StringSerializer(), new StringSerializer())) {
            producer.send(new ProducerRecord<>(Topics.RECONCILIATION.name(),
                    "aws|us-east-1|p5.48xlarge|on-demand|012345678901", ratio)).get();
        }
    }

    private static void publishAnomaly(String bootstrap) throws Exception {
        String now = java.time.Instant.now().truncatedTo(java.time.temporal.ChronoUnit.MINUTES).toString();
        String id = "budget-burn|team|research|" + now;
        String anomaly = "{\"schemaVersion\":1,\"id\":\"" + id + "\",\"kind\":\"BUDGET_BURN\","
                + "\"dimension\":\"team\",\"subject\":\"research\",\"severity\":\"WARNING\","
                + "\"measure\":\"cost_per_day\",\"expected\":0.5,\"actual\":0.8,\"impact\":0.3,"
                + "\"impactPercent\":60.0,\"currency\":\"USD\",\"windowStart\":\"" + now + "\","
                + "\"windowEnd\":\"" + now + "\",\"detectedAt\":\"" + now + "\","
                + "\"summary\":\"team research is over its budget\"}";
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (KafkaProducer<String, String> producer =
                new KafkaProducer<>(props, new StringSerializer(), new StringSerializer())) {
            producer.send(new ProducerRecord<>(Topics.COST_ANOMALIES.name(), id, anomaly)).get();
        }
    }

    /**
     * The one signature a Standard Webhooks sender gives with one secret: {@code v1,} and the base64 HMAC-SHA256
     * of {@code id.timestamp.body}, keyed (a secret without {@code whsec_}) with the secret's UTF-8 bytes.
     */
    private static String standardWebhooksSignature(String secret, String id, String timestamp, byte[] body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            mac.update((id + "." + timestamp + ".").getBytes(StandardCharsets.UTF_8));
            return "v1," + Base64.getEncoder().encodeToString(mac.doFinal(body));
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException(e);
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
