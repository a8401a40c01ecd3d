package io.gpuledger.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.gpuledger.model.Topic;
import io.gpuledger.model.Topics;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** deploy/compose/docker-compose.yml read as Docker Compose reads it: no Docker needed. */
class ComposeTest {

    static final String COMPOSE = "deploy/compose/docker-compose.yml";

    /**
     * Files the stack mounts that come with the dashboards and the Prometheus rules, written apart
     * from the stack. Each must exist and be of this kind once it is there; until then its check
     * is skipped, and says so.
     */
    static final Map<String, Boolean> MOUNTED_FROM_ELSEWHERE = Map.of(
            "deploy/prometheus/rules", true,
            "deploy/alertmanager/alertmanager.yml", false,
            "grafana/provisioning", true,
            "grafana/dashboards", true);

    private static JsonNode compose;
    private static JsonNode services;

    @BeforeAll
    static void read() throws IOException {
        compose = new YAMLMapper().readTree(RepositoryFiles.resolve(COMPOSE).toFile());
        services = compose.get("services");
    }

    @Test
    void shouldRunEveryStageAndTheMonitoringBesideIt() {
        assertThat(names(services)).contains("kafka", "topics", "simulator", "cost-engine", "alerts", "agent", "prices",
                "prometheus", "alertmanager", "grafana");
        services.fields().forEachRemaining(service -> assertThat(service.getValue().has("image")
                || service.getValue().has("build")).as(service.getKey() + " has an image or a build").isTrue());
    }

    @Test
    void shouldRunTheImagesThisBuildMakesAndTheKafkaItIsBuiltAgainst() {
        String version = System.getProperty("gpuledger.version", "0.1.0-SNAPSHOT");
        Pattern ours = Pattern.compile("(gpu-ledger-[a-z]+):\\$\\{GPULEDGER_VERSION:-(.+)}");
        services.fields().forEachRemaining(service -> {
            String image = service.getValue().get("image").asText();
            Matcher matcher = ours.matcher(image);
            if (matcher.matches()) {
                assertThat(matcher.group(1)).as(service.getKey())
                        .isIn("gpu-ledger-agent", "gpu-ledger-engine", "gpu-ledger-alerts");
                assertThat(matcher.group(2)).as(service.getKey() + " defaults to this build's version")
                        .isEqualTo(version);
            } else if (image.startsWith("apache/kafka:")) {
                assertThat(image).isEqualTo("apache/kafka:" + System.getProperty("kafka.version", "4.1.2"));
            } else {
                assertThat(image).as(service.getKey() + ": a pinned version").matches("[a-z/-]+:v?\\d+(\\.\\d+)+");
            }
        });
    }

    @Test
    void shouldDependOnlyOnServicesThatExistAndOnHealthOnlyWhereCheckedHealth() {
        Set<String> conditions = Set.of("service_started", "service_healthy", "service_completed_successfully");
        services.fields().forEachRemaining(service -> {
            JsonNode dependsOn = service.getValue().path("depends_on");
            for (String target : names(dependsOn)) {
                assertThat(services.has(target)).as(service.getKey() + " depends on " + target).isTrue();
                assertThat(target).isNotEqualTo(service.getKey());
                String condition = dependsOn.get(target).path("condition").asText("service_started");
                assertThat(condition).isIn(conditions);
                if (condition.equals("service_healthy")) {
                    assertThat(services.get(target).has("healthcheck")).as(target + " has a health check").isTrue();
                }
            }
        });
        assertThat(services.get("topics").path("restart").asText()).isEqualTo("no");
    }

    @Test
    void shouldPublishEachHostPortOnceOnLoopback() {
        Map<String, String> byHostPort = new HashMap<>();
        services.fields().forEachRemaining(service -> {
            for (JsonNode port : service.getValue().path("ports")) {
                String[] parts = port.asText().split(":");
                assertThat(parts).as(service.getKey() + " publishes 127.0.0.1:HOST:CONTAINER").hasSize(3);
                assertThat(parts[0]).as(service.getKey() + ": reachable from this host only").isEqualTo("127.0.0.1");
                String previous = byHostPort.put(parts[1], service.getKey());
                assertThat(previous).as("host port " + parts[1] + " of " + service.getKey()).isNull();
            }
        });
        assertThat(byHostPort).containsKeys("8080", "9090", "9093", "3000", "29092");
    }

    @Test
    void shouldKeepStateInDeclaredNamedVolumesAndMountOnlyFilesThatExist() {
        List<String> missingHere = new ArrayList<>();
        services.fields().forEachRemaining(service -> {
            for (JsonNode volume : service.getValue().path("volumes")) {
                String source = volume.asText().split(":")[0];
                if (source.startsWith(".")) {
                    Path path = RepositoryFiles.resolve("deploy/compose").resolve(source).normalize();
                    String relative = RepositoryFiles.root().relativize(path).toString();
                    if (MOUNTED_FROM_ELSEWHERE.containsKey(relative)) {
                        continue; // checked below
                    }
                    if (!Files.exists(path)) {
                        missingHere.add(service.getKey() + ": " + relative);
                    }
                } else {
                    assertThat(compose.path("volumes").has(source)).as(service.getKey() + " volume " + source
                            + " is declared").isTrue();
                    if (service.getValue().get("image").asText().startsWith("gpu-ledger-")) {
                        // A new volume takes over the mode of the image's directory; only this one is
                        // writable for the images' user (deploy/images/README.md).
                        assertThat(volume.asText()).as(service.getKey()).isEqualTo(source + ":/var/lib/gpu-ledger");
                    }
                }
            }
        });
        assertThat(missingHere).isEmpty();
        assertThat(names(compose.path("volumes"))).contains("kafka-data", "engine-state", "agent-spool",
                "prometheus-data", "alertmanager-data", "grafana-data");
    }

    @Test
    void shouldMountTheDashboardsRulesAndAlertmanagerConfigurationOnceTheyExist() {
        Map<String, String> mounted = new TreeMap<>();
        services.fields().forEachRemaining(service -> {
            for (JsonNode volume : service.getValue().path("volumes")) {
                String source = volume.asText().split(":")[0];
                if (source.startsWith(".")) {
                    Path path = RepositoryFiles.resolve("deploy/compose").resolve(source).normalize();
                    mounted.put(RepositoryFiles.root().relativize(path).toString(), volume.asText().split(":")[1]);
                }
            }
        });
        assertThat(mounted).containsKeys(MOUNTED_FROM_ELSEWHERE.keySet().toArray(String[]::new));
        assertThat(mounted).containsEntry("grafana/dashboards", "/var/lib/grafana/dashboards/gpu-ledger")
                .containsEntry("grafana/provisioning", "/etc/grafana/provisioning");
        List<String> notYet = new ArrayList<>();
        MOUNTED_FROM_ELSEWHERE.forEach((relative, directory) -> {
            Path path = RepositoryFiles.resolve(relative);
            if (!Files.exists(path)) {
                notYet.add(relative);
            } else {
                assertThat(Files.isDirectory(path)).as(relative + " is a directory").isEqualTo(directory);
            }
        });
        assumeTrue(notYet.isEmpty(), "not in this tree yet: " + notYet);
    }

    @Test
    void shouldCreateExactlyTheTopicsOfTheRegistryWithTheirSettings() throws IOException {
        String script = Files.readString(RepositoryFiles.resolve("deploy/compose/create-topics.sh"));
        Matcher list = Pattern.compile("(?s)topics=\\((.*?)\\n\\)").matcher(script);
        assertThat(list.find()).isTrue();
        Map<String, Map<String, String>> created = new LinkedHashMap<>();
        for (String line : list.group(1).strip().split("\\n")) {
            String[] words = line.strip().replace("\"", "").split("\\s+");
            Map<String, String> settings = new TreeMap<>();
            for (int i = 1; i < words.length; i++) {
                String[] pair = words[i].split("=", 2);
                settings.put(pair[0], pair[1]);
            }
            created.put(words[0], settings);
        }
        Map<String, Map<String, String>> registry = new LinkedHashMap<>();
        for (Topic<?, ?> topic : Topics.ALL) {
            registry.put(topic.name(), new TreeMap<>(topic.config()));
        }
        assertThat(created).isEqualTo(registry);
        assertThat(services.get("topics").path("volumes").get(0).asText())
                .startsWith("./create-topics.sh:");
    }

    @Test
    void shouldScrapeTheAlertServiceAndAlertThroughTheStacksAlertmanager() throws IOException {
        JsonNode prometheus = new YAMLMapper()
                .readTree(RepositoryFiles.resolve("deploy/compose/prometheus.yml").toFile());
        List<String> targets = new ArrayList<>();
        for (JsonNode job : prometheus.get("scrape_configs")) {
            job.at("/static_configs/0/targets").forEach(target -> targets.add(target.asText()));
        }
        assertThat(targets).contains("alerts:9000");
        for (String target : targets) {
            String host = target.split(":")[0];
            assertThat(host.equals("localhost") || services.has(host)).as(target + " is a service of the stack")
                    .isTrue();
        }
        assertThat(prometheus.at("/alerting/alertmanagers/0/static_configs/0/targets/0").asText())
                .isEqualTo("alertmanager:9093");
        assertThat(prometheus.at("/rule_files/0").asText()).isEqualTo("/etc/prometheus/rules/*.yml");
    }

    /** The agent's image listens beyond loopback, where it checks tokens: the issuer's keys are a file. */
    @Test
    void shouldGiveTheAgentTheIssuersKeysAsASecretFile() {
        JsonNode agent = services.get("agent");
        List<String> secrets = names(agent.get("secrets"));
        assertThat(secrets).containsExactly("token-issuer");
        assertThat(agent.at("/environment/GPULEDGER_PROGRESS_ISSUER_KEYS_FILE").asText())
                .isEqualTo("/run/secrets/token-issuer");
        assertThat(compose.at("/secrets/token-issuer/file").asText()).endsWith("./token-issuer}");
        assertThat(names(agent.get("environment")))
                .noneMatch(name -> name.contains("TOKEN") && !name.endsWith("_FILE"));
    }

    /** The alert service's write token is a file of a secret, as the agent's, never a variable. */
    @Test
    void shouldGiveTheAlertServiceItsApiTokenAsASecretFile() {
        JsonNode alerts = services.get("alerts");
        assertThat(names(alerts.path("secrets"))).containsExactly("api-token");
        assertThat(alerts.at("/environment/GPULEDGER_API_TOKEN_FILE").asText()).isEqualTo("/run/secrets/api-token");
        assertThat(compose.at("/secrets/api-token/file").asText()).endsWith("./api-token}");
    }

    /**
     * A variable shows in `docker inspect` and every child process: no service is given a token, a
     * secret or a password in one, only the name of the file that holds it.
     */
    @Test
    void shouldPassNoSecretToAnyServiceAsAnEnvironmentVariable() {
        Pattern secretName = Pattern.compile("(?i).*(token|secret|password|jaas).*");
        services.fields().forEachRemaining(service -> service.getValue().path("environment").fields()
                .forEachRemaining(variable -> {
                    String name = variable.getKey();
                    String value = variable.getValue().asText();
                    if (secretName.matcher(name).matches()) {
                        assertThat(name).as(service.getKey() + ": a file's name only").endsWith("FILE");
                        assertThat(value).as(service.getKey() + ": " + name).startsWith("/run/secrets/");
                    }
                    assertThat(value)
                            .as(service.getKey() + ": " + name + " takes no secret from the host's environment")
                            .doesNotContainPattern("(?i)\\$\\{[^}]*(token|secret|password)");
                }));
    }

    /** No well-known password: Grafana's comes from a file the user makes, and the stack says so when it is missing. */
    @Test
    void shouldGiveGrafanaItsAdminPasswordFromARequiredSecretFile() {
        JsonNode grafana = services.get("grafana");
        assertThat(grafana.path("environment").has("GF_SECURITY_ADMIN_PASSWORD")).isFalse();
        assertThat(grafana.at("/environment/GF_SECURITY_ADMIN_PASSWORD__FILE").asText())
                .isEqualTo("/run/secrets/grafana-admin-password");
        assertThat(names(grafana.get("secrets"))).containsExactly("grafana-admin-password");
        assertThat(compose.at("/secrets/grafana-admin-password/file").asText())
                .startsWith("${GRAFANA_ADMIN_PASSWORD_FILE:?").contains("docs/operations.md#secrets");
    }

    @Test
    void shouldCheckHealthWithTheProbeTheImagesCarry() {
        for (String name : List.of("alerts", "agent")) {
            List<String> test = new ArrayList<>();
            services.get(name).at("/healthcheck/test").forEach(arg -> test.add(arg.asText()));
            assertThat(test).startsWith("CMD", ContainerImagesIT.JAVA).contains(HttpProbe.class.getName());
            assertThat(test.get(test.size() - 1)).startsWith("http://127.0.0.1:");
        }
    }

    private static List<String> names(JsonNode node) {
        List<String> names = new ArrayList<>();
        if (node.isArray()) {
            node.forEach(element -> names.add(element.asText()));
        } else {
            Iterator<String> fields = node.fieldNames();
            fields.forEachRemaining(names::add);
        }
        return names;
    }
}
