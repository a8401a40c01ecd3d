package io.gpuledger.ingest.agent;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpuledger.broker.EmbeddedKafka;
import io.gpuledger.ingest.testing.Fixtures;
import io.gpuledger.ingest.testing.StandInServer;
import io.gpuledger.model.CapacityEvent;
import io.gpuledger.model.CapacityEventKind;
import io.gpuledger.model.Json;
import io.gpuledger.model.TopicAdmin;
import io.gpuledger.model.Topics;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code gpu-ledger agent --once --dry-run} pointed at local stand-ins serving real outputs: a
 * dcgm-exporter page, a command printing nvidia-smi CSV, and each cloud's metadata service; and
 * a real run after a dry run, against an embedded broker.
 */
class AgentDryRunIT {

    @TempDir
    Path dir;

    private final StandInServer dcgm = StandInServer.start();
    private final StandInServer metadata = StandInServer.start();
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private EmbeddedKafka kafka;

    @AfterEach
    void stop() {
        dcgm.close();
        metadata.close();
        if (kafka != null) {
            kafka.close();
        }
    }

    @Test
    void shouldPrintASampleForEachGpuOfAnH100ScrapeAndTheAwsSpotNotice() throws IOException {
        dcgm.answer("GET /metrics", 200, Fixtures.read("dcgm-exporter/h100x8-eks-k8s-sampled.prom"));
        metadata.answer("PUT /latest/api/token", 200, "tok")
                .answer("GET /latest/meta-data/instance-id", 200, "i-0123456789abcdef0")
                .answer("GET /latest/meta-data/instance-type", 200, "p5.48xlarge")
                .answer("GET /latest/meta-data/placement/region", 200, "us-east-1")
                .answer("GET /latest/meta-data/instance-life-cycle", 200, "spot")
                .answer("GET /latest/meta-data/spot/instance-action", 200,
                        Fixtures.read("cloud/aws/imds-spot-instance-action-terminate.json"));
        Map<String, String> env = env("aws");
        env.put("GPULEDGER_NVIDIA_SMI_ENABLED", "false");

        int status = AgentMain.run(new String[] {"--once", "--dry-run"}, env, print(out), print(err));

        assertThat(status).as("status; the agent said: %s", err.toString(StandardCharsets.UTF_8)).isZero();
        List<JsonNode> records = records();
        List<JsonNode> samples = records.stream().filter(r -> r.has("gpuUuid")).toList();
        assertThat(samples).hasSize(8).allSatisfy(sample -> {
            assertThat(sample.get("instanceId").asText()).isEqualTo("i-0123456789abcdef0");
            assertThat(sample.get("instanceType").asText()).isEqualTo("p5.48xlarge");
            assertThat(sample.get("lifecycle").asText()).isEqualTo("spot");
            assertThat(sample.get("host").asText()).isEqualTo("node-under-test");
        });
        assertThat(samples).filteredOn(s -> s.get("gpuIndex").asInt() == 0).singleElement()
                .satisfies(s -> assertThat(s.get("jobId").asText()).isEqualTo("vllm-agg-0-vllmdecodeworker-s65j5"));
        assertThat(samples).filteredOn(s -> s.get("gpuIndex").asInt() == 1).singleElement()
                .satisfies(s -> assertThat(s.get("jobId").asText()).isEqualTo("unknown"));
        assertThat(records).filteredOn(r -> r.has("eventId")).singleElement().satisfies(notice -> {
            assertThat(notice.get("kind").asText()).isEqualTo("SPOT_INTERRUPTION");
            assertThat(notice.get("instanceId").asText()).isEqualTo("i-0123456789abcdef0");
            assertThat(notice.get("deadline").asText()).isEqualTo("2017-09-18T08:22:00Z");
        });
    }

    @Test
    void shouldReadTheGpusFromACommandPrintingNvidiaSmiCsvWithoutDcgm() throws IOException {
        Path command = dir.resolve("fake-nvidia-smi");
        Files.writeString(command, "#!/bin/sh\ncat '"
                + fixtureFile("nvidia-smi/h100-allfields-csv-header-units-idle-driver590.csv")
                + "'\n");
        command.toFile().setExecutable(true);
        Map<String, String> env = env("none");
        env.put("GPULEDGER_NVIDIA_SMI_COMMAND", command.toString());
        env.put("GPULEDGER_DCGM_ENABLED", "false");
        env.put("GPULEDGER_INSTANCE_TYPE", "p5.48xlarge");
        env.put("GPULEDGER_PROVIDER", "aws");
        env.put("GPULEDGER_REGION", "us-east-1");
        env.put("GPULEDGER_LIFECYCLE", "reserved");
        env.put("GPULEDGER_JOB", "batch-inference");

        int status = AgentMain.run(new String[] {"--once", "--dry-run"}, env, print(out), print(err));

        assertThat(status).as("status; the agent said: %s", err.toString(StandardCharsets.UTF_8)).isZero();
        assertThat(records()).singleElement().satisfies(sample -> {
            assertThat(sample.get("gpuUuid").asText()).isEqualTo("GPU-00000000-0000-0000-0000-000000000000");
            assertThat(sample.get("lifecycle").asText()).isEqualTo("reserved");
            assertThat(sample.get("jobId").asText()).isEqualTo("batch-inference");
            assertThat(sample.get("powerWatts").asDouble()).isEqualTo(69.85);
        });
        assertThat(err.toString(StandardCharsets.UTF_8)).isEmpty();
    }

    @Test
    void shouldPrintAGcpPreemptionAndAnAzurePreemptOnce() throws IOException {
        Map<String, String> env = gcpSpotNodeBeingPreempted();

        assertThat(AgentMain.run(new String[] {"--once", "--dry-run"}, env, print(out), print(err))).isZero();

        assertThat(records()).filteredOn(r -> r.has("eventId")).singleElement().satisfies(notice -> {
            assertThat(notice.get("provider").asText()).isEqualTo("gcp");
            assertThat(notice.get("kind").asText()).isEqualTo("PREEMPTION");
            assertThat(notice.get("region").asText()).isEqualTo("europe-west4");
        });

        // A dry run remembers nothing: the next one shows the notice again, as a real run would publish it.
        ByteArrayOutputStream again = new ByteArrayOutputStream();
        AgentMain.run(new String[] {"--once", "--dry-run"}, env, print(again), print(err));
        assertThat(again.toString(StandardCharsets.UTF_8)).containsOnlyOnce("eventId");
    }

    @Test
    void shouldLeaveTheNoticeItPrintedToARealRunAfterIt() throws Exception {
        // Given a GCP spot node being preempted, and a broker
        Map<String, String> env = gcpSpotNodeBeingPreempted();
        kafka = EmbeddedKafka.start();
        TopicAdmin.ensureTopics(kafka.bootstrapServers(), 1);
        env.put("KAFKA_BOOTSTRAP_SERVERS", kafka.bootstrapServers());
        Path spool = dir.resolve("spool");

        // When a dry run prints the preemption notice
        assertThat(AgentMain.run(new String[] {"--once", "--dry-run"}, env, print(out), print(err))).isZero();
        assertThat(records()).filteredOn(r -> r.has("eventId")).hasSize(1);
        boolean spoolAfterDryRun = Files.exists(spool);
        // and the real agent runs after it
        assertThat(AgentMain.run(new String[] {"--once"}, env, print(new ByteArrayOutputStream()), print(err)))
                .isZero();

        // Then the real run publishes the notice
        assertThat(publishedNotices()).singleElement().satisfies(notice -> {
            assertThat(notice.kind()).isEqualTo(CapacityEventKind.PREEMPTION);
            assertThat(notice.instanceId()).isEqualTo("4520031799277581759");
        });
        // and the dry run wrote nothing where the agent keeps its state
        assertThat(spoolAfterDryRun).as("spool directory there after the dry run").isFalse();
    }

    @Test
    void shouldPrintTheAzurePreemptOfThisVm() throws IOException {
        dcgm.answer("GET /metrics", 200, Fixtures.read("dcgm-exporter/k8s-pod-labels-rtx4000ada-gpu-operator.prom"));
        metadata.require("Metadata", "true")
                .answer("GET /metadata/instance?api-version=2021-02-01", 200,
                        "{\"compute\":{\"name\":\"vm-spot\",\"vmId\":\"6f5b1c2e-0000-4000-8000-000000000001\","
                                + "\"vmSize\":\"Standard_NC4as_T4_v3\",\"location\":\"eastus\",\"priority\":\"Spot\"}}")
                .answer("GET /metadata/scheduledevents?api-version=2020-07-01", 200,
                        Fixtures.read("cloud/azure/scheduledevents-preempt-simulate-eviction-mspnp.json"));
        Map<String, String> env = env("azure");
        env.remove("GPULEDGER_HOST");
        env.put("GPULEDGER_NVIDIA_SMI_ENABLED", "false");

        assertThat(AgentMain.run(new String[] {"--once", "--dry-run"}, env, print(out), print(err))).isZero();

        List<JsonNode> records = records();
        assertThat(records).filteredOn(r -> r.has("eventId")).singleElement().satisfies(notice -> {
            assertThat(notice.get("kind").asText()).isEqualTo("PREEMPTION");
            assertThat(notice.get("deadline").asText()).isEqualTo("2022-08-09T17:07:32Z");
        });
        assertThat(records).filteredOn(r -> r.has("gpuUuid")).singleElement()
                .satisfies(sample -> assertThat(sample.get("lifecycle").asText()).isEqualTo("spot"));
    }

    @Test
    void shouldPublishTheGraphicsEngineActivityOfAnA100PageWithoutSmActivity() throws IOException {
        // Given NVIDIA's MIG example page: an A100 with one 1g.5gb instance, DCGM_FI_PROF_GR_ENGINE_ACTIVE and no
        // DCGM_FI_PROF_SM_ACTIVE nor utilisation
        dcgm.answer("GET /metrics", 200, Fixtures.read("dcgm-exporter/mig-a100-1g5gb-nvidia-docs.prom"));

        // When the agent runs one round
        assertThat(AgentMain.run(new String[] {"--once", "--dry-run"}, dcgmOnly(), print(out), print(err))).isZero();

        // Then the instance is sampled at its graphics engine's activity, and the unsliced 6/7 as idle
        List<JsonNode> samples = records();
        assertThat(samples).hasSize(2);
        assertThat(samples).filteredOn(s -> s.get("gpuUuid").asText().endsWith("/mig/13")).singleElement()
                .satisfies(slice -> {
                    assertThat(slice.get("smActive").asDouble()).isEqualTo(0.995687);
                    assertThat(slice.get("gpuFraction").asDouble()).isEqualTo(1.0 / 7);
                });
        assertThat(samples).filteredOn(s -> s.get("migProfile").asText().equals("unallocated")).singleElement()
                .satisfies(rest -> assertThat(rest.get("smActive").asDouble()).isZero());
    }

    @Test
    void shouldPublishEveryMigInstanceOfAnH100PageThatHasOnlyGraphicsEngineActivity() throws IOException {
        // Given an H100 in MIG mode whose page has DCGM_FI_PROF_GR_ENGINE_ACTIVE for its three 1g.10gb instances
        dcgm.answer("GET /metrics", 200, Fixtures.read("dcgm-exporter/mig-h100-k8s-pod-labels-issue512-excerpt.prom"));

        // When the agent runs one round
        assertThat(AgentMain.run(new String[] {"--once", "--dry-run"}, dcgmOnly(), print(out), print(err))).isZero();

        // Then each instance has its sample, at the 0.000000 the page gives, charged a seventh of the GPU
        List<JsonNode> samples = records();
        assertThat(samples).extracting(s -> s.get("gpuUuid").asText()).containsExactlyInAnyOrder(
                "GPU-58e8f5ea-13cc-013a-d88f-2bcf5ae8bc77/mig/7", "GPU-58e8f5ea-13cc-013a-d88f-2bcf5ae8bc77/mig/8",
                "GPU-58e8f5ea-13cc-013a-d88f-2bcf5ae8bc77/mig/9");
        assertThat(samples).allSatisfy(sample -> {
            assertThat(sample.get("smActive").isNumber()).isTrue();
            assertThat(sample.get("smActive").asDouble()).isZero();
            assertThat(sample.get("gpuFraction").asDouble()).isEqualTo(1.0 / 7);
        });
    }

    @Test
    void shouldPublishTheGpuOfTheQuickstartPageWithItsActivityUnknown() throws IOException {
        // Given dcgm-exporter's README quickstart page: clocks and a memory temperature, no activity of any kind
        dcgm.answer("GET /metrics", 200, Fixtures.read("dcgm-exporter/sentinel-memory-temp-not-supported-readme.prom"));

        // When the agent runs one round
        assertThat(AgentMain.run(new String[] {"--once", "--dry-run"}, dcgmOnly(), print(out), print(err))).isZero();

        // Then the GPU is sampled all the same, its activity written as unknown (null), and the agent says so
        assertThat(records()).singleElement().satisfies(sample -> {
            assertThat(sample.get("gpuUuid").asText()).isEqualTo("GPU-604ac76c-d9cf-fef3-62e9-d92044ab6e52");
            assertThat(sample.has("smActive")).isTrue();
            assertThat(sample.get("smActive").isNull()).isTrue();
        });
        assertThat(err.toString(StandardCharsets.UTF_8))
                .contains("GPU-604ac76c-d9cf-fef3-62e9-d92044ab6e52").contains("activity unknown");
    }

    @Test
    void shouldRefuseAConfigurationItCannotUseWithAClearMessage() throws IOException {
        Path config = dir.resolve("agent.properties");
        Files.writeString(config, "intervall=5\n");

        int status = AgentMain.run(new String[] {"--config", config.toString(), "--once", "--dry-run"}, Map.of(),
                print(out), print(err));

        assertThat(status).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("unknown key(s) [intervall]");
        assertThat(out.size()).isZero();
    }

    private Map<String, String> gcpSpotNodeBeingPreempted() {
        dcgm.answer("GET /metrics", 200, Fixtures.read("dcgm-exporter/k8s-pod-labels-rtx4000ada-gpu-operator.prom"));
        metadata.answer("GET /computeMetadata/v1/instance/id", 200, "4520031799277581759")
                .answer("GET /computeMetadata/v1/instance/zone", 200, "projects/1/zones/europe-west4-a")
                .answer("GET /computeMetadata/v1/instance/machine-type", 200, "projects/1/machineTypes/g2-standard-4")
                .answer("GET /computeMetadata/v1/instance/scheduling/provisioning-model", 200, "SPOT")
                .answer("GET /computeMetadata/v1/instance/preempted", 200,
                        Fixtures.read("cloud/gcp/metadata-instance-preempted-TRUE.txt"))
                .answer("GET /computeMetadata/v1/instance/maintenance-event", 200,
                        Fixtures.read("cloud/gcp/metadata-instance-maintenance-event-NONE.txt"));
        Map<String, String> env = env("gcp");
        env.put("GPULEDGER_NVIDIA_SMI_ENABLED", "false");
        return env;
    }

    /** The notices on the broker's capacity topic; the real run closed its producer before it returned. */
    private List<CapacityEvent> publishedNotices() {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, "dry-run-check");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        List<CapacityEvent> received = new ArrayList<>();
        try (KafkaConsumer<String, CapacityEvent> consumer = new KafkaConsumer<>(props,
                Topics.CAPACITY_EVENTS.keySerde().deserializer(), Topics.CAPACITY_EVENTS.valueSerde().deserializer())) {
            consumer.subscribe(List.of(Topics.CAPACITY_EVENTS.name()));
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (received.isEmpty() && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(record -> received.add(record.value()));
            }
            // Read on a little: a second copy would come right after the first.
            consumer.poll(Duration.ofMillis(500)).forEach(record -> received.add(record.value()));
        }
        return received;
    }

    private Map<String, String> env(String cloud) {
        Map<String, String> env = new HashMap<>();
        env.put("GPULEDGER_CLOUD", cloud);
        env.put("GPULEDGER_HOST", "node-under-test");
        env.put("GPULEDGER_DCGM_URL", dcgm.url() + "/metrics");
        env.put("GPULEDGER_AWS_IMDS_URL", metadata.url());
        env.put("GPULEDGER_GCP_METADATA_URL", metadata.url());
        env.put("GPULEDGER_AZURE_METADATA_URL", metadata.url());
        env.put("GPULEDGER_SPOOL_DIR", dir.resolve("spool").toString());
        return env;
    }

    /** A node outside any cloud whose only collector is dcgm-exporter. */
    private Map<String, String> dcgmOnly() {
        Map<String, String> env = env("none");
        env.put("GPULEDGER_NVIDIA_SMI_ENABLED", "false");
        env.put("GPULEDGER_INSTANCE_TYPE", "p4d.24xlarge");
        env.put("GPULEDGER_PROVIDER", "aws");
        env.put("GPULEDGER_REGION", "us-east-1");
        env.put("GPULEDGER_LIFECYCLE", "on-demand");
        return env;
    }

    private List<JsonNode> records() throws IOException {
        List<JsonNode> records = new ArrayList<>();
        for (String line : out.toString(StandardCharsets.UTF_8).split("\n")) {
            if (!line.isBlank()) {
                records.add(Json.MAPPER.readTree(line));
            }
        }
        return records;
    }

    private Path fixtureFile(String path) throws IOException {
        Path copy = dir.resolve(Path.of(path).getFileName());
        Files.writeString(copy, Fixtures.read(path));
        return copy;
    }

    private static PrintStream print(ByteArrayOutputStream target) {
        return new PrintStream(target, true, StandardCharsets.UTF_8);
    }

}
