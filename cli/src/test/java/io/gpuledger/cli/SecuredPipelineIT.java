package io.gpuledger.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.gpuledger.broker.BrokerSecurity;
import io.gpuledger.broker.EmbeddedKafka;
import io.gpuledger.ingest.kafka.Producers;
import io.gpuledger.model.GpuUsage;
import io.gpuledger.model.KafkaClientSettings;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.TelemetrySample;
import io.gpuledger.model.Topic;
import io.gpuledger.model.Topics;
import io.gpuledger.processes.AlertServiceProcess;
import io.gpuledger.processes.LocalPorts;
import io.gpuledger.streams.CostEngineProcess;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * The pipeline on a broker that admits only authenticated clients over TLS (SASL_SSL,
 * SCRAM-SHA-512) and authorizes every request by ACL: each program runs as its own user with
 * exactly the grants of its {@code KafkaUser} in deploy/k8s (those of docs/operations.md), its
 * settings given as a deployment gives them (a properties file, and its JAAS line as a file of a
 * directory, like the mounted Secret). The price feed, the cost engine and the alert service run
 * in JVMs of their own; the agent's producer runs here.
 */
class SecuredPipelineIT {

    private static final String ADMIN = "admin";
    private static final String AGENT = "gpu-ledger-agent";
    private static final String PRICES = "gpu-ledger-prices";
    private static final String ENGINE = "gpu-ledger-cost-engine";
    private static final String ALERTS = "gpu-ledger-alerts";
    private static final Path USERS = Path.of("deploy/k8s/base/kafka-users.yaml");
    private static final String GPU = "GPU-secured-0";
    private static final Duration START = Duration.ofSeconds(90);

    /** Kept when the test fails: the programs' logs are in it. */
    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path dir;

    @Test
    void shouldChargeASampleWhileEachProgramHoldsOnlyTheGrantsOfItsKafkaUser() throws Exception {
        // Given a broker taking SCRAM users over TLS, with ACLs, the contract's topics made by the
        // admin, and the grants of deploy/k8s's KafkaUsers
        BrokerSecurity security = selfSigned(List.of(ADMIN, AGENT, PRICES, ENGINE, ALERTS));
        try (EmbeddedKafka kafka = EmbeddedKafka.startSecured(security)) {
            String bootstrap = kafka.bootstrapServers();
            Properties admin = client(bootstrap, security.clientSettings(ADMIN));
            try (Admin topics = Admin.create(admin)) {
                topics.createTopics(Topics.ALL.stream()
                        .map(topic -> new NewTopic(topic.name(), 1, (short) 1).configs(topic.config())).toList())
                        .all().get(30, TimeUnit.SECONDS);
                topics.createAcls(grants()).all().get(30, TimeUnit.SECONDS);
            }

            // When the price feed publishes the shipped catalog as its user
            CliProcess prices = CliProcess.start(dir.resolve("prices.log"), List.of("-Xmx256m"),
                    settings(PRICES, bootstrap, security), "prices");
            try (prices) {
                assertThat(prices.awaitExit(START)).as(prices.tail()).hasValue(0);
            }

            // And the cost engine and the alert service run as theirs
            Map<String, String> alertSettings = new TreeMap<>(settings(ALERTS, bootstrap, security));
            alertSettings.put("GPULEDGER_TOPICS_CREATE", "false");
            Path jar = Path.of(System.getProperty("gpuledger.home", ".")).toAbsolutePath().normalize()
                    .resolve("alerts/target/quarkus-app/quarkus-run.jar");
            try (CostEngineProcess engine = CostEngineProcess.start(System.getProperty("java.class.path"),
                    List.of("-Xmx512m"), List.of("--bootstrap-servers", bootstrap, "--grace", "0",
                            "--state-dir", dir.resolve("engine-state").toString()),
                    dir.resolve("engine.log"), settings(ENGINE, bootstrap, security));
                    AlertServiceProcess alerts = AlertServiceProcess.start(jar, bootstrap, LocalPorts.freePair(),
                            dir.resolve("alerts.log"), alertSettings)) {
                engine.awaitRunning(START);
                alerts.awaitReady(START);

                // And the agent's producer, as its user, sends a T4's samples of 15 s: from :30 to :45
                // of a minute two minutes back, then from :45 to :60 of the next, which closes the first
                Map<String, String> agent = KafkaClientSettings.read(settings(AGENT, bootstrap, security));
                Instant minute = Instant.now().truncatedTo(ChronoUnit.MINUTES).minus(Duration.ofMinutes(2));
                try (KafkaProducer<String, TelemetrySample> producer = producer(Topics.TELEMETRY, bootstrap, agent)) {
                    for (Instant time : List.of(minute.plusSeconds(45), minute.plusSeconds(120))) {
                        producer.send(new ProducerRecord<>(Topics.TELEMETRY.name(), GPU, sample(time)))
                                .get(30, TimeUnit.SECONDS);
                    }
                }

                // Then the engine charges the sample at the catalog's price, 0.526 USD an hour for
                // the one GPU of a g4dn.xlarge: 0.526 * 15 / 3600 = 0.00219167 USD
                GpuUsage usage = awaitUsage(bootstrap, security.clientSettings(ADMIN), minute);
                assertThat(usage.currency()).isEqualTo("USD");
                assertThat(usage.totals().gpuSeconds()).isEqualTo(15.0);
                assertThat(usage.totals().cost()).isCloseTo(0.00219167, within(1e-8));

                // And the alert service reads the GPU's windows: 0.00219167 USD for 15 s of the GPU
                // is 0.00219167 * 3600 / 15 = 0.526 USD an hour
                assertThat(awaitGpuCostPerHour(alerts)).as(alerts.tail()).isCloseTo(0.526, within(1e-6));
            }

            // And the agent's user may write neither recommendations nor prices
            Map<String, String> agent = KafkaClientSettings.read(settings(AGENT, bootstrap, security));
            for (String topic : List.of(Topics.RECOMMENDATIONS.name(), Topics.PRICES.name())) {
                try (KafkaProducer<String, String> producer = new KafkaProducer<>(strings(bootstrap, agent))) {
                    assertThatThrownBy(() -> producer.send(new ProducerRecord<>(topic, "forged", "{}"))
                            .get(30, TimeUnit.SECONDS))
                            .as(topic).isInstanceOf(ExecutionException.class)
                            .hasCauseInstanceOf(TopicAuthorizationException.class);
                }
            }
        }
    }

    /**
     * A key pair and self-signed certificate for 127.0.0.1 made with the JDK's keytool, and a
     * random password for each user.
     */
    private BrokerSecurity selfSigned(List<String> users) throws IOException, InterruptedException {
        Path keyStore = dir.resolve("broker.p12");
        Path certificate = dir.resolve("broker.pem");
        String password = random();
        keytool("-genkeypair", "-alias", "broker", "-keyalg", "EC", "-groupname", "secp256r1",
                "-dname", "CN=localhost", "-ext", "SAN=IP:127.0.0.1", "-validity", "2",
                "-storetype", "PKCS12", "-keystore", keyStore.toString(),
                "-storepass", password, "-keypass", password);
        keytool("-exportcert", "-rfc", "-alias", "broker", "-keystore", keyStore.toString(),
                "-storepass", password, "-file", certificate.toString());
        Map<String, String> passwords = new TreeMap<>();
        users.forEach(user -> passwords.put(user, random()));
        return new BrokerSecurity(keyStore, password, certificate, passwords, ADMIN);
    }

    private void keytool(String... arguments) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "keytool")
                .toString()));
        command.addAll(List.of(arguments));
        Process process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(dir.resolve("keytool.log").toFile()).start();
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as(Files.readString(dir.resolve("keytool.log"))).isZero();
    }

    private static String random() {
        byte[] bytes = new byte[16];
        new SecureRandom().nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }

    /**
     * A program's environment: its bootstrap address, a properties file with all but the secret,
     * and the JAAS line alone in a file of a directory, as a Secret's volume holds it.
     */
    private Map<String, String> settings(String user, String bootstrap, BrokerSecurity security) throws IOException {
        Map<String, String> all = security.clientSettings(user);
        Properties file = new Properties();
        all.forEach(file::setProperty);
        file.remove("sasl.jaas.config");
        Path properties = dir.resolve(user + ".properties");
        try (var out = Files.newBufferedWriter(properties)) {
            file.store(out, null);
        }
        Path secret = Files.createDirectories(dir.resolve(user + "-secret"));
        Files.writeString(secret.resolve("sasl.jaas.config"), all.get("sasl.jaas.config") + "\n");
        return Map.of("KAFKA_BOOTSTRAP_SERVERS", bootstrap,
                KafkaClientSettings.FILE_VARIABLE, properties.toString(),
                KafkaClientSettings.DIR_VARIABLE, secret.toString());
    }

    /** Every ACL of the KafkaUser resources of deploy/k8s, for the user of each. */
    private static List<AclBinding> grants() throws IOException {
        Path file = Path.of(System.getProperty("gpuledger.home", ".")).toAbsolutePath().normalize().resolve(USERS);
        List<AclBinding> grants = new ArrayList<>();
        try (MappingIterator<JsonNode> documents = new YAMLMapper().readerFor(JsonNode.class)
                .readValues(file.toFile())) {
            for (JsonNode user : documents.readAll()) {
                String principal = "User:" + user.at("/metadata/name").asText();
                for (JsonNode acl : user.at("/spec/authorization/acls")) {
                    JsonNode resource = acl.get("resource");
                    ResourcePattern pattern = new ResourcePattern(enumName(ResourceType.class, resource.get("type")
                            .asText()),
                            resource.path("name").asText("kafka-cluster"),
                            resource.path("patternType").asText("literal").equals("prefix") ? PatternType.PREFIXED
                                    : PatternType.LITERAL);
                    for (JsonNode operation : acl.get("operations")) {
                        grants.add(new AclBinding(pattern, new AccessControlEntry(principal, "*",
                                enumName(AclOperation.class, operation.asText()), AclPermissionType.ALLOW)));
                    }
                }
            }
        }
        assertThat(grants).hasSizeGreaterThan(20);
        return grants;
    }

    /** Strimzi's spelling ({@code transactionalId}, {@code IdempotentWrite}) as Kafka's constant. */
    private static <E extends Enum<E>> E enumName(Class<E> type, String name) {
        return Enum.valueOf(type, name.replaceAll("([a-z])([A-Z])", "$1_$2").toUpperCase(Locale.ROOT));
    }

    private static TelemetrySample sample(Instant time) {
        return TelemetrySample.builder().gpuUuid(GPU).gpuIndex(0).gpuModel("T4-16GB").host("node-secured")
                .instanceId("i-secured").instanceType("g4dn.xlarge").provider("aws").region("us-east-1")
                .lifecycle(Lifecycle.ON_DEMAND).jobId("job-secured").time(time).intervalSeconds(15)
                .smActive(0.5).build();
    }

    private static Properties client(String bootstrap, Map<String, String> settings) {
        Properties props = new Properties();
        props.put("bootstrap.servers", bootstrap);
        props.putAll(settings);
        return props;
    }

    private static <V> KafkaProducer<String, V> producer(Topic<String, V> topic, String bootstrap,
            Map<String, String> settings) {
        Properties props = Producers.config(bootstrap, "secured-agent");
        props.putAll(settings);
        return new KafkaProducer<>(props, topic.keySerde().serializer(), topic.valueSerde().serializer());
    }

    private static Properties strings(String bootstrap, Map<String, String> settings) {
        Properties props = Producers.config(bootstrap, "forger");
        props.putAll(settings);
        props.put("key.serializer", StringSerializer.class.getName());
        props.put("value.serializer", StringSerializer.class.getName());
        props.put("max.block.ms", 30_000);
        return props;
    }

    /** The engine's committed window of {@link #GPU} that starts at {@code windowStart}, read as the admin. */
    private static GpuUsage awaitUsage(String bootstrap, Map<String, String> settings, Instant windowStart) {
        Properties props = client(bootstrap, settings);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        TopicPartition partition = new TopicPartition(Topics.USAGE.name(), 0);
        try (KafkaConsumer<String, GpuUsage> consumer = new KafkaConsumer<>(props,
                Topics.USAGE.keySerde().deserializer(), Topics.USAGE.valueSerde().deserializer())) {
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            long deadline = System.nanoTime() + START.toNanos();
            Optional<GpuUsage> found = Optional.empty();
            while (found.isEmpty() && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, GpuUsage> record : consumer.poll(Duration.ofMillis(500))) {
                    GpuUsage usage = record.value();
                    if (usage.gpuUuid().equals(GPU) && usage.windowStart().equals(windowStart) && usage.closed()) {
                        found = Optional.of(usage);
                    }
                }
            }
            return found.orElseThrow(() -> new AssertionError("no closed window of " + GPU + " from " + windowStart));
        }
    }

    /** {@code gpuledger_gpu_cost_per_hour} of {@link #GPU}, once the alert service shows it. */
    private static double awaitGpuCostPerHour(AlertServiceProcess alerts) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        HttpRequest request = HttpRequest.newBuilder(AlertServiceProcess.family(alerts.baseUrl(),
                "gpuledger_gpu_cost_per_hour")).timeout(Duration.ofSeconds(5)).build();
        Pattern series = Pattern.compile("^gpuledger_gpu_cost_per_hour\\{[^}]*gpu=\"" + GPU + "\"[^}]*} (\\S+)$",
                Pattern.MULTILINE);
        Matcher shown = await("the alert service shows the cost of " + GPU).atMost(START)
                .pollInterval(Duration.ofMillis(500))
                .until(() -> series.matcher(http.send(request, HttpResponse.BodyHandlers.ofString()).body()),
                        Matcher::find);
        return Double.parseDouble(shown.group(1));
    }
}
