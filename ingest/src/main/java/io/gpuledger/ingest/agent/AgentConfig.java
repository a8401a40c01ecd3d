package io.gpuledger.ingest.agent;

import io.gpuledger.ingest.agent.cloud.AwsImds;
import io.gpuledger.ingest.agent.cloud.AzureMetadata;
import io.gpuledger.ingest.agent.cloud.GcpMetadata;
import io.gpuledger.ingest.agent.collect.DcgmCollector;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeSet;

/**
 * The agent's settings: defaults, overridden by a properties file, overridden by environment
 * variables. Each key {@code some.key-name} has the variable {@code GPULEDGER_SOME_KEY_NAME}
 * (and {@code kafka.bootstrap.servers} the usual {@code KAFKA_BOOTSTRAP_SERVERS}). A key the
 * agent does not know, in the file, is an error: a typo must not silently leave a default in place.
 */
public final class AgentConfig {

    /** Every key, with its default ("" for none) and what it means. */
    static final Map<String, String[]> KEYS = keys(
            "kafka.bootstrap.servers", "", "Kafka cluster to publish to (required unless --dry-run)",
            "interval", "10", "seconds between two samples of a GPU",
            "nvidia-smi.enabled", "true", "run the nvidia-smi collector",
            "nvidia-smi.command", "", "command whose output is read as nvidia-smi CSV (default: nvidia-smi --query-gpu="
                    + String.join(",", io.gpuledger.ingest.agent.collect.NvidiaSmiCsv.DEFAULT_FIELDS)
                    + " --format=csv,noheader,nounits --loop-ms=<interval>)",
            "dcgm.enabled", "true", "scrape dcgm-exporter",
            "dcgm.url", DcgmCollector.DEFAULT_URL, "dcgm-exporter metrics URL",
            "dcgm.job-labels", "pod", "dcgm-exporter labels naming the job of a GPU, first present wins",
            "dcgm.team-labels", "namespace", "dcgm-exporter labels naming the team of a GPU, first present wins",
            "share.policy", "sm", "how a GPU used by several jobs is split among them: sm (their SM time),"
                    + " memory (their memory) or even (each process alike)",
            "share.sources", "auto", "where the agent sees who uses each GPU: auto (dcgm-exporter's per-pod series,"
                    + " then HAMi where hami.url is set, then nvidia-smi's process lists where the nvidia-smi collector"
                    + " runs), none, or a list of dcgm-exporter, hami, nvidia-smi",
            "hami.url", "", "HAMi's vGPU monitor metrics URL (its per-container metrics); none by default",
            "processes.nvidia-smi", "nvidia-smi", "the nvidia-smi program run for the GPUs' process lists",
            "proc.root", "/proc", "the host's process table, where each process's cgroup and environment are read",
            "kubelet.url", "", "the kubelet whose GET /pods names the pods of processes and of HAMi's containers"
                    + " (e.g. http://127.0.0.1:10255); none by default: processes in pods stay unattributed",
            "kubelet.token-file", "", "file holding a bearer token to present to the kubelet",
            "kubelet.ca-file", "", "PEM certificates to trust for the kubelet (default: the JVM's trust store)",
            "kubelet.job-labels", "", "pod labels naming a pod's job, first present wins (default: the pod's name)",
            "kubelet.team-labels", "", "pod labels naming its team, first present wins (default: its namespace)",
            "kubernetes.job-ids", "pod", "how a job named after its pod (no job label names it) is written, by every"
                    + " source alike: pod (its name), namespace/pod (its namespace and name, so that pods of one"
                    + " name in two namespaces are two jobs), workload or namespace/workload (the controller that"
                    + " made it: a Deployment's replicas are one job; needs kubelet.url); a job's own reports must"
                    + " name it the same way",
            "kubernetes.api-url", "", "the Kubernetes API server whose DRA ResourceClaims and ResourceSlices name the"
                    + " pods holding this node's GPUs (e.g. https://kubernetes.default.svc); none by default",
            "kubernetes.token-file", "", "file holding a bearer token to present to the API server",
            "kubernetes.ca-file", "", "PEM certificates to trust for the API server (default: the JVM's trust store)",
            "kubernetes.node-name", "", "this node's name, as its ResourceSlices name it (default: host)",
            "cloud", "auto", "aws, gcp, azure, none, or auto (ask each metadata service)",
            "aws.imds-url", AwsImds.DEFAULT_URL, "AWS instance metadata service",
            "gcp.metadata-url", GcpMetadata.DEFAULT_URL, "GCP metadata server",
            "azure.metadata-url", AzureMetadata.DEFAULT_URL, "Azure instance metadata service",
            "notices.interval", "5", "seconds between two polls for spot and maintenance notices",
            "progress.enabled", "true",
            "serve POST /v1/progress, POST /v1/instance/stopping, GET /health and GET /metrics",
            "progress.host", "127.0.0.1", "address of that endpoint: the node's own processes report to it",
            "progress.port", "9477", "port of that endpoint (0: any free port)",
            "progress.issuer-keys-file", "", "file holding the public keys of the issuer of the tokens its POSTs"
                    + " must present (Authorization: Bearer; gpu-ledger token); required unless progress.host is a"
                    + " loopback address",
            "spool.dir", ".gpu-ledger/agent-spool", "where records wait while Kafka is unreachable",
            "spool.max-bytes", String.valueOf(256L * 1024 * 1024), "bound of the spool; oldest records go first",
            "spool.fsync", "1", "when spooled records are synced to disk: always (every record), never (left to the"
                    + " operating system), or every so many seconds",
            "producer.buffer-bytes", String.valueOf(4L * 1024 * 1024), "memory for records on their way to Kafka",
            "host", "", "host name (default: cloud metadata, else the system's)",
            "instance-id", "", "instance id (default: cloud metadata, else the host name)",
            "instance-type", "", "instance type (default: cloud metadata)",
            "provider", "", "cloud provider, as in the price catalog (default: the cloud detected)",
            "region", "", "region (default: cloud metadata)",
            "lifecycle", "", "on-demand, spot or reserved (default: cloud metadata; reserved must be said here)",
            "job", "", "job of every GPU that no collector or report names (default: unknown)",
            "team", "", "team of that job");

    private final Map<String, String> values;

    private AgentConfig(Map<String, String> values) {
        this.values = values;
    }

    /**
     * @param file the properties file of {@code --config}, if any
     * @param env  the environment (System.getenv() outside tests)
     */
    public static AgentConfig load(Optional<Path> file, Map<String, String> env) {
        Map<String, String> values = new LinkedHashMap<>();
        KEYS.forEach((key, spec) -> values.put(key, spec[0]));
        if (file.isPresent()) {
            Properties props = new Properties();
            try (Reader reader = Files.newBufferedReader(file.get(), StandardCharsets.UTF_8)) {
                props.load(reader);
            } catch (IOException e) {
                throw new IllegalArgumentException("cannot read config " + file.get() + ": " + e.getMessage(), e);
            }
            TreeSet<String> unknown = new TreeSet<>(props.stringPropertyNames());
            unknown.removeAll(KEYS.keySet());
            if (!unknown.isEmpty()) {
                throw new IllegalArgumentException(file.get() + ": unknown key(s) " + unknown + "; known keys: "
                        + String.join(", ", KEYS.keySet()));
            }
            props.stringPropertyNames().forEach(key -> values.put(key, props.getProperty(key).strip()));
        }
        for (String key : KEYS.keySet()) {
            String fromEnv = env.get(envName(key));
            if (fromEnv != null) {
                values.put(key, fromEnv.strip());
            }
        }
        return new AgentConfig(values);
    }

    public static String envName(String key) {
        if (key.equals("kafka.bootstrap.servers")) {
            return "KAFKA_BOOTSTRAP_SERVERS";
        }
        return "GPULEDGER_" + key.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
    }

    /** The value of {@code key}, empty when it has none. */
    public Optional<String> get(String key) {
        requireKnown(key);
        String value = values.get(key);
        return value == null || value.isEmpty() ? Optional.empty() : Optional.of(value);
    }

    public String text(String key) {
        return get(key).orElseThrow(() -> new IllegalArgumentException(
                "no value for " + key + " (set it in the config file or " + envName(key) + ")"));
    }

    public boolean flag(String key) {
        String value = text(key).toLowerCase(Locale.ROOT);
        if (!value.equals("true") && !value.equals("false")) {
            throw new IllegalArgumentException(key + " must be true or false, was '" + value + "'");
        }
        return value.equals("true");
    }

    public long number(String key) {
        String value = text(key);
        try {
            long number = Long.parseLong(value);
            if (number <= 0) {
                throw new NumberFormatException();
            }
            return number;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + " must be a positive whole number, was '" + value + "'");
        }
    }

    /** A TCP port; 0 means any free port. */
    public int port(String key) {
        String value = text(key);
        try {
            int port = Integer.parseInt(value);
            if (port < 0 || port > 65_535) {
                throw new NumberFormatException();
            }
            return port;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + " must be a port number 0-65535, was '" + value + "'");
        }
    }

    /** A duration given in seconds, fractions allowed ({@code 0.5}). */
    public Duration seconds(String key) {
        String value = text(key);
        try {
            double seconds = Double.parseDouble(value);
            if (!(seconds > 0) || Double.isInfinite(seconds)) {
                throw new NumberFormatException();
            }
            return Duration.ofMillis(Math.max(1, Math.round(seconds * 1000)));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + " must be a positive number of seconds, was '" + value + "'");
        }
    }

    public List<String> list(String key) {
        return get(key).map(v -> Arrays.stream(v.split(",")).map(String::strip).filter(s -> !s.isEmpty()).toList())
                .orElse(List.of());
    }

    private static void requireKnown(String key) {
        if (!KEYS.containsKey(key)) {
            throw new IllegalArgumentException("no such agent setting: " + key);
        }
    }

    private static Map<String, String[]> keys(String... triples) {
        Map<String, String[]> keys = new LinkedHashMap<>();
        for (int i = 0; i < triples.length; i += 3) {
            keys.put(triples[i], new String[] {triples[i + 1], triples[i + 2]});
        }
        return keys;
    }

    /** The settings as a table for {@code --help} and the docs. */
    public static String describe() {
        StringBuilder text = new StringBuilder();
        KEYS.forEach((key, spec) -> text.append(String.format("  %-26s %-34s %s%n", key, envName(key),
                spec[1] + (spec[0].isEmpty() ? "" : " (default " + abbreviate(spec[0]) + ")"))));
        return text.toString();
    }

    private static String abbreviate(String value) {
        return value.length() > 40 ? value.substring(0, 37) + "..." : value;
    }
}
