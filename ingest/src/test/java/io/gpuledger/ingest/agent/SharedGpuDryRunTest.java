package io.gpuledger.ingest.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpuledger.ingest.testing.Fixtures;
import io.gpuledger.ingest.testing.KubernetesApiStandIn;
import io.gpuledger.ingest.testing.ProcTree;
import io.gpuledger.ingest.testing.StandInServer;
import io.gpuledger.model.Json;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code gpu-ledger agent --once --dry-run} on a node whose first GPU two pods and a stray process share and
 * whose second a Slurm job has alone: nvidia-smi stood in by a script printing its outputs, the process table by
 * a tree in a temp dir, the kubelet by a server on 127.0.0.1.
 */
class SharedGpuDryRunTest {

    private static final String GPU_0 = "GPU-e82ab913-2d6b-1a55-89a8-9ad23a5a09cf";
    private static final String GPU_1 = "GPU-f7c1496c-b7f5-b1d2-78ea-68826f778059";
    private static final String WEB_POD = "0f1d2b3c-4a5b-6c7d-8e9f-0a1b2c3d4e5f";
    private static final String NOTEBOOK_POD = "7c6b5a49-3827-4165-9a8b-7c6d5e4f3a2b";

    @TempDir
    Path dir;

    private final StandInServer kubelet = StandInServer.start();
    private final StandInServer hami = StandInServer.start();
    private final StandInServer dcgm = StandInServer.start();
    private final StandInServer api = StandInServer.start();
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @AfterEach
    void stop() {
        kubelet.close();
        hami.close();
        dcgm.close();
        api.close();
    }

    @Test
    void shouldPrintASharedGpusSampleWithItsJobsSharesBySmTime() throws IOException {
        Map<String, String> env = node();

        int status = AgentMain.run(new String[] {"--once", "--dry-run"}, env, print(out), print(err));

        assertThat(status).as(err.toString(StandardCharsets.UTF_8)).isZero();
        Map<String, JsonNode> samples = samples();
        JsonNode shared = samples.get(GPU_0);
        assertThat(shared.get("jobId").asText()).isEqualTo("shared");
        assertThat(shared.get("team").asText()).isEqualTo("platform");
        // pmon: ranker 30 %, notebook 45 %, the stray process 10 % (unallocated), the rest idle
        assertThat(shared.get("allocations")).isEqualTo(Json.MAPPER.readTree("""
                [{"jobId": "ranker", "team": "search", "share": 0.3, "measuredBy": "sm"},
                 {"jobId": "notebook-0", "team": "research", "share": 0.45, "measuredBy": "sm"}]"""));
        JsonNode alone = samples.get(GPU_1);
        assertThat(alone.get("jobId").asText()).isEqualTo("4242");
        assertThat(alone.get("team").asText()).isEqualTo("physics");
        assertThat(alone.has("allocations")).isFalse();
    }

    @Test
    void shouldSplitByMemoryWhenThePoolsPolicySaysSo() throws IOException {
        int status = AgentMain.run(new String[] {"--once", "--dry-run", "--share-policy", "memory"}, node(),
                print(out), print(err));

        assertThat(status).as(err.toString(StandardCharsets.UTF_8)).isZero();
        // of 40960 MiB: ranker 10240 (1/4), notebook 4096 (1/10), the stray process 2048 unallocated
        assertThat(samples().get(GPU_0).get("allocations")).isEqualTo(Json.MAPPER.readTree("""
                [{"jobId": "ranker", "team": "search", "share": 0.25, "measuredBy": "memory"},
                 {"jobId": "notebook-0", "team": "research", "share": 0.1, "measuredBy": "memory"}]"""));
    }

    @Test
    void shouldSampleEachGpuAsBeforeWhenSharesAreOff() throws IOException {
        Map<String, String> env = node();
        env.put("GPULEDGER_SHARE_SOURCES", "none");

        int status = AgentMain.run(new String[] {"--once", "--dry-run"}, env, print(out), print(err));

        assertThat(status).isZero();
        assertThat(samples().values()).allSatisfy(sample -> {
            assertThat(sample.get("jobId").asText()).isEqualTo("unknown");
            assertThat(sample.has("allocations")).isFalse();
        });
    }

    @Test
    void shouldTakeHamisContainersBeforeNvidiaSmisProcesses() throws IOException {
        Map<String, String> env = nodeWithHami("""
                hami_container_device_utilization_ratio{container="m",device_uuid="%1$s",namespace="ai",pod="llm-0"} 50
                hami_vgpu_memory_used_bytes{container="m",device_uuid="%1$s",namespace="ai",pod="llm-0"} 8e9
                hami_container_device_utilization_ratio{container="m",device_uuid="%1$s",namespace="lab",pod="nb-3"} 20
                hami_vgpu_memory_used_bytes{container="m",device_uuid="%1$s",namespace="lab",pod="nb-3"} 2e9
                """);

        int status = AgentMain.run(new String[] {"--once", "--dry-run"}, env, print(out), print(err));

        assertThat(status).as(err.toString(StandardCharsets.UTF_8)).isZero();
        assertThat(samples().get(GPU_0).get("allocations")).isEqualTo(Json.MAPPER.readTree("""
                [{"jobId": "llm-0", "team": "ai", "share": 0.5, "measuredBy": "sm"},
                 {"jobId": "nb-3", "team": "lab", "share": 0.2, "measuredBy": "sm"}]"""));
        // HAMi sees nothing of GPU 1: nvidia-smi's processes tell its job
        assertThat(samples().get(GPU_1).get("jobId").asText()).isEqualTo("4242");
    }

    @Test
    void shouldSplitHamisContainersByTheirMemoryOverTheMemoryOfTheGpusOwnReading() throws IOException {
        String gpu = "gpu=\"0\",UUID=\"" + GPU_0 + "\",modelName=\"NVIDIA A100-SXM4-80GB\"";
        // the GPU's own series: 16384 MiB used and 65536 MiB free, so 81920 MiB in all
        dcgm.answer("GET /metrics", 200, "DCGM_FI_DEV_FB_USED{" + gpu + "} 16384\n"
                + "DCGM_FI_DEV_FB_FREE{" + gpu + "} 65536\n");
        // llm-0 holds 10 GiB (10240 MiB), nb-3 4 GiB (4096 MiB)
        Map<String, String> env = nodeWithHami("""
                hami_container_device_utilization_ratio{container="m",device_uuid="%1$s",namespace="ai",pod="llm-0"} 50
                hami_vgpu_memory_used_bytes{container="m",device_uuid="%1$s",namespace="ai",pod="llm-0"} 10737418240
                hami_container_device_utilization_ratio{container="m",device_uuid="%1$s",namespace="lab",pod="nb-3"} 20
                hami_vgpu_memory_used_bytes{container="m",device_uuid="%1$s",namespace="lab",pod="nb-3"} 4294967296
                """);
        env.put("GPULEDGER_DCGM_ENABLED", "true");
        env.put("GPULEDGER_DCGM_URL", dcgm.url() + "/metrics");

        int status = AgentMain.run(new String[] {"--once", "--dry-run", "--share-policy", "memory"}, env,
                print(out), print(err));

        assertThat(status).as(err.toString(StandardCharsets.UTF_8)).isZero();
        // of 81920 MiB: llm-0 10240 (1/8), nb-3 4096 (1/20)
        assertThat(samples().get(GPU_0).get("allocations")).isEqualTo(Json.MAPPER.readTree("""
                [{"jobId": "llm-0", "team": "ai", "share": 0.125, "measuredBy": "memory"},
                 {"jobId": "nb-3", "team": "lab", "share": 0.05, "measuredBy": "memory"}]"""));
    }

    @Test
    void shouldSplitHamisContainersByTheirMemoryOverTheMemoryNvidiaSmiGivesTheGpu() throws IOException {
        // llm-0 holds 10 GiB (10240 MiB), nb-3 4 GiB (4096 MiB)
        Map<String, String> env = nodeWithHami("""
                hami_container_device_utilization_ratio{container="m",device_uuid="%1$s",namespace="ai",pod="llm-0"} 50
                hami_vgpu_memory_used_bytes{container="m",device_uuid="%1$s",namespace="ai",pod="llm-0"} 10737418240
                hami_container_device_utilization_ratio{container="m",device_uuid="%1$s",namespace="lab",pod="nb-3"} 20
                hami_vgpu_memory_used_bytes{container="m",device_uuid="%1$s",namespace="lab",pod="nb-3"} 4294967296
                """);

        int status = AgentMain.run(new String[] {"--once", "--dry-run", "--share-policy", "memory"}, env,
                print(out), print(err));

        assertThat(status).as(err.toString(StandardCharsets.UTF_8)).isZero();
        // of the 40960 MiB of nvidia-smi's memory.total: llm-0 10240 (1/4), nb-3 4096 (1/10)
        assertThat(samples().get(GPU_0).get("allocations")).isEqualTo(Json.MAPPER.readTree("""
                [{"jobId": "llm-0", "team": "ai", "share": 0.25, "measuredBy": "memory"},
                 {"jobId": "nb-3", "team": "lab", "share": 0.1, "measuredBy": "memory"}]"""));
    }

    @Test
    void shouldTakeAHamiContainerAboveAHundredPercentAsUsingTheWholeGpu() throws IOException {
        // HAMi sums the SM use of a container's processes: 250 % happens (Project-HAMi/HAMi#555)
        Map<String, String> env = nodeWithHami("""
                hami_container_device_utilization_ratio{container="m",device_uuid="%1$s",namespace="ai",pod="llm-0"} 250
                hami_vgpu_memory_used_bytes{container="m",device_uuid="%1$s",namespace="ai",pod="llm-0"} 8e9
                hami_container_device_utilization_ratio{container="m",device_uuid="%1$s",namespace="lab",pod="nb-3"} 10
                hami_vgpu_memory_used_bytes{container="m",device_uuid="%1$s",namespace="lab",pod="nb-3"} 2e9
                """);

        int status = AgentMain.run(new String[] {"--once", "--dry-run"}, env, print(out), print(err));

        assertThat(status).as(err.toString(StandardCharsets.UTF_8)).isZero();
        // llm-0 the whole GPU, 1; nb-3 0.1: 1.1 in all, scaled down to 1, so 10/11 and 1/11
        JsonNode allocations = samples().get(GPU_0).get("allocations");
        assertThat(allocations).hasSize(2);
        assertThat(allocations.get(0).get("jobId").asText()).isEqualTo("llm-0");
        assertThat(allocations.get(0).get("share").asDouble()).isCloseTo(10.0 / 11, within(1e-9));
        assertThat(allocations.get(1).get("jobId").asText()).isEqualTo("nb-3");
        assertThat(allocations.get(1).get("share").asDouble()).isCloseTo(1.0 / 11, within(1e-9));
        assertThat(allocations).allSatisfy(a -> assertThat(a.get("measuredBy").asText()).isEqualTo("sm"));
        assertThat(err.toString(StandardCharsets.UTF_8)).doesNotContain("hami");
    }

    @Test
    void shouldNameAHamiContainersJobAndTeamByItsPodsLabelsWhereTheKubeletListsIt() throws IOException {
        Map<String, String> env = nodeWithHami("""
                hami_container_device_utilization_ratio{device_uuid="%1$s",namespace="ai",pod="llm-7d9f-x2"} 50
                hami_container_device_utilization_ratio{container="m",device_uuid="%1$s",namespace="lab",pod="nb-3"} 20
                """);
        // the kubelet lists llm-7d9f-x2 with its labels; nb-3 it does not list
        kubelet.answer("GET /pods", 200, """
                {"kind": "PodList", "items": [
                  {"metadata": {"name": "llm-7d9f-x2", "namespace": "ai", "uid": "%s",
                                "labels": {"app.kubernetes.io/instance": "llm", "cost-center": "search-ml"}}}]}"""
                .formatted(WEB_POD));
        env.put("GPULEDGER_KUBELET_JOB_LABELS", "app.kubernetes.io/instance");
        env.put("GPULEDGER_KUBELET_TEAM_LABELS", "cost-center");

        int status = AgentMain.run(new String[] {"--once", "--dry-run"}, env, print(out), print(err));

        assertThat(status).as(err.toString(StandardCharsets.UTF_8)).isZero();
        assertThat(samples().get(GPU_0).get("allocations")).isEqualTo(Json.MAPPER.readTree("""
                [{"jobId": "llm", "team": "search-ml", "share": 0.5, "measuredBy": "sm"},
                 {"jobId": "nb-3", "team": "lab", "share": 0.2, "measuredBy": "sm"}]"""));
    }

    @Test
    void shouldTakeDcgmExportersPodsFirst() throws IOException {
        String labels = "gpu=\"0\",UUID=\"" + GPU_0 + "\",modelName=\"NVIDIA A100-SXM4-40GB\",";
        dcgm.answer("GET /metrics", 200, "DCGM_FI_DEV_GPU_UTIL{" + labels.substring(0, labels.length() - 1)
                + "} 50\n" + "DCGM_FI_DEV_GPU_UTIL{" + labels + "namespace=\"a\",pod=\"p\"} 12\n"
                + "DCGM_FI_DEV_GPU_UTIL{" + labels + "namespace=\"b\",pod=\"q\"} 34\n");
        Map<String, String> env = node();
        env.put("GPULEDGER_DCGM_ENABLED", "true");
        env.put("GPULEDGER_DCGM_URL", dcgm.url() + "/metrics");

        int status = AgentMain.run(new String[] {"--once", "--dry-run"}, env, print(out), print(err));

        assertThat(status).as(err.toString(StandardCharsets.UTF_8)).isZero();
        assertThat(samples().get(GPU_0).get("allocations")).isEqualTo(Json.MAPPER.readTree("""
                [{"jobId": "p", "team": "a", "share": 0.12, "measuredBy": "sm"},
                 {"jobId": "q", "team": "b", "share": 0.34, "measuredBy": "sm"}]"""));
    }

    @Test
    void shouldGiveAProcessTheAgentCannotSeeToThePodItsGpusDraClaimIsReservedFor() throws IOException {
        Map<String, String> env = node();
        env.putAll(draApiServer());
        deleteProcess(404);

        int status = AgentMain.run(new String[] {"--once", "--dry-run"}, env, print(out), print(err));

        assertThat(status).as(err.toString(StandardCharsets.UTF_8)).isZero();
        // the claim's pod is the kubelet's ranker-5d8c, labelled app=ranker
        JsonNode held = samples().get(GPU_1);
        assertThat(held.get("jobId").asText()).isEqualTo("ranker");
        assertThat(held.get("team").asText()).isEqualTo("search");
        assertThat(samples().get(GPU_0).get("allocations")).hasSize(2);
    }

    @Test
    void shouldNameTheJobOfAGpuNoProcessIsSeenOnFromItsDraClaim() throws IOException {
        Map<String, String> env = node();
        env.putAll(draApiServer());
        write("apps.csv", "gpu_uuid, pid, used_gpu_memory [MiB]\n" + GPU_0 + ", 101, 10240 MiB\n");

        int status = AgentMain.run(new String[] {"--once", "--dry-run"}, env, print(out), print(err));

        assertThat(status).as(err.toString(StandardCharsets.UTF_8)).isZero();
        assertThat(samples().get(GPU_1).get("jobId").asText()).isEqualTo("ranker");
        assertThat(samples().get(GPU_1).has("allocations")).isFalse();
    }

    @Test
    void shouldNameTheJobOfAMigSliceFromTheDraClaimOfItsDevice() throws IOException {
        // An A100 80GB split by MIG as NVIDIA's DRA driver publishes it; dcgm-exporter reports two of its GPU
        // instances, 2 (the 3g.40gb the embedder's claim holds) and 9 (a 1g.10gb no claim holds)
        String parent = KubernetesApiStandIn.MIG_PARENT_GPU;
        String labels = "gpu=\"0\",UUID=\"" + parent + "\",device=\"nvidia0\",modelName=\"NVIDIA A100-SXM4-80GB\",";
        dcgm.answer("GET /metrics", 200, "DCGM_FI_PROF_GR_ENGINE_ACTIVE{" + labels
                + "GPU_I_PROFILE=\"3g.40gb\",GPU_I_ID=\"2\"} 0.6\n"
                + "DCGM_FI_PROF_GR_ENGINE_ACTIVE{" + labels + "GPU_I_PROFILE=\"1g.10gb\",GPU_I_ID=\"9\"} 0.2\n");
        api.answer(KubernetesApiStandIn.SLICES_PATH, 200, KubernetesApiStandIn.migSlices())
                .answer(KubernetesApiStandIn.CLAIMS_PATH, 200, KubernetesApiStandIn.migClaims());
        Path instances = write("lgi.txt", Fixtures.read(
                "nvidia-smi/mig/mig-lgi-a100-80gb-mixed-dcgm-issue138-excerpt.txt"));
        Path program = write("nvidia-smi-mig", """
                #!/bin/sh
                case "$*" in
                  "mig -lgi") cat '%s' ;;
                  --query-gpu=index,uuid,memory.total,mig.mode.current*) echo "0, %s, 81920, Enabled" ;;
                  *) echo "unexpected: $*" >&2; exit 2 ;;
                esac
                """.formatted(instances, parent));
        program.toFile().setExecutable(true);
        Map<String, String> env = node();
        env.remove("GPULEDGER_KUBELET_URL");
        env.put("GPULEDGER_NVIDIA_SMI_ENABLED", "false");
        env.put("GPULEDGER_PROCESSES_NVIDIA_SMI", program.toString());
        env.put("GPULEDGER_DCGM_ENABLED", "true");
        env.put("GPULEDGER_DCGM_URL", dcgm.url() + "/metrics");
        env.put("GPULEDGER_KUBERNETES_API_URL", api.url());
        env.put("GPULEDGER_KUBERNETES_NODE_NAME", "gpu-node-7");

        int status = AgentMain.run(new String[] {"--once", "--dry-run"}, env, print(out), print(err));

        assertThat(status).as(err.toString(StandardCharsets.UTF_8)).isZero();
        Map<String, JsonNode> samples = samplesOf();
        assertThat(samples).containsOnlyKeys(parent + "/mig/2", parent + "/mig/9");
        assertThat(samples.get(parent + "/mig/2").get("jobId").asText()).isEqualTo("embedder-5c7b");
        assertThat(samples.get(parent + "/mig/2").get("team").asText()).isEqualTo("search");
        assertThat(samples.get(parent + "/mig/9").get("jobId").asText()).isEqualTo("unknown");
        assertThat(err.toString(StandardCharsets.UTF_8)).doesNotContain("MIG");
    }

    @Test
    void shouldSayAnApiServerThatRefusesAndSampleAsWithoutClaims() throws IOException {
        Map<String, String> env = node();
        env.putAll(draApiServer());
        api.answer(KubernetesApiStandIn.SLICES_PATH, 403, "{\"kind\": \"Status\", \"code\": 403}");
        deleteProcess(404);

        int status = AgentMain.run(new String[] {"--once", "--dry-run"}, env, print(out), print(err));

        assertThat(status).isZero();
        assertThat(samples().get(GPU_1).get("jobId").asText()).isEqualTo("unknown");
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("HTTP 403").contains("resourceslices");
    }

    /** An API server whose claim of the kubelet's ranker pod reserves GPU 1 for it; the agent's settings to read it. */
    private Map<String, String> draApiServer() {
        api.answer(KubernetesApiStandIn.SLICES_PATH, 200, KubernetesApiStandIn.slices()
                .replace(KubernetesApiStandIn.ONE_POD_GPU, GPU_1));
        api.answer(KubernetesApiStandIn.claimPath("search", KubernetesApiStandIn.RANKER_CLAIM), 200,
                KubernetesApiStandIn.claim(KubernetesApiStandIn.RANKER_CLAIM));
        return Map.of("GPULEDGER_KUBERNETES_API_URL", api.url(), "GPULEDGER_KUBERNETES_NODE_NAME", "gpu-node-7");
    }

    private void deleteProcess(int pid) throws IOException {
        Path process = dir.resolve("proc").resolve(Integer.toString(pid));
        try (var files = Files.list(process)) {
            for (Path file : files.toList()) {
                Files.delete(file);
            }
        }
        Files.delete(process);
    }

    @Test
    void shouldTakeAProcessWhoseJobOrTeamNoSampleCanNameAsUnattributedAndSampleEveryGpu() throws IOException {
        Map<String, String> env = node();
        // A Slurm account no sample can carry: '|' separates a roll-up key's dimension from its id
        new ProcTree(dir.resolve("proc")).environ(404, Map.of("SLURM_JOB_ID", "4242", "SLURM_JOB_ACCOUNT",
                "physics|theory"));

        int status = AgentMain.run(new String[] {"--once", "--dry-run"}, env, print(out), print(err));

        assertThat(status).as(err.toString(StandardCharsets.UTF_8)).isZero();
        assertThat(samples()).as("every GPU sampled").containsKeys(GPU_0, GPU_1);
        assertThat(samples().get(GPU_0).get("allocations")).hasSize(2);
        assertThat(samples().get(GPU_1).get("jobId").asText()).as("its one process unattributed: no job named")
                .isEqualTo("unknown");
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("process 404 of job '4242'")
                .contains("counted as unattributed").contains("team");
    }

    @Test
    void shouldTakeAProcessOfAJobNamedAsASharedGpuIsMarkedAsUnattributed() throws IOException {
        Map<String, String> env = node();
        // Whichever source names it so (here the batch system): 'shared' marks a shared GPU's samples, no job
        new ProcTree(dir.resolve("proc")).environ(404, Map.of("SLURM_JOB_ID", "shared"));

        int status = AgentMain.run(new String[] {"--once", "--dry-run"}, env, print(out), print(err));

        assertThat(status).as(err.toString(StandardCharsets.UTF_8)).isZero();
        assertThat(samples().get(GPU_1).get("jobId").asText()).as("its one process unattributed: no job named")
                .isEqualTo("unknown");
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("process 404 of job 'shared'")
                .contains("counted as unattributed").contains("marks a shared GPU's samples");
    }

    @Test
    void shouldGiveAJobStepInASlurmdPodToItsSlurmJobNotToThePod() throws IOException {
        Map<String, String> env = node();
        // Slurm run by Kubernetes: the step's cgroup lies in the slurmd pod's (the kubelet's ranker pod here); its
        // environment unread (an agent without the capability to read other users' environments)
        Files.delete(dir.resolve("proc").resolve("404").resolve("environ"));
        new ProcTree(dir.resolve("proc")).cgroup(404, "0::/kubepods.slice/kubepods-burstable.slice/"
                + "kubepods-burstable-pod" + WEB_POD.replace('-', '_') + ".slice/cri-containerd-"
                + "5a1f0e2b9c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d2e3f4a5b6c7d8e9f.scope/system.slice/"
                + "slurmstepd.scope/job_4242/step_0/user/task_0\n");

        int status = AgentMain.run(new String[] {"--once", "--dry-run"}, env, print(out), print(err));

        assertThat(status).as(err.toString(StandardCharsets.UTF_8)).isZero();
        assertThat(samples().get(GPU_1).get("jobId").asText()).isEqualTo("4242");
    }

    @Test
    void shouldCountSharedSamplesAndUnattributedProcesses() throws IOException {
        AgentConfig config = AgentConfig.load(java.util.Optional.empty(), node());
        List<String> problems = new java.util.ArrayList<>();
        try (NodeAgent agent = NodeAgent.dryRun(config, (topic, key, value, timestamp) -> { },
                java.time.Clock.systemUTC(), problems::add)) {
            agent.round();
            agent.round();

            assertThat(agent.counters().samplesShared()).isEqualTo(2);
            assertThat(agent.counters().processesUnattributed()).as("the stray process, each round").isEqualTo(2);
            assertThat(agent.metricsText()).contains("gpuledger_agent_samples_shared_total 2\n")
                    .contains("gpuledger_agent_processes_unattributed_total 2\n");
            assertThat(problems).isEmpty();
        }
    }

    @Test
    void shouldRefuseToStartWithAPolicyOrSourceItDoesNotKnow() throws IOException {
        int policy = AgentMain.run(new String[] {"--once", "--dry-run", "--share-policy", "fair"}, node(),
                print(out), print(err));
        Map<String, String> env = node();
        env.put("GPULEDGER_SHARE_SOURCES", "hami");
        int source = AgentMain.run(new String[] {"--once", "--dry-run"}, env, print(out), print(err));

        assertThat(policy).isEqualTo(2);
        assertThat(source).isEqualTo(2);
        assertThat(out.size()).isZero();
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("share.policy").contains("fair")
                .contains("give hami.url");
    }

    @Test
    void shouldPrintJobsNamedAfterTheirPodsByNamespaceAndNameWhenToldSo() throws IOException {
        Map<String, String> env = node();
        env.put("GPULEDGER_KUBERNETES_JOB_IDS", "namespace/pod");

        int status = AgentMain.run(new String[] {"--once", "--dry-run"}, env, print(out), print(err));

        assertThat(status).as(err.toString(StandardCharsets.UTF_8)).isZero();
        // the ranker's pod has a job label; the notebook's is named after the pod
        assertThat(samples().get(GPU_0).get("allocations")).isEqualTo(Json.MAPPER.readTree("""
                [{"jobId": "ranker", "team": "search", "share": 0.3, "measuredBy": "sm"},
                 {"jobId": "research/notebook-0", "team": "research", "share": 0.45, "measuredBy": "sm"}]"""));
    }

    @Test
    void shouldRefuseToStartWithJobIdsItDoesNotKnowOrCannotWrite() throws IOException {
        Map<String, String> unknown = node();
        unknown.put("GPULEDGER_KUBERNETES_JOB_IDS", "uid");
        // workloads only the kubelet's pod list gives
        Map<String, String> noKubelet = node();
        noKubelet.remove("GPULEDGER_KUBELET_URL");
        noKubelet.put("GPULEDGER_KUBERNETES_JOB_IDS", "namespace/workload");

        assertThat(AgentMain.run(new String[] {"--once", "--dry-run"}, unknown, print(out), print(err))).isEqualTo(2);
        assertThat(AgentMain.run(new String[] {"--once", "--dry-run"}, noKubelet, print(out), print(err)))
                .isEqualTo(2);

        assertThat(out.size()).isZero();
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("kubernetes.job-ids: 'uid' is none of pod,"
                + " namespace/pod, workload, namespace/workload").contains("kubernetes.job-ids=namespace/workload"
                + " names jobs after the workloads the kubelet's pod list gives: give kubelet.url");
    }

    @Test
    void shouldNameDcgmExportersPodsJobsAfterTheirWorkloadsWhenToldSo() throws IOException {
        // Given dcgm-exporter's per-pod series of a GPU two replicas of Deployment serve-search and a StatefulSet's
        // pod share, and the kubelet listing the three with the owner references the API writes
        String labels = "gpu=\"0\",UUID=\"" + GPU_0 + "\",modelName=\"NVIDIA A100-SXM4-40GB\",namespace=\"search\",";
        dcgm.answer("GET /metrics", 200, "DCGM_FI_DEV_GPU_UTIL{" + labels.substring(0, labels.length() - 1)
                + "} 70\n" + "DCGM_FI_DEV_GPU_UTIL{" + labels + "pod=\"serve-search-7d9f8c6b5-x2k4q\"} 12\n"
                + "DCGM_FI_DEV_GPU_UTIL{" + labels + "pod=\"serve-search-7d9f8c6b5-p8w2m\"} 20\n"
                + "DCGM_FI_DEV_GPU_UTIL{" + labels + "pod=\"embedder-0\"} 34\n");
        Map<String, String> env = node();
        kubelet.answer("GET /pods", 200, """
                {"kind": "PodList", "items": [%s, %s, %s]}""".formatted(
                replica("serve-search-7d9f8c6b5-x2k4q", WEB_POD, "ReplicaSet", "serve-search-7d9f8c6b5"),
                replica("serve-search-7d9f8c6b5-p8w2m", NOTEBOOK_POD, "ReplicaSet", "serve-search-7d9f8c6b5"),
                replica("embedder-0", "e0000000-0000-4000-8000-000000000000", "StatefulSet", "embedder")));
        env.put("GPULEDGER_DCGM_ENABLED", "true");
        env.put("GPULEDGER_DCGM_URL", dcgm.url() + "/metrics");
        env.put("GPULEDGER_KUBERNETES_JOB_IDS", "workload");

        int status = AgentMain.run(new String[] {"--once", "--dry-run"}, env, print(out), print(err));

        // Then the replicas' shares are one job's, the Deployment's
        assertThat(status).as(err.toString(StandardCharsets.UTF_8)).isZero();
        JsonNode allocations = samples().get(GPU_0).get("allocations");
        assertThat(allocations).hasSize(2);
        Map<String, Double> shares = new HashMap<>();
        allocations.forEach(a -> shares.put(a.get("jobId").asText(), a.get("share").asDouble()));
        assertThat(shares.get("serve-search")).isCloseTo(0.12 + 0.20, within(1e-9));
        assertThat(shares.get("embedder")).isCloseTo(0.34, within(1e-9));
    }

    @Test
    void shouldNameAGpusPodAfterItsWorkloadWithSharesOffAndSayAKubeletThatFails() throws IOException {
        // Given a GPU dcgm-exporter labels with one replica of Deployment serve-search, shares off
        String labels = "gpu=\"0\",UUID=\"" + GPU_0 + "\",modelName=\"NVIDIA A100-SXM4-40GB\",namespace=\"search\","
                + "pod=\"serve-search-7d9f8c6b5-x2k4q\"";
        dcgm.answer("GET /metrics", 200, "DCGM_FI_DEV_GPU_UTIL{" + labels + "} 70\n");
        Map<String, String> env = node();
        env.put("GPULEDGER_DCGM_ENABLED", "true");
        env.put("GPULEDGER_DCGM_URL", dcgm.url() + "/metrics");
        env.put("GPULEDGER_KUBERNETES_JOB_IDS", "workload");
        env.put("GPULEDGER_SHARE_SOURCES", "none");
        String replica = replica("serve-search-7d9f8c6b5-x2k4q", WEB_POD, "ReplicaSet", "serve-search-7d9f8c6b5");

        // When the kubelet lists it, then when it fails
        kubelet.answer("GET /pods", 200, "{\"kind\": \"PodList\", \"items\": [" + replica + "]}");
        assertThat(AgentMain.run(new String[] {"--once", "--dry-run"}, env, print(out), print(err))).isZero();
        String listed = samples().get(GPU_0).get("jobId").asText();
        out.reset();
        kubelet.answer("GET /pods", 503, "unavailable");
        assertThat(AgentMain.run(new String[] {"--once", "--dry-run"}, env, print(out), print(err))).isZero();

        // Then the GPU is the Deployment's job, and without the kubelet the pod's own, which is said
        assertThat(listed).isEqualTo("serve-search");
        assertThat(samples().get(GPU_0).get("jobId").asText()).isEqualTo("serve-search-7d9f8c6b5-x2k4q");
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("answered HTTP 503; processes in pods stay"
                + " unattributed, and pods not listed are named after themselves, not their workloads");
    }

    /** A pod in namespace search whose controlling owner is {@code kind} {@code owner}. */
    private static String replica(String name, String uid, String kind, String owner) {
        String hash = kind.equals("ReplicaSet") ? owner.substring(owner.lastIndexOf('-') + 1) : "";
        return """
                {"metadata": {"name": "%s", "namespace": "search", "uid": "%s", "labels": {"pod-template-hash": "%s"},
                              "ownerReferences": [{"apiVersion": "apps/v1", "kind": "%s", "name": "%s",
                                                   "uid": "d00d0000-0000-4000-8000-000000000000",
                                                   "controller": true}]}}""".formatted(name, uid, hash, kind, owner);
    }

    @Test
    void shouldWriteDcgmExportersAndHamisPodJobsWithTheirNamespacesWhenToldSo() throws IOException {
        String labels = "gpu=\"0\",UUID=\"" + GPU_0 + "\",modelName=\"NVIDIA A100-SXM4-40GB\",";
        dcgm.answer("GET /metrics", 200, "DCGM_FI_DEV_GPU_UTIL{" + labels.substring(0, labels.length() - 1)
                + "} 50\n" + "DCGM_FI_DEV_GPU_UTIL{" + labels + "namespace=\"a\",pod=\"p\"} 12\n"
                + "DCGM_FI_DEV_GPU_UTIL{" + labels + "namespace=\"b\",pod=\"q\"} 34\n");
        hami.answer("GET /metrics", 200, """
                hami_container_device_utilization_ratio{container="m",device_uuid="%1$s",namespace="ai",pod="llm-0"} 50
                hami_container_device_utilization_ratio{container="m",device_uuid="%1$s",namespace="lab",pod="nb-3"} 20
                """.formatted(GPU_0));
        Map<String, String> fromDcgm = node();
        fromDcgm.put("GPULEDGER_KUBERNETES_JOB_IDS", "namespace/pod");
        fromDcgm.put("GPULEDGER_DCGM_ENABLED", "true");
        fromDcgm.put("GPULEDGER_DCGM_URL", dcgm.url() + "/metrics");
        Map<String, String> fromHami = node();
        fromHami.put("GPULEDGER_KUBERNETES_JOB_IDS", "namespace/pod");
        fromHami.put("GPULEDGER_HAMI_URL", hami.url() + "/metrics");

        assertThat(AgentMain.run(new String[] {"--once", "--dry-run"}, fromDcgm, print(out), print(err))).isZero();
        JsonNode dcgmSplit = samples().get(GPU_0).get("allocations");
        out.reset();
        assertThat(AgentMain.run(new String[] {"--once", "--dry-run"}, fromHami, print(out), print(err))).isZero();

        assertThat(dcgmSplit).isEqualTo(Json.MAPPER.readTree("""
                [{"jobId": "a/p", "team": "a", "share": 0.12, "measuredBy": "sm"},
                 {"jobId": "b/q", "team": "b", "share": 0.34, "measuredBy": "sm"}]"""));
        assertThat(samples().get(GPU_0).get("allocations")).isEqualTo(Json.MAPPER.readTree("""
                [{"jobId": "ai/llm-0", "team": "ai", "share": 0.5, "measuredBy": "sm"},
                 {"jobId": "lab/nb-3", "team": "lab", "share": 0.2, "measuredBy": "sm"}]"""));
    }

    @Test
    void shouldSayOnceWithoutCountingAnErrorWhenPodsOfOneNameInTwoNamespacesShareAGpu() throws IOException {
        Map<String, String> env = nodeWithHami("""
                hami_container_device_utilization_ratio{container="m",device_uuid="%1$s",namespace="alice",pod="n"} 50
                hami_container_device_utilization_ratio{container="m",device_uuid="%1$s",namespace="bob",pod="n"} 20
                """);
        List<String> problems = new java.util.ArrayList<>();
        try (NodeAgent agent = NodeAgent.dryRun(AgentConfig.load(java.util.Optional.empty(), env),
                (topic, key, value, timestamp) -> { }, java.time.Clock.systemUTC(), problems::add)) {
            List<io.gpuledger.model.TelemetrySample> first = agent.round();
            agent.round();

            // one job by name, so the GPU is that one job's, as if one pod had it
            assertThat(first).filteredOn(sample -> sample.gpuUuid().equals(GPU_0)).singleElement()
                    .satisfies(sample -> {
                        assertThat(sample.jobId()).isEqualTo("n");
                        assertThat(sample.allocations()).isEmpty();
                    });
            assertThat(problems).containsExactly("pods named n in namespaces alice, bob get one job id 'n';"
                    + " kubernetes.job-ids=namespace/pod tells them apart");
            assertThat(agent.metricsText()).doesNotContain("gpuledger_agent_collector_errors_total{");
        }
    }

    /** The node: its nvidia-smi, its processes and its kubelet. */
    /** The node's environment with HAMi's monitor answering {@code page}, GPU 0's UUID put for its {@code %1$s}. */
    private Map<String, String> nodeWithHami(String page) throws IOException {
        hami.answer("GET /metrics", 200, page.formatted(GPU_0));
        Map<String, String> env = node();
        env.put("GPULEDGER_HAMI_URL", hami.url() + "/metrics");
        return env;
    }

    private Map<String, String> node() throws IOException {
        kubelet.answer("GET /pods", 200, """
                {"kind": "PodList", "items": [
                  {"metadata": {"name": "ranker-5d8c", "namespace": "search", "uid": "%s",
                                "labels": {"app": "ranker"}},
                   "status": {"resourceClaimStatuses": [{"name": "gpu", "resourceClaimName": "%s"}]}},
                  {"metadata": {"name": "notebook-0", "namespace": "research", "uid": "%s"}}]}"""
                .formatted(WEB_POD, KubernetesApiStandIn.RANKER_CLAIM, NOTEBOOK_POD));
        ProcTree proc = new ProcTree(dir.resolve("proc")).inPod(101, WEB_POD).inPod(202, NOTEBOOK_POD)
                .cgroup(303, "0::/user.slice/user-1000.slice/session-3.scope\n")
                .environ(404, Map.of("SLURM_JOB_ID", "4242", "SLURM_JOB_ACCOUNT", "physics"));
        Path gpus = write("gpus.csv", "0, " + GPU_0 + ", NVIDIA A100-SXM4-40GB, 85, 16384, 40960, 250.0, 400.0\n"
                + "1, " + GPU_1 + ", NVIDIA A100-SXM4-40GB, 60, 20000, 40960, 200.0, 400.0\n");
        Path memory = write("memory.csv", "0, " + GPU_0 + ", 40960, Disabled\n1, " + GPU_1 + ", 40960, Disabled\n");
        Path apps = write("apps.csv", "gpu_uuid, pid, used_gpu_memory [MiB]\n" + GPU_0 + ", 101, 10240 MiB\n"
                + GPU_0 + ", 202, 4096 MiB\n" + GPU_0 + ", 303, 2048 MiB\n" + GPU_1 + ", 404, 20000 MiB\n");
        Path pmon = write("pmon.txt", """
                # gpu         pid   type     sm    mem    enc    dec    jpg    ofa     fb   ccpm    command
                # Idx           #    C/G      %      %      %      %      %      %     MB     MB    name
                    0        101     C     30     10      -      -      -      -  10240      0    python
                    0        202     C     45     12      -      -      -      -   4096      0    python
                    0        303     C     10      1      -      -      -      -   2048      0    stray
                    1        404     C     60     20      -      -      -      -  20000      0    sim
                """);
        Path program = write("nvidia-smi", """
                #!/bin/sh
                case "$*" in
                  --query-gpu=index,uuid,memory.total*) cat '%s' ;;
                  --query-gpu=*) cat '%s' ;;
                  --query-compute-apps=*) cat '%s' ;;
                  pmon*) cat '%s' ;;
                  *) echo "unexpected: $*" >&2; exit 2 ;;
                esac
                """.formatted(memory, gpus, apps, pmon));
        program.toFile().setExecutable(true);
        Map<String, String> env = new HashMap<>();
        env.put("GPULEDGER_CLOUD", "none");
        env.put("GPULEDGER_HOST", "gpu-node-7");
        env.put("GPULEDGER_INSTANCE_TYPE", "p4d.24xlarge");
        env.put("GPULEDGER_PROVIDER", "aws");
        env.put("GPULEDGER_REGION", "us-east-1");
        env.put("GPULEDGER_LIFECYCLE", "on-demand");
        env.put("GPULEDGER_TEAM", "platform");
        env.put("GPULEDGER_DCGM_ENABLED", "false");
        env.put("GPULEDGER_NVIDIA_SMI_COMMAND", program + " --query-gpu="
                + String.join(",", io.gpuledger.ingest.agent.collect.NvidiaSmiCsv.DEFAULT_FIELDS)
                + " --format=csv,noheader,nounits");
        env.put("GPULEDGER_PROCESSES_NVIDIA_SMI", program.toString());
        env.put("GPULEDGER_PROC_ROOT", proc.root().toString());
        env.put("GPULEDGER_KUBELET_URL", kubelet.url());
        env.put("GPULEDGER_KUBELET_JOB_LABELS", "app");
        env.put("GPULEDGER_SPOOL_DIR", dir.resolve("spool").toString());
        return env;
    }

    private Map<String, JsonNode> samples() throws IOException {
        Map<String, JsonNode> samples = samplesOf();
        assertThat(samples).containsOnlyKeys(List.of(GPU_0, GPU_1));
        return samples;
    }

    /** The printed samples, by GPU (or slice). */
    private Map<String, JsonNode> samplesOf() throws IOException {
        Map<String, JsonNode> samples = new HashMap<>();
        for (String line : out.toString(StandardCharsets.UTF_8).split("\n")) {
            if (!line.isBlank()) {
                JsonNode record = Json.MAPPER.readTree(line);
                if (record.has("gpuUuid")) {
                    samples.put(record.get("gpuUuid").asText(), record);
                }
            }
        }
        return samples;
    }

    private Path write(String name, String text) throws IOException {
        return Files.writeString(dir.resolve(name), text, StandardCharsets.UTF_8);
    }

    private static PrintStream print(ByteArrayOutputStream buffer) {
        return new PrintStream(buffer, true, StandardCharsets.UTF_8);
    }
}
