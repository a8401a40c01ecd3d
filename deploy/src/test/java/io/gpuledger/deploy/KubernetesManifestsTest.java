package io.gpuledger.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.gpuledger.model.Topic;
import io.gpuledger.model.Topics;
import io.gpuledger.testing.RequiredTool;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * deploy/k8s as {@code kubectl kustomize} renders it, the default and each overlay: what every
 * document needs, the topics against the registry, the pieces that must fit together (probes,
 * service ports, monitors, volumes, secrets). Where a schema validator is installed (.ci/run
 * installs one when it can), the built-in kinds are also checked against the Kubernetes schemas;
 * Strimzi's and the Prometheus operator's kinds are checked here by structure.
 */
class KubernetesManifestsTest {

    static final String NAMESPACE = "gpu-ledger";
    static final String VERSION = System.getProperty("gpuledger.version", "0.1.0-SNAPSHOT");

    @Test
    void shouldRenderDocumentsThatEachHaveAnApiVersionKindAndName() throws Exception {
        for (String dir : List.of("deploy/k8s", "deploy/k8s/overlays/small")) {
            List<JsonNode> documents = render(dir);
            assertThat(documents).as(dir).hasSizeGreaterThan(20);
            for (JsonNode document : documents) {
                assertThat(document.path("apiVersion").asText()).as(dir + ": " + document).isNotEmpty();
                assertThat(document.path("kind").asText()).as(dir + ": " + document).isNotEmpty();
                assertThat(document.at("/metadata/name").asText()).as(dir + ": " + document).isNotEmpty();
                if (!List.of("Namespace", "ClusterRole", "ClusterRoleBinding")
                        .contains(document.get("kind").asText())) {
                    assertThat(document.at("/metadata/namespace").asText()).as(name(document)).isEqualTo(NAMESPACE);
                }
            }
        }
    }

    @Test
    void shouldCreateEveryTopicOfTheRegistryWithItsSettingsOnTheClusterItDefines() throws Exception {
        List<JsonNode> documents = render("deploy/k8s");
        String cluster = one(documents, "Kafka").at("/metadata/name").asText();
        Map<String, Map<String, String>> rendered = new TreeMap<>();
        for (JsonNode topic : all(documents, "KafkaTopic")) {
            assertThat(topic.at("/metadata/labels/strimzi.io~1cluster").asText()).isEqualTo(cluster);
            assertThat(topic.at("/spec/partitions").asInt()).as(name(topic)).isPositive();
            assertThat(topic.at("/spec/replicas").asInt()).as(name(topic)).isEqualTo(3);
            Map<String, String> config = new TreeMap<>();
            topic.at("/spec/config").fields()
                    .forEachRemaining(entry -> config.put(entry.getKey(), entry.getValue().asText()));
            String name = topic.at("/spec/topicName").asText(topic.at("/metadata/name").asText());
            rendered.put(name, config);
        }
        Map<String, Map<String, String>> registry = new TreeMap<>();
        for (Topic<?, ?> topic : Topics.ALL) {
            registry.put(topic.name(), new TreeMap<>(topic.config()));
        }
        assertThat(rendered).isEqualTo(registry);
        assertThat(all(render("deploy/k8s/overlays/small"), "KafkaTopic"))
                .allSatisfy(topic -> assertThat(topic.at("/spec/replicas").asInt()).isEqualTo(1));
    }

    @Test
    void shouldRunKafkaInKraftModeOnANodePoolAtTheClientsVersion() throws Exception {
        List<JsonNode> documents = render("deploy/k8s");
        JsonNode kafka = one(documents, "Kafka");
        assertThat(kafka.at("/metadata/annotations/strimzi.io~1kraft").asText()).isEqualTo("enabled");
        assertThat(kafka.at("/metadata/annotations/strimzi.io~1node-pools").asText()).isEqualTo("enabled");
        assertThat(kafka.at("/spec/kafka/version").asText()).isEqualTo(System.getProperty("kafka.version", "4.1.2"));
        assertThat(kafka.at("/spec/kafka/config/auto.create.topics.enable").asBoolean(true)).isFalse();
        JsonNode pool = one(documents, "KafkaNodePool");
        assertThat(pool.at("/metadata/labels/strimzi.io~1cluster").asText())
                .isEqualTo(kafka.at("/metadata/name").asText());
        assertThat(names(pool.at("/spec/roles"))).containsExactlyInAnyOrder("controller", "broker");
        // The one listener: TLS with SCRAM, behind ACLs
        JsonNode listeners = kafka.at("/spec/kafka/listeners");
        assertThat(listeners).hasSize(1);
        assertThat(listeners.at("/0/tls").asBoolean()).isTrue();
        assertThat(listeners.at("/0/authentication/type").asText()).isEqualTo("scram-sha-512");
        assertThat(kafka.at("/spec/kafka/authorization/type").asText()).isEqualTo("simple");
        String bootstrap = kafka.at("/metadata/name").asText() + "-kafka-bootstrap:" + listeners.at("/0/port").asInt();
        for (JsonNode workload : workloads(documents)) {
            assertThat(env(workload).get("KAFKA_BOOTSTRAP_SERVERS")).as(name(workload)).isEqualTo(bootstrap);
        }
    }

    @Test
    void shouldRunTheAgentOnEveryGpuNodeWithoutTakingAGpu() throws Exception {
        JsonNode agent = one(render("deploy/k8s"), "DaemonSet");
        JsonNode pod = agent.at("/spec/template/spec");
        assertThat(pod.at("/nodeSelector/nvidia.com~1gpu.present").asText()).isEqualTo("true");
        assertThat(pod.get("tolerations"))
                .anySatisfy(t -> assertThat(t.get("key").asText()).isEqualTo("nvidia.com/gpu"));
        JsonNode container = pod.at("/containers/0");
        assertThat(container.at("/resources/limits").has("nvidia.com/gpu")).isFalse();
        assertThat(env(agent)).containsEntry("NVIDIA_VISIBLE_DEVICES", "all");
        assertThat(container.at("/ports/0/hostPort").asInt()).isEqualTo(9477);
        // On the pod network, so that its NetworkPolicy governs it, as the host's network would not
        assertThat(pod.path("hostNetwork").asBoolean(false)).isFalse();
        assertThat(mountPaths(container)).contains("/var/lib/gpu-ledger/agent-spool");
    }

    /**
     * To tell whose a shared GPU's processes are, the agent sees the host's PIDs (nvidia-smi names them so) and
     * reads their cgroups from the host's /proc, mounted read-only where proc.root points, and nothing else of the
     * host.
     */
    @Test
    void shouldLetTheAgentReadTheHostsProcessTableAndNothingElseOfTheHost() throws Exception {
        JsonNode agent = one(render("deploy/k8s"), "DaemonSet");
        JsonNode pod = agent.at("/spec/template/spec");
        assertThat(pod.path("hostPID").asBoolean(false)).isTrue();
        assertThat(pod.path("hostIPC").asBoolean(false)).isFalse();
        List<JsonNode> hostPaths = new ArrayList<>();
        pod.get("volumes").forEach(volume -> {
            if (volume.has("hostPath")) {
                hostPaths.add(volume);
            }
        });
        assertThat(hostPaths).singleElement().satisfies(volume -> {
            assertThat(volume.at("/hostPath/path").asText()).isEqualTo("/proc");
            JsonNode mount = mountOf(pod.at("/containers/0"), volume.get("name").asText());
            assertThat(mount.path("readOnly").asBoolean(false)).as("read-only").isTrue();
            assertThat(env(agent)).containsEntry("GPULEDGER_PROC_ROOT", mount.get("mountPath").asText());
        });
        assertThat(mountOf(pod.at("/containers/0"), "host-proc").get("mountPath").asText()).isEqualTo("/host/proc");
        JsonNode context = pod.at("/containers/0/securityContext");
        assertThat(context.path("privileged").asBoolean(false)).isFalse();
        assertThat(context.at("/capabilities/drop").toString()).contains("ALL");
        assertThat(context.at("/capabilities/add").isMissingNode()).isTrue();
    }

    /** The agent's service account reads the kubelet's pods and the DRA claims, and may change nothing. */
    @Test
    void shouldGrantTheAgentsServiceAccountOnlyReadingPodsAndDraClaims() throws Exception {
        List<JsonNode> documents = render("deploy/k8s");
        JsonNode agent = one(documents, "DaemonSet");
        String account = agent.at("/spec/template/spec/serviceAccountName").asText();
        assertThat(named(documents, "ServiceAccount", account).at("/metadata/namespace").asText())
                .isEqualTo(NAMESPACE);
        JsonNode binding = one(documents, "ClusterRoleBinding");
        assertThat(binding.at("/subjects")).singleElement().satisfies(subject -> {
            assertThat(subject.get("kind").asText()).isEqualTo("ServiceAccount");
            assertThat(subject.get("name").asText()).isEqualTo(account);
            assertThat(subject.get("namespace").asText()).isEqualTo(NAMESPACE);
        });
        assertThat(binding.at("/roleRef/kind").asText()).isEqualTo("ClusterRole");
        JsonNode role = named(documents, "ClusterRole", binding.at("/roleRef/name").asText());
        TreeSet<String> grants = new TreeSet<>();
        for (JsonNode rule : role.get("rules")) {
            assertThat(rule.has("resourceNames") || rule.has("nonResourceURLs")).as(rule.toString()).isFalse();
            for (JsonNode group : rule.get("apiGroups")) {
                for (JsonNode resource : rule.get("resources")) {
                    for (JsonNode verb : rule.get("verbs")) {
                        grants.add(group.asText() + "/" + resource.asText() + " " + verb.asText());
                    }
                }
            }
        }
        // nodes/pods, not nodes/proxy: the latter also opens the kubelet's exec; of DRA what the agent reads (its
        // pods' claims by name, every claim where the kubelet is not read, the node's slices), no watch
        assertThat(grants).containsExactlyInAnyOrder("/nodes/pods get", "resource.k8s.io/resourceclaims get",
                "resource.k8s.io/resourceclaims list", "resource.k8s.io/resourceslices list");
        assertThat(all(documents, "Role")).isEmpty();
        assertThat(all(documents, "RoleBinding")).isEmpty();
    }

    /**
     * The kubelet and the API server are asked as the service account: its token, renewed by the kubelet, and the
     * cluster CA as files of one read-only projected volume; the kubelet at the node's own address.
     */
    @Test
    void shouldPointTheAgentAtItsNodesKubeletAndTheApiServerWithTheServiceAccountsToken() throws Exception {
        JsonNode agent = one(render("deploy/k8s"), "DaemonSet");
        JsonNode pod = agent.at("/spec/template/spec");
        Map<String, String> env = env(agent);
        assertThat(env).containsEntry("GPULEDGER_KUBELET_URL", "https://$(NODE_IP):10250")
                .containsEntry("GPULEDGER_KUBERNETES_API_URL", "https://kubernetes.default.svc");
        List<String> names = new ArrayList<>();
        pod.at("/containers/0/env").forEach(variable -> names.add(variable.get("name").asText()));
        // $(VAR) is expanded only from a variable defined before it
        assertThat(names.indexOf("NODE_IP")).isNotNegative().isLessThan(names.indexOf("GPULEDGER_KUBELET_URL"));
        assertThat(pod.at("/containers/0/env").findValuesAsText("fieldPath")).contains("status.hostIP");
        for (String file : List.of("GPULEDGER_KUBELET_TOKEN_FILE", "GPULEDGER_KUBELET_CA_FILE",
                "GPULEDGER_KUBERNETES_TOKEN_FILE", "GPULEDGER_KUBERNETES_CA_FILE")) {
            String path = env.get(file);
            assertThat(path).as(file).isNotNull();
            JsonNode mount = null;
            for (JsonNode candidate : pod.at("/containers/0/volumeMounts")) {
                if (path.startsWith(candidate.get("mountPath").asText() + "/")) {
                    mount = candidate;
                }
            }
            assertThat(mount).as(file + ": a mount holding " + path).isNotNull();
            assertThat(mount.path("readOnly").asBoolean(false)).isTrue();
            JsonNode sources = volume(pod, mount.get("name").asText()).at("/projected/sources");
            String item = path.substring(path.lastIndexOf('/') + 1);
            assertThat(sources.toString()).as(file).contains("\"path\":\"" + item + "\"");
        }
        assertThat(volume(pod, "kubernetes-api").at("/projected/sources/0/serviceAccountToken/expirationSeconds")
                .asInt()).isPositive();
        assertThat(pod.path("automountServiceAccountToken").asBoolean(true)).as("only the projected token").isFalse();
    }

    private static JsonNode mountOf(JsonNode container, String volume) {
        for (JsonNode mount : container.path("volumeMounts")) {
            if (mount.get("name").asText().equals(volume)) {
                return mount;
            }
        }
        throw new AssertionError("no mount of " + volume);
    }

    private static JsonNode volume(JsonNode pod, String name) {
        for (JsonNode volume : pod.path("volumes")) {
            if (volume.get("name").asText().equals(name)) {
                return volume;
            }
        }
        throw new AssertionError("no volume " + name);
    }

    /**
     * The agent's endpoint is reached through a host port, so its writes need tokens bound to their job and node:
     * the agent holds the issuer's public keys only, a file of a ConfigMap, and no secret of its own to mint one.
     */
    @Test
    void shouldGiveTheAgentTheIssuersPublicKeysAsAFile() throws Exception {
        JsonNode agent = one(render("deploy/k8s"), "DaemonSet");
        assertThat(env(agent)).containsEntry("GPULEDGER_PROGRESS_ISSUER_KEYS_FILE",
                "/etc/gpu-ledger/token-issuer/issuer-keys");
        JsonNode pod = agent.at("/spec/template/spec");
        assertThat(pod.get("volumes")).anySatisfy(volume -> {
            assertThat(volume.at("/configMap/name").asText()).isEqualTo("gpu-ledger-token-issuer");
            assertThat(volume.at("/configMap/items/0/key").asText()).isEqualTo("issuer-keys");
        });
        assertThat(mountPaths(pod.at("/containers/0"))).contains("/etc/gpu-ledger/token-issuer");
        assertThat(agent.at("/spec/template/spec/containers/0/env").findValues("secretKeyRef"))
                .as("no token in an environment variable").isEmpty();
    }

    /** A variable would show in `kubectl describe` and every child process: docs/security.md. */
    @Test
    void shouldGiveTheAlertServiceItsApiTokenAsAFileOfASecret() throws Exception {
        JsonNode alerts = named(render("deploy/k8s"), "Deployment", "gpu-ledger-alerts");
        assertTokenIsAFileOfSecret(alerts, "GPULEDGER_API_TOKEN_FILE", "/etc/gpu-ledger/api-token/token",
                "gpu-ledger-api");
        assertThat(env(alerts)).doesNotContainKey("GPULEDGER_API_TOKEN").doesNotContainKey("GPULEDGER_API_READ_TOKEN");
        // the read role's token, a second key of the same Secret
        assertThat(env(alerts)).containsEntry("GPULEDGER_API_READ_TOKEN_FILE", "/etc/gpu-ledger/api-token/read-token");
        assertThat(secretVolumeHolding(alerts, "/etc/gpu-ledger/api-token/read-token").at("/secret/secretName")
                .asText()).isEqualTo("gpu-ledger-api");
        assertThat(alerts.at("/spec/template/spec/securityContext/fsGroup").asInt()).isEqualTo(10001);
    }

    /**
     * Finance's webhook is optional: its URL and secret are files of a Secret volume that may be
     * missing, where the service then runs without the receiver (docs/webhooks.md).
     */
    @Test
    void shouldGiveTheAlertServiceItsFinanceWebhookAsFilesOfAnOptionalSecret() throws Exception {
        JsonNode alerts = named(render("deploy/k8s"), "Deployment", "gpu-ledger-alerts");
        Map<String, String> env = env(alerts);
        List<String> variables = new ArrayList<>();
        alerts.at("/spec/template/spec/containers/0/env")
                .forEach(variable -> variables.add(variable.get("name").asText()));
        assertThat(variables).doesNotContain("GPULEDGER_WEBHOOKS_FINANCE_URL", "GPULEDGER_WEBHOOKS_FINANCE_SECRET");
        for (String variable
                : List.of("GPULEDGER_WEBHOOKS_FINANCE_URL_FILE", "GPULEDGER_WEBHOOKS_FINANCE_SECRET_FILE")) {
            assertThat(env).as(variable).containsKey(variable);
            JsonNode volume = secretVolumeHolding(alerts, env.get(variable));
            assertThat(volume.at("/secret/secretName").asText()).as(variable).isEqualTo("gpu-ledger-webhooks");
            assertThat(volume.at("/secret/optional").asBoolean()).as(variable).isTrue();
            assertThat(volume.at("/secret/defaultMode").asInt()).as(variable).isEqualTo(0440);
        }
    }

    /** A variable shows in `kubectl describe` and every child process: every Secret reaches a program as a file. */
    @Test
    void shouldPassNoSecretToAnyContainerAsAnEnvironmentVariable() throws Exception {
        for (String kustomization : List.of("deploy/k8s", "deploy/k8s/overlays/small")) {
            for (JsonNode document : render(kustomization)) {
                assertThat(document.findValues("secretKeyRef")).as(kustomization + ": " + name(document)).isEmpty();
                assertThat(document.findValues("envFrom")).as(kustomization + ": " + name(document))
                        .allSatisfy(from -> assertThat(from.findValues("secretRef")).isEmpty());
            }
        }
    }

    private static void assertTokenIsAFileOfSecret(JsonNode workload, String variable, String path, String secret) {
        JsonNode container = workload.at("/spec/template/spec/containers/0");
        String tokenFile = env(workload).get(variable);
        assertThat(tokenFile).isEqualTo(path);
        JsonNode mount = null;
        for (JsonNode candidate : container.get("volumeMounts")) {
            if (tokenFile.startsWith(candidate.get("mountPath").asText() + "/")) {
                mount = candidate;
            }
        }
        assertThat(mount).as("a mount holding " + tokenFile).isNotNull();
        assertThat(mount.get("readOnly").asBoolean()).isTrue();
        String volumeName = mount.get("name").asText();
        JsonNode volume = null;
        for (JsonNode candidate : workload.at("/spec/template/spec/volumes")) {
            if (candidate.get("name").asText().equals(volumeName)) {
                volume = candidate;
            }
        }
        assertThat(volume.at("/secret/secretName").asText()).isEqualTo(secret);
        assertThat(volume.at("/secret/items/0/path").asText()).isEqualTo("token");
        // readable by the owner and the pod's group, nobody else: 0440
        assertThat(volume.at("/secret/defaultMode").asInt()).isEqualTo(0440);
    }

    /** Each program is its own Kafka user, its password a file of the Secret Strimzi makes, never a variable. */
    @Test
    void shouldGiveEachProgramItsOwnKafkaUserAsAFileOfItsSecret() throws Exception {
        List<JsonNode> documents = render("deploy/k8s");
        String cluster = one(documents, "Kafka").at("/metadata/name").asText();
        Map<String, JsonNode> users = new TreeMap<>();
        for (JsonNode user : all(documents, "KafkaUser")) {
            assertThat(user.at("/metadata/labels/strimzi.io~1cluster").asText()).isEqualTo(cluster);
            assertThat(user.at("/spec/authentication/type").asText()).isEqualTo("scram-sha-512");
            assertThat(user.at("/spec/authorization/type").asText()).isEqualTo("simple");
            users.put(user.at("/metadata/name").asText(), user);
        }
        assertThat(users).containsOnlyKeys("gpu-ledger-agent", "gpu-ledger-prices", "gpu-ledger-cost-engine",
                "gpu-ledger-alerts");
        List<String> used = new ArrayList<>();
        for (JsonNode workload : workloads(documents)) {
            Map<String, String> env = env(workload);
            assertThat(env).as(name(workload)).containsEntry("GPULEDGER_KAFKA_SECURITY_PROTOCOL", "SASL_SSL")
                    .containsEntry("GPULEDGER_KAFKA_SASL_MECHANISM", "SCRAM-SHA-512")
                    .doesNotContainKey("GPULEDGER_KAFKA_SASL_JAAS_CONFIG");
            JsonNode userVolume = secretVolumeHolding(workload, env.get("GPULEDGER_KAFKA_SETTINGS_DIR")
                    + "/sasl.jaas.config");
            assertThat(userVolume.at("/secret/items")).as(name(workload) + ": the JAAS line alone").hasSize(1);
            assertThat(userVolume.at("/secret/defaultMode").asInt()).isEqualTo(0440);
            used.add(userVolume.at("/secret/secretName").asText());
            JsonNode caVolume = secretVolumeHolding(workload, env.get("GPULEDGER_KAFKA_SSL_TRUSTSTORE_LOCATION"));
            assertThat(caVolume.at("/secret/secretName").asText()).isEqualTo(cluster + "-cluster-ca-cert");
            assertThat(workload.at("/spec/template/spec/containers/0/env").findValues("secretKeyRef"))
                    .extracting(ref -> ref.get("name").asText()).as(name(workload)).noneMatch(users::containsKey);
        }
        assertThat(used).containsExactlyInAnyOrder("gpu-ledger-agent", "gpu-ledger-cost-engine", "gpu-ledger-alerts");
    }

    /**
     * The ACL table of docs/operations.md and the KafkaUsers grant the same: reads are Read and
     * Describe on a topic, writes Write and Describe; the last column names prefixed topics (All),
     * groups (Read, Describe) and transactional ids (Write, Describe).
     */
    @Test
    void shouldGrantEachKafkaUserExactlyTheAclsOfTheOperationsTable() throws Exception {
        Map<String, TreeSet<String>> manifests = new TreeMap<>();
        for (JsonNode user : all(render("deploy/k8s"), "KafkaUser")) {
            TreeSet<String> grants = new TreeSet<>();
            for (JsonNode acl : user.at("/spec/authorization/acls")) {
                JsonNode resource = acl.get("resource");
                for (JsonNode operation : acl.get("operations")) {
                    grants.add(grant(resource.get("type").asText(), resource.get("name").asText(),
                            resource.get("patternType").asText(), operation.asText()));
                }
            }
            manifests.put(user.at("/metadata/name").asText(), grants);
        }
        Map<String, TreeSet<String>> documented = new TreeMap<>();
        Pattern quoted = Pattern.compile("`([^`]+)`");
        Pattern named = Pattern.compile("(topics|groups?|transactional ids)( prefixed)? `([^`]+)`");
        for (String line : Files.readAllLines(RepositoryFiles.resolve("docs/operations.md"))) {
            if (!line.startsWith("| `gpu-ledger-")) {
                continue;
            }
            String[] cells = line.split(" \\| ");
            TreeSet<String> grants = new TreeSet<>();
            for (String topic : topics(quoted.matcher(cells[1]))) {
                grants.add(grant("topic", topic, "literal", "Read"));
                grants.add(grant("topic", topic, "literal", "Describe"));
            }
            for (String topic : topics(quoted.matcher(cells[2]))) {
                grants.add(grant("topic", topic, "literal", "Write"));
                grants.add(grant("topic", topic, "literal", "Describe"));
            }
            Matcher other = named.matcher(cells[3]);
            while (other.find()) {
                String pattern = other.group(2) == null ? "literal" : "prefix";
                String name = other.group(3);
                switch (other.group(1)) {
                    case "topics" -> grants.add(grant("topic", name, pattern, "All"));
                    case "transactional ids" -> {
                        grants.add(grant("transactionalId", name, pattern, "Write"));
                        grants.add(grant("transactionalId", name, pattern, "Describe"));
                    }
                    default -> {
                        grants.add(grant("group", name, pattern, "Read"));
                        grants.add(grant("group", name, pattern, "Describe"));
                    }
                }
            }
            Matcher principal = quoted.matcher(cells[0]);
            assertThat(principal.find()).isTrue();
            documented.put(principal.group(1), grants);
        }
        assertThat(manifests).isEqualTo(documented);
    }

    /** The backquoted topic names; {@code *.dlq.v1} stands for every such topic of the registry. */
    private static List<String> topics(Matcher quoted) {
        List<String> names = new ArrayList<>();
        while (quoted.find()) {
            String name = quoted.group(1);
            if (name.startsWith("*")) {
                Topics.ALL.stream().map(Topic::name).filter(topic -> topic.endsWith(name.substring(1)))
                        .forEach(names::add);
            } else {
                names.add(name);
            }
        }
        return names;
    }

    private static String grant(String type, String name, String pattern, String operation) {
        return type + " " + name + " (" + pattern + "): " + operation;
    }

    /** The Secret volume mounted read-only where {@code path} lies, projecting the key named like the file. */
    private static JsonNode secretVolumeHolding(JsonNode workload, String path) {
        JsonNode container = workload.at("/spec/template/spec/containers/0");
        for (JsonNode mount : container.get("volumeMounts")) {
            String dir = mount.get("mountPath").asText();
            if (path.startsWith(dir + "/")) {
                assertThat(mount.get("readOnly").asBoolean()).as(name(workload) + ": " + dir).isTrue();
                for (JsonNode volume : workload.at("/spec/template/spec/volumes")) {
                    if (volume.get("name").equals(mount.get("name"))) {
                        String file = path.substring(dir.length() + 1);
                        assertThat(volume.at("/secret/items")).as(name(workload) + ": " + path)
                                .anySatisfy(item -> assertThat(item.get("path").asText()).isEqualTo(file));
                        return volume;
                    }
                }
            }
        }
        throw new AssertionError(name(workload) + ": no Secret volume holds " + path);
    }

    @Test
    void shouldKeepEachEngineInstancesNameAndStateAcrossRestarts() throws Exception {
        JsonNode engine = one(render("deploy/k8s"), "StatefulSet");
        JsonNode container = engine.at("/spec/template/spec/containers/0");
        assertThat(names(container.get("args"))).containsExactly("engine");
        assertThat(container.at("/env").findValues("fieldPath")).extracting(JsonNode::asText).contains("metadata.name");
        String stateDir = env(engine).get("GPULEDGER_STATE_DIR");
        String claim = engine.at("/spec/volumeClaimTemplates/0/metadata/name").asText();
        assertThat(container.get("volumeMounts")).anySatisfy(mount -> {
            assertThat(mount.get("name").asText()).isEqualTo(claim);
            assertThat(mount.get("mountPath").asText()).isEqualTo(stateDir);
        });
        assertThat(engine.at("/spec/template/spec/terminationGracePeriodSeconds").asInt()).isGreaterThanOrEqualTo(30);
    }

    @Test
    void shouldProbeExposeAndMonitorTheAlertService() throws Exception {
        List<JsonNode> documents = render("deploy/k8s");
        JsonNode alerts = named(documents, "Deployment", "gpu-ledger-alerts");
        JsonNode container = alerts.at("/spec/template/spec/containers/0");
        assertThat(container.at("/readinessProbe/httpGet/path").asText()).isEqualTo("/q/health/ready");
        assertThat(container.at("/livenessProbe/httpGet/path").asText()).isEqualTo("/q/health/live");
        JsonNode service = named(documents, "Service", "gpu-ledger-alerts");
        service.at("/spec/selector").fields().forEachRemaining(label -> assertThat(
                alerts.at("/spec/template/metadata/labels").path(label.getKey()).asText())
                        .isEqualTo(label.getValue().asText()));
        assertThat(service.at("/spec/ports/0/targetPort").asText()).isEqualTo(container.at("/ports/0/name").asText());
        JsonNode monitor = one(documents, "ServiceMonitor");
        assertThat(monitor.get("apiVersion").asText()).isEqualTo("monitoring.coreos.com/v1");
        monitor.at("/spec/selector/matchLabels").fields().forEachRemaining(label -> assertThat(
                service.at("/metadata/labels").path(label.getKey()).asText()).isEqualTo(label.getValue().asText()));
        // Metrics and probes on the management port, which needs no token; the API's port does
        assertThat(monitor.at("/spec/endpoints/0/port").asText()).isEqualTo("management")
                .isEqualTo(service.at("/spec/ports/1/name").asText());
        assertThat(service.at("/spec/ports/1/port").asInt()).isEqualTo(9000);
        assertThat(container.at("/readinessProbe/httpGet/port").asText()).isEqualTo("management");
        assertThat(monitor.at("/spec/endpoints/0/path").asText()).isEqualTo("/q/metrics");
    }

    @Test
    void shouldProbeAndMonitorEachCostEngineInstanceOnItsMetricsPort() throws Exception {
        List<JsonNode> documents = render("deploy/k8s");
        JsonNode engine = named(documents, "StatefulSet", "gpu-ledger-cost-engine");
        JsonNode container = engine.at("/spec/template/spec/containers/0");
        assertThat(container.at("/ports/0/name").asText()).isEqualTo("metrics");
        // the engine's default port (CostEngineOptions: 9404), which the manifest does not override
        assertThat(container.at("/ports/0/containerPort").asInt()).isEqualTo(9404);
        assertThat(env(engine)).doesNotContainKey("GPULEDGER_METRICS_PORT");
        assertThat(container.at("/readinessProbe/httpGet/path").asText()).isEqualTo("/health/ready");
        assertThat(container.at("/livenessProbe/httpGet/path").asText()).isEqualTo("/health/live");
        assertThat(container.at("/readinessProbe/httpGet/port").asText()).isEqualTo("metrics");
        assertThat(container.at("/livenessProbe/httpGet/port").asText()).isEqualTo("metrics");
        JsonNode monitor = named(documents, "PodMonitor", "gpu-ledger-cost-engine");
        assertThat(monitor.get("apiVersion").asText()).isEqualTo("monitoring.coreos.com/v1");
        monitor.at("/spec/selector/matchLabels").fields().forEachRemaining(label -> assertThat(
                engine.at("/spec/template/metadata/labels").path(label.getKey()).asText())
                .isEqualTo(label.getValue().asText()));
        assertThat(monitor.at("/spec/podMetricsEndpoints/0/port").asText()).isEqualTo("metrics");
        assertThat(monitor.at("/spec/podMetricsEndpoints/0/path").asText()).isEqualTo("/metrics");
        JsonNode policy = named(documents, "NetworkPolicy", "gpu-ledger-cost-engine");
        assertThat(policy.at("/spec/ingress/0/ports/0/port").asInt()).isEqualTo(9404);
    }

    /**
     * Default deny, then each program what it needs: a policy that selects every pod of the
     * namespace and allows nothing in either direction; for each workload a policy of its own that
     * names both directions; and all the policies that select it together open exactly the ports
     * its containers listen on, and let it out only on named ports, DNS and Kafka's listener among
     * them. Seen to fail with the agent's policy removed, with 9000 dropped from the alert
     * service's, with the default deny's Egress removed and with the Kafka clients' policy removed.
     */
    @Test
    void shouldDenyByDefaultAndOpenToEachWorkloadOnlyItsContainersPorts() throws Exception {
        for (String kustomization : List.of("deploy/k8s", "deploy/k8s/overlays/small")) {
            List<JsonNode> documents = render(kustomization);
            List<JsonNode> policies = all(documents, "NetworkPolicy");
            assertThat(policies).as(kustomization + ": the default deny").anySatisfy(policy -> {
                assertThat(policy.at("/spec/podSelector").size()).isZero();
                assertThat(names(policy.at("/spec/policyTypes"))).containsExactlyInAnyOrder("Ingress", "Egress");
                assertThat(policy.at("/spec/ingress").size() + policy.at("/spec/egress").size()).isZero();
            });
            JsonNode kafka = one(documents, "Kafka");
            String cluster = kafka.at("/metadata/name").asText();
            int listener = kafka.at("/spec/kafka/listeners/0/port").asInt();
            for (JsonNode workload : workloads(documents)) {
                String name = kustomization + ": " + name(workload);
                JsonNode labels = workload.at("/spec/template/metadata/labels");
                List<JsonNode> selecting = policies.stream().filter(policy -> selects(policy, labels)).toList();
                assertThat(selecting).as(name + ": a policy of its own with both directions").anySatisfy(policy -> {
                    assertThat(policy.at("/spec/podSelector/matchLabels/app.kubernetes.io~1name").asText())
                            .isEqualTo(labels.path("app.kubernetes.io/name").asText());
                    assertThat(names(policy.at("/spec/policyTypes"))).containsExactlyInAnyOrder("Ingress", "Egress");
                });
                TreeSet<Integer> listening = new TreeSet<>();
                Map<String, Integer> named = new TreeMap<>();
                for (JsonNode container : workload.at("/spec/template/spec/containers")) {
                    for (JsonNode port : container.path("ports")) {
                        listening.add(port.get("containerPort").asInt());
                        named.put(port.path("name").asText(), port.get("containerPort").asInt());
                    }
                }
                TreeSet<Integer> opened = new TreeSet<>();
                TreeSet<Integer> out = new TreeSet<>();
                for (JsonNode policy : selecting) {
                    for (JsonNode rule : policy.at("/spec/ingress")) {
                        assertThat(rule.path("ports")).as(name + ": every rule names its ports").isNotEmpty();
                        rule.get("ports").forEach(port -> opened.add(port.get("port").isInt()
                                ? port.get("port").asInt() : named.getOrDefault(port.get("port").asText(), -1)));
                    }
                    for (JsonNode rule : policy.at("/spec/egress")) {
                        assertThat(rule.path("ports")).as(name + ": every rule names its ports").isNotEmpty();
                        rule.get("ports").forEach(port -> out.add(port.get("port").asInt()));
                        if (rule.get("ports").findValuesAsText("port").contains(String.valueOf(listener))) {
                            assertThat(rule.at("/to/0/podSelector/matchLabels/strimzi.io~1cluster").asText())
                                    .as(name + ": Kafka's pods").isEqualTo(cluster);
                        }
                    }
                }
                assertThat(opened).as(name + ": the ports let in").isEqualTo(listening);
                assertThat(out).as(name + ": out to DNS and Kafka").contains(53, listener);
            }
        }
    }

    /** Whether the policy's podSelector (matchLabels only: the manifests use nothing else) selects these labels. */
    private static boolean selects(JsonNode policy, JsonNode labels) {
        JsonNode selector = policy.at("/spec/podSelector");
        assertThat(selector.has("matchExpressions")).as(name(policy)).isFalse();
        boolean all = true;
        for (Map.Entry<String, JsonNode> label : (Iterable<Map.Entry<String, JsonNode>>) () -> selector
                .path("matchLabels").fields()) {
            all &= labels.path(label.getKey()).asText().equals(label.getValue().asText());
        }
        return all;
    }

    @Test
    void shouldRunTwoAlertServiceReplicasOfWhichOneIsActiveByALease() throws Exception {
        JsonNode alerts = named(render("deploy/k8s"), "Deployment", "gpu-ledger-alerts");
        assertThat(alerts.at("/spec/replicas").asInt()).isEqualTo(2);
        // Without the lease two replicas would split the partitions and judge on half the fleet each
        assertThat(env(alerts)).containsEntry("GPULEDGER_REPLICA_LEASE", "true");
        // and each needs a name of its own in the groups
        assertThat(alerts.at("/spec/template/spec/containers/0/env").findValuesAsText("fieldPath"))
                .contains("metadata.name");
        assertThat(alerts.at("/spec/strategy/type").asText()).isEqualTo("Recreate");
    }

    @Test
    void shouldSpreadTheCostEngineOverNodesAndLetDisruptionsTakeOneInstanceAtATime() throws Exception {
        List<JsonNode> documents = render("deploy/k8s");
        JsonNode engine = named(documents, "StatefulSet", "gpu-ledger-cost-engine");
        JsonNode labels = engine.at("/spec/template/metadata/labels");
        // Instances prefer different nodes: one node's loss moves one instance's partitions
        JsonNode spread = engine.at("/spec/template/spec/affinity/podAntiAffinity"
                + "/preferredDuringSchedulingIgnoredDuringExecution/0/podAffinityTerm");
        assertThat(spread.at("/topologyKey").asText()).isEqualTo("kubernetes.io/hostname");
        spread.at("/labelSelector/matchLabels").fields().forEachRemaining(label ->
                assertThat(labels.path(label.getKey()).asText()).isEqualTo(label.getValue().asText()));
        // A drain or an upgrade takes one at a time, and never blocks a one-instance installation
        JsonNode budget = named(documents, "PodDisruptionBudget", "gpu-ledger-cost-engine");
        assertThat(budget.at("/spec/maxUnavailable").asInt()).isEqualTo(1);
        assertThat(budget.at("/spec/minAvailable").isMissingNode()).isTrue();
        budget.at("/spec/selector/matchLabels").fields().forEachRemaining(label ->
                assertThat(labels.path(label.getKey()).asText()).isEqualTo(label.getValue().asText()));
    }

    @Test
    void shouldReferToSecretsAndCommitNone() throws Exception {
        List<JsonNode> documents = render("deploy/k8s");
        assertThat(all(documents, "Secret")).isEmpty();
        List<String> secrets = new ArrayList<>();
        documents.forEach(document -> document.findValues("secretKeyRef")
                .forEach(ref -> secrets.add(ref.get("name").asText() + "/" + ref.get("key").asText())));
        // Secrets mounted as files: each item of each secret volume
        documents.forEach(document -> document.findValues("secret").forEach(volume -> volume.path("items")
                .forEach(item -> secrets.add(volume.get("secretName").asText() + "/" + item.get("key").asText()))));
        assertThat(secrets).contains("gpu-ledger-api/token", "gpu-ledger-api/read-token",
                "gpu-ledger-webhooks/finance-url", "gpu-ledger-webhooks/finance-secret");
        try (Stream<Path> files = Files.walk(RepositoryFiles.resolve("deploy/k8s"))) {
            files.filter(file -> file.toString().endsWith(".yaml") && !file.toString().contains("node_modules"))
                    .forEach(file -> assertThat(read(file)).as(file.toString())
                    .doesNotContainPattern("(?m)^kind:\\s*Secret\\s*$"));
        }
    }

    @Test
    void shouldRunEveryContainerAsItsNonRootUserFromThisBuildsImages() throws Exception {
        for (JsonNode workload : workloads(render("deploy/k8s"))) {
            JsonNode pod = workload.at("/spec/template/spec");
            assertThat(pod.at("/securityContext/runAsNonRoot").asBoolean()).as(name(workload)).isTrue();
            assertThat(pod.at("/securityContext/runAsUser").asInt()).as(name(workload)).isEqualTo(10001);
            for (JsonNode container : pod.get("containers")) {
                assertThat(container.get("image").asText()).as(name(workload))
                        .matches("gpu-ledger-(agent|engine|alerts):" + VERSION.replace(".", "\\."));
                assertThat(container.at("/securityContext/readOnlyRootFilesystem").asBoolean()).isTrue();
                assertThat(mountPaths(container)).as(name(workload)).contains("/tmp");
            }
        }
    }

    @Test
    void shouldOfferEveryDashboardToTheGrafanaSidecar() throws Exception {
        JsonNode dashboards = named(render("deploy/k8s"), "ConfigMap", "gpu-ledger-dashboards");
        assertThat(dashboards.at("/metadata/labels/grafana_dashboard").asText()).isEqualTo("1");
        TreeSet<String> shipped = new TreeSet<>();
        Path dir = RepositoryFiles.resolve("grafana/dashboards");
        if (Files.isDirectory(dir)) {
            try (Stream<Path> files = Files.list(dir)) {
                files.map(file -> file.getFileName().toString()).filter(name -> name.endsWith(".json"))
                        .forEach(shipped::add);
            }
        }
        TreeSet<String> inConfigMap = new TreeSet<>();
        dashboards.path("data").fieldNames().forEachRemaining(inConfigMap::add);
        assertThat(inConfigMap).as("grafana/kustomization.yaml lists every grafana/dashboards/*.json")
                .isEqualTo(shipped);
    }

    @Test
    void shouldPassTheKubernetesSchemasWhereAValidatorIsInstalled(@TempDir Path dir) throws Exception {
        // kubernetes-validate (Python) where it is installed, else the schemas of the npm package
        // kubernetes-models through deploy/k8s/schema-check (`npm install` there); .ci/run tries both.
        Optional<Path> validator = RequiredTool.find("kubernetes-validate");
        Optional<Path> node = RequiredTool.find("node");
        Path check = RepositoryFiles.resolve("deploy/k8s/schema-check");
        boolean models = node.isPresent() && Files.isDirectory(check.resolve("node_modules/kubernetes-models"));
        RequiredTool.assume(validator.isPresent() || models,
                "no schema validator: pip install kubernetes-validate, or npm install in deploy/k8s/schema-check");
        for (String kustomization : List.of("deploy/k8s", "deploy/k8s/overlays/small")) {
            StringBuilder builtIn = new StringBuilder();
            for (JsonNode document : render(kustomization)) {
                if (isBuiltIn(document.get("apiVersion").asText())) {
                    builtIn.append("---\n").append(new YAMLMapper().writeValueAsString(document));
                }
            }
            Path file = dir.resolve(kustomization.replace('/', '-') + ".yaml");
            Files.writeString(file, builtIn);
            List<String> command = validator.isPresent()
                    ? List.of(validator.get().toString(), "--strict", file.toString())
                    : List.of(node.get().toString(), check.resolve("check.mjs").toString(), file.toString());
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(process.waitFor(120, TimeUnit.SECONDS)).isTrue();
            assertThat(process.exitValue()).as(kustomization + ":\n" + output).isZero();
            assertThat(output).doesNotContain("INVALID");
        }
    }

    /** Core kinds and those of the kubernetes.io API groups; the rest come from operators' CRDs. */
    static boolean isBuiltIn(String apiVersion) {
        if (!apiVersion.contains("/")) {
            return true;
        }
        String group = apiVersion.substring(0, apiVersion.indexOf('/'));
        return !group.contains(".") || group.endsWith(".k8s.io");
    }

    static List<JsonNode> render(String kustomization) throws Exception {
        Path kubectl = RequiredTool.require("kubectl");
        Process process = new ProcessBuilder(kubectl.toString(), "kustomize",
                RepositoryFiles.resolve(kustomization).toString()).redirectError(ProcessBuilder.Redirect.PIPE).start();
        byte[] out = process.getInputStream().readAllBytes();
        String err = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as("kubectl kustomize " + kustomization + ": " + err).isZero();
        List<JsonNode> documents = new ArrayList<>();
        try (MappingIterator<JsonNode> it = new YAMLMapper().readerFor(JsonNode.class).readValues(out)) {
            while (it.hasNext()) {
                JsonNode document = it.next();
                if (document != null && !document.isNull() && !document.isMissingNode() && document.size() > 0) {
                    documents.add(document);
                }
            }
        }
        return documents;
    }

    private static List<JsonNode> all(List<JsonNode> documents, String kind) {
        return documents.stream().filter(document -> document.get("kind").asText().equals(kind)).toList();
    }

    private static JsonNode one(List<JsonNode> documents, String kind) {
        List<JsonNode> found = all(documents, kind);
        assertThat(found).as(kind).hasSize(1);
        return found.get(0);
    }

    private static JsonNode named(List<JsonNode> documents, String kind, String name) {
        return all(documents, kind).stream().filter(document -> document.at("/metadata/name").asText().equals(name))
                .findFirst().orElseThrow(() -> new AssertionError("no " + kind + " " + name));
    }

    private static List<JsonNode> workloads(List<JsonNode> documents) {
        return documents.stream().filter(document -> List.of("Deployment", "StatefulSet", "DaemonSet")
                .contains(document.get("kind").asText())).toList();
    }

    private static Map<String, String> env(JsonNode workload) {
        Map<String, String> env = new TreeMap<>();
        for (JsonNode variable : workload.at("/spec/template/spec/containers/0/env")) {
            if (variable.has("value")) {
                env.put(variable.get("name").asText(), variable.get("value").asText());
            }
        }
        return env;
    }

    private static List<String> mountPaths(JsonNode container) {
        List<String> paths = new ArrayList<>();
        container.path("volumeMounts").forEach(mount -> paths.add(mount.get("mountPath").asText()));
        return paths;
    }

    private static List<String> names(JsonNode array) {
        List<String> names = new ArrayList<>();
        array.forEach(element -> names.add(element.asText()));
        return names;
    }

    private static String name(JsonNode document) {
        return document.path("kind").asText() + " " + document.at("/metadata/name").asText();
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
