package io.gpuledger.ingest.agent.owners;

import static io.gpuledger.ingest.testing.KubernetesApiStandIn.CLAIMS_NEXT_PATH;
import static io.gpuledger.ingest.testing.KubernetesApiStandIn.CLAIMS_PATH;
import static io.gpuledger.ingest.testing.KubernetesApiStandIn.MIG_PARENT_GPU;
import static io.gpuledger.ingest.testing.KubernetesApiStandIn.ONE_POD_GPU;
import static io.gpuledger.ingest.testing.KubernetesApiStandIn.RANKER_CLAIM;
import static io.gpuledger.ingest.testing.KubernetesApiStandIn.RANKER_POD;
import static io.gpuledger.ingest.testing.KubernetesApiStandIn.SLICES_PATH;
import static io.gpuledger.ingest.testing.KubernetesApiStandIn.claim;
import static io.gpuledger.ingest.testing.KubernetesApiStandIn.claimPath;
import static io.gpuledger.ingest.testing.KubernetesApiStandIn.claims;
import static io.gpuledger.ingest.testing.KubernetesApiStandIn.migClaims;
import static io.gpuledger.ingest.testing.KubernetesApiStandIn.migSlices;
import static io.gpuledger.ingest.testing.KubernetesApiStandIn.slices;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gpuledger.ingest.agent.collect.NvidiaSmiGpus;
import io.gpuledger.ingest.agent.usage.Owner;
import io.gpuledger.ingest.agent.usage.PodJobIds;
import io.gpuledger.ingest.agent.usage.PodJobs;
import io.gpuledger.ingest.testing.Fixtures;
import io.gpuledger.ingest.testing.ProcTree;
import io.gpuledger.ingest.testing.StandInServer;
import io.gpuledger.model.MovableClock;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * GPUs mapped to the pods their DRA ResourceClaims reserve them for, with an API server stand-in on 127.0.0.1
 * answering lists shaped like resource.k8s.io/v1's (stand-ins/kubernetes/ORIGINS.md).
 */
class DraClaimsTest {

    private static final String TWO_PODS_GPU = "GPU-f7c1496c-0c3b-9e2d-44a1-8d2b7e3f6a02";
    private static final String ADMIN_ACCESS_GPU = "GPU-0a9d3c55-7e61-4b2f-a8c4-2e5d9f1b3c03";
    private static final String FREE_GPU = "GPU-6b2e8f14-93ad-4c07-b1e5-7f3a0d2c9e04";
    /** The GPU instances of a node without MIG: never asked for, as no claim holds a MIG device. */
    private static final MigInstances WHOLE_GPUS = new MigInstances(arguments -> {
        throw new IOException("no GPU is split by MIG on this node: nvidia-smi " + arguments);
    });
    /** nvidia-smi's GPU list of the MIG node: its A100 80GB, split by MIG. */
    private static final String GPU_LIST = "0, " + MIG_PARENT_GPU + ", 81920, Enabled\n";

    @TempDir
    Path dir;

    private final StandInServer api = StandInServer.start();
    private final StandInServer kubelet = StandInServer.start();
    private final MovableClock clock = new MovableClock(Instant.parse("2026-12-05T10:00:00Z"));

    @AfterEach
    void stop() {
        api.close();
        kubelet.close();
    }

    @Test
    void shouldNameTheOnePodAGpusClaimIsReservedForByItsNameAndNamespace() throws IOException {
        Path token = Files.writeString(dir.resolve("token"), "s3cret\n");
        api.require("Authorization", "Bearer s3cret").answer(SLICES_PATH, 200, slices())
                .answer(CLAIMS_PATH, 200, claims());
        DraClaims claims = new DraClaims(URI.create(api.url() + "/"), "gpu-node-7", Optional.of(token),
                Optional.empty(), Optional.empty(), new PodJobs(PodJobIds.POD), clock, Runnable::run, WHOLE_GPUS);

        assertThat(claims.holderOf(ONE_POD_GPU)).contains(new Owner("ranker-7d9f", "search"));
        assertThat(claims.holderOf(TWO_PODS_GPU)).as("a claim two pods share says not which used it").isEmpty();
        assertThat(claims.holderOf(ADMIN_ACCESS_GPU)).as("a monitor's admin access holds nothing").isEmpty();
        assertThat(claims.holderOf(FREE_GPU)).isEmpty();
        assertThat(claims.drainErrors()).isEmpty();
        assertThat(api.requests()).containsExactly(SLICES_PATH, CLAIMS_PATH);
    }

    @Test
    void shouldWriteTheHoldersJobByNamespaceAndNameWhenToldSo() {
        api.answer(SLICES_PATH, 200, slices()).answer(CLAIMS_PATH, 200, claims());
        DraClaims claims = new DraClaims(URI.create(api.url()), "gpu-node-7", Optional.empty(), Optional.empty(),
                Optional.empty(), new PodJobs(PodJobIds.NAMESPACE_POD), clock, Runnable::run, WHOLE_GPUS);

        assertThat(claims.holderOf(ONE_POD_GPU)).contains(new Owner("search/ranker-7d9f", "search"));
    }

    @Test
    void shouldNoteTheHoldersPodWhoseNameNamesItsJob() {
        api.answer(SLICES_PATH, 200, slices()).answer(CLAIMS_PATH, 200, claims());
        PodJobs podJobs = new PodJobs(PodJobIds.POD);
        DraClaims claims = new DraClaims(URI.create(api.url()), "gpu-node-7", Optional.empty(), Optional.empty(),
                Optional.empty(), podJobs, clock, Runnable::run, WHOLE_GPUS);

        assertThat(claims.holderOf(ONE_POD_GPU)).contains(new Owner("ranker-7d9f", "search"));
        // another source names a pod of that name in another namespace in the same round
        podJobs.named("staging", "ranker-7d9f");

        assertThat(podJobs.drainSameNamed()).containsExactly("pods named ranker-7d9f in namespaces search, staging"
                + " get one job id 'ranker-7d9f'; kubernetes.job-ids=namespace/pod tells them apart");
    }

    @Test
    void shouldNameThePodOfEachMigSliceItsClaimIsReservedForByTheGpuInstanceAtItsPlacement() {
        api.answer(SLICES_PATH, 200, migSlices()).answer(CLAIMS_PATH, 200, migClaims());
        List<String> ran = new ArrayList<>();
        MigInstances mig = new MigInstances(arguments -> {
            ran.add(arguments);
            return arguments.equals(MigInstances.LIST)
                    ? Fixtures.read("nvidia-smi/mig/mig-lgi-a100-80gb-mixed-dcgm-issue138-excerpt.txt")
                    : GPU_LIST;
        });
        DraClaims claims = new DraClaims(URI.create(api.url()), "gpu-node-7", Optional.empty(), Optional.empty(),
                Optional.empty(), new PodJobs(PodJobIds.POD), clock, Runnable::run, mig);

        // The 3g.40gb from memory slice 4 is GPU instance 2, the 1g.10gb from slice 3 instance 10
        assertThat(claims.holderOf(MIG_PARENT_GPU + "/mig/2")).contains(new Owner("embedder-5c7b", "search"));
        assertThat(claims.holderOf(MIG_PARENT_GPU + "/mig/10")).contains(new Owner("notebook-ada", "research"));
        assertThat(claims.holderOf(MIG_PARENT_GPU + "/mig/9")).as("a slice no claim holds").isEmpty();
        assertThat(claims.holderOf(MIG_PARENT_GPU)).as("the GPU as a whole is no one's").isEmpty();
        assertThat(claims.drainErrors()).isEmpty();
        assertThat(ran).containsExactly(MigInstances.LIST, NvidiaSmiGpus.QUERY);
    }

    @Test
    void shouldSayOnceThatMigSlicesCannotBeNamedWhereNvidiaSmiFailsAndRunItOnlyForMigDevices() {
        api.answer(SLICES_PATH, 200, migSlices()).answer(CLAIMS_PATH, 200, migClaims());
        List<String> ran = new ArrayList<>();
        MigInstances failing = new MigInstances(arguments -> {
            ran.add(arguments);
            throw new IOException("'nvidia-smi mig -lgi' cannot be run: nvidia-smi: not found");
        });
        DraClaims claims = new DraClaims(URI.create(api.url()), "gpu-node-7", Optional.empty(), Optional.empty(),
                Optional.empty(), new PodJobs(PodJobIds.POD), clock, Runnable::run, failing);

        assertThat(claims.holderOf(MIG_PARENT_GPU + "/mig/2")).isEmpty();
        assertThat(claims.drainErrors()).singleElement().asString()
                .contains("nvidia-smi cannot list the GPU instances", "not found", "not mapped");
        clock.set(clock.instant().plus(DraClaims.REFRESH_EVERY));
        assertThat(claims.holderOf(MIG_PARENT_GPU + "/mig/2")).isEmpty();
        assertThat(claims.drainErrors()).as("said once").isEmpty();
        assertThat(ran).hasSize(2);

        // A node of whole GPUs never runs it
        List<String> wholeRan = new ArrayList<>();
        StandInServer whole = StandInServer.start();
        try {
            whole.answer(SLICES_PATH, 200, slices()).answer(CLAIMS_PATH, 200, claims());
            DraClaims wholeClaims = new DraClaims(URI.create(whole.url()), "gpu-node-7", Optional.empty(),
                    Optional.empty(), Optional.empty(), new PodJobs(PodJobIds.POD), clock, Runnable::run,
                    new MigInstances(arguments -> {
                        wholeRan.add(arguments);
                        return "";
                    }));
            assertThat(wholeClaims.holderOf(ONE_POD_GPU)).contains(new Owner("ranker-7d9f", "search"));
        } finally {
            whole.close();
        }
        assertThat(wholeRan).isEmpty();
    }

    @Test
    void shouldSayWhichMigDeviceMatchesNoGpuInstance() {
        api.answer(SLICES_PATH, 200, migSlices()).answer(CLAIMS_PATH, 200, migClaims());
        // nvidia-smi lists only the 3g.40gb: the GPU was split again since the driver published its devices
        MigInstances mig = new MigInstances(arguments -> arguments.equals(MigInstances.LIST)
                ? "|   0  MIG 3g.40gb          9        2          4:4     |\n" : GPU_LIST);
        DraClaims claims = new DraClaims(URI.create(api.url()), "gpu-node-7", Optional.empty(), Optional.empty(),
                Optional.empty(), new PodJobs(PodJobIds.POD), clock, Runnable::run, mig);

        assertThat(claims.holderOf(MIG_PARENT_GPU + "/mig/2")).contains(new Owner("embedder-5c7b", "search"));
        // Only the devices claims were given are looked for: the 2g.20gb and the other 1g.10gb no claim holds
        assertThat(claims.drainErrors()).singleElement().asString()
                .contains("gpu-0-mig-1g10gb-19-3 (1g.10gb of " + MIG_PARENT_GPU + " from memory slice 3)")
                .doesNotContain("gpu-0-mig-2g20gb-14-0").doesNotContain("gpu-0-mig-1g10gb-19-2");
    }

    @Test
    void shouldMapNoMigDeviceToAnInstanceOfAnotherProfileAtItsPlacement() {
        api.answer(SLICES_PATH, 200, migSlices()).answer(CLAIMS_PATH, 200, migClaims());
        // The GPU was split again: a 1g.10gb instance now starts where the claimed 3g.40gb device started
        MigInstances mig = new MigInstances(arguments -> arguments.equals(MigInstances.LIST)
                ? "|   0  MIG 1g.10gb         19       11          4:1     |\n"
                + "|   0  MIG 1g.10gb         19       10          3:1     |\n" : GPU_LIST);
        DraClaims claims = new DraClaims(URI.create(api.url()), "gpu-node-7", Optional.empty(), Optional.empty(),
                Optional.empty(), new PodJobs(PodJobIds.POD), clock, Runnable::run, mig);

        assertThat(claims.holderOf(MIG_PARENT_GPU + "/mig/11")).isEmpty();
        assertThat(claims.holderOf(MIG_PARENT_GPU + "/mig/10")).contains(new Owner("notebook-ada", "research"));
        assertThat(claims.drainErrors()).singleElement().asString().contains("gpu-0-mig-3g40gb-9-4 (3g.40gb");
    }

    @Test
    void shouldKeepTheMigSlicesNvidiaSmiLastListedWhileItFails() {
        api.answer(SLICES_PATH, 200, migSlices()).answer(CLAIMS_PATH, 200, migClaims());
        String table = Fixtures.read("nvidia-smi/mig/mig-lgi-a100-80gb-mixed-dcgm-issue138-excerpt.txt");
        boolean[] failing = {false};
        MigInstances mig = new MigInstances(arguments -> {
            if (failing[0]) {
                throw new IOException("'nvidia-smi mig -lgi' did not finish within 10 s");
            }
            return arguments.equals(MigInstances.LIST) ? table : GPU_LIST;
        });
        DraClaims claims = new DraClaims(URI.create(api.url()), "gpu-node-7", Optional.empty(), Optional.empty(),
                Optional.empty(), new PodJobs(PodJobIds.POD), clock, Runnable::run, mig);
        assertThat(claims.holderOf(MIG_PARENT_GPU + "/mig/2")).contains(new Owner("embedder-5c7b", "search"));

        failing[0] = true;
        clock.set(clock.instant().plus(DraClaims.REFRESH_EVERY));

        assertThat(claims.holderOf(MIG_PARENT_GPU + "/mig/2")).contains(new Owner("embedder-5c7b", "search"));
        assertThat(claims.drainErrors()).singleElement().asString().contains("did not finish");
        failing[0] = false;
        clock.set(clock.instant().plus(DraClaims.REFRESH_EVERY));
        assertThat(claims.holderOf(MIG_PARENT_GPU + "/mig/10")).contains(new Owner("notebook-ada", "research"));
        assertThat(claims.drainErrors()).isEmpty();
    }

    @Test
    void shouldTakeThePodsJobAndTeamFromItsLabelsWhereTheKubeletIsRead() {
        api.answer(SLICES_PATH, 200, slices()).answer(claimPath("search", RANKER_CLAIM), 200, claim(RANKER_CLAIM));
        kubelet.answer("GET /pods", 200, podList(rankerPod()));
        DraClaims claims = new DraClaims(URI.create(api.url()), "gpu-node-7", Optional.empty(), Optional.empty(),
                Optional.of(kubeletPods()), new PodJobs(PodJobIds.POD), clock, Runnable::run, WHOLE_GPUS);

        assertThat(claims.holderOf(ONE_POD_GPU)).contains(new Owner("ranker", "search-ml"));
    }

    @Test
    void shouldKeepTheJobTheKubeletGaveAHolderWhileItsClaimsAreNotAskedForAgain() {
        // Given the ranker pod holding a GPU by its claim, named by the kubelet's labels
        api.answer(SLICES_PATH, 200, slices()).answer(claimPath("search", RANKER_CLAIM), 200, claim(RANKER_CLAIM));
        kubelet.answer("GET /pods", 200, podList(rankerPod()));
        KubeletPods pods = kubeletPods();
        DraClaims claims = new DraClaims(URI.create(api.url()), "gpu-node-7", Optional.empty(), Optional.empty(),
                Optional.of(pods), new PodJobs(PodJobIds.POD), clock, Runnable::run, WHOLE_GPUS);
        assertThat(claims.holderOf(ONE_POD_GPU)).contains(new Owner("ranker", "search-ml"));

        // When the pod is being deleted: ten seconds on, a process of a pod not listed yet has the kubelet asked
        // again, which lists the ranker pod no more, before the claims are asked for again (every thirty)
        kubelet.answer("GET /pods", 200, podList());
        clock.set(clock.instant().plus(KubeletPods.REFRESH_AT_MOST_EVERY));
        assertThat(pods.ownerOf("0b6f52a4-8f5c-4d1e-9c3a-2f6e7d8c9b0a")).isEmpty();

        // Then the GPU's holder is still the job its labels named, not a job named after the pod
        assertThat(claims.holderOf(ONE_POD_GPU)).contains(new Owner("ranker", "search-ml"));
    }

    @Test
    void shouldAskForTheClaimsOfTheNodesPodsByNameWhereTheKubeletListsThem() {
        // ranker's claim made from a template (in its status), the notebooks' one claim named in their specs,
        // a claim deleted since its pod was listed
        String notebook = """
                {"metadata": {"name": "notebook-%1$s", "namespace": "research", "uid": "nb-%1$s"},
                 "spec": {"resourceClaims": [{"name": "gpu", "resourceClaimName": "shared-notebooks-gpu"}]}}""";
        String finished = """
                {"metadata": {"name": "batch-1", "namespace": "search", "uid": "b-1"},
                 "spec": {"resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "one-gpu"}]},
                 "status": {"resourceClaimStatuses": [{"name": "gpu", "resourceClaimName": "batch-1-gpu-7tq2c"}]}}""";
        // and a pod asking for the extended resource nvidia.com/gpu where a DRA device class backs it (Kubernetes
        // 1.34, alpha): the scheduler made its claim, named in the pod's status (made-up name)
        String extended = """
                {"metadata": {"name": "embedder-0", "namespace": "search", "uid": "e-0"},
                 "spec": {"containers": [{"name": "server", "resources": {"limits": {"nvidia.com/gpu": "1"}}}]},
                 "status": {"extendedResourceClaimStatus": {"requestMappings": [{"containerName": "server",
                   "resourceName": "nvidia.com/gpu", "requestName": "container-0-request-0"}],
                   "resourceClaimName": "embedder-0-extended-resources-x7k2p"}}}""";
        kubelet.answer("GET /pods", 200, podList(rankerPod(), notebook.formatted(0), notebook.formatted(1), finished,
                extended));
        api.answer(SLICES_PATH, 200, slices())
                .answer(claimPath("search", RANKER_CLAIM), 200, claim(RANKER_CLAIM))
                .answer(claimPath("research", "shared-notebooks-gpu"), 200, claim("shared-notebooks-gpu"));
        DraClaims claims = new DraClaims(URI.create(api.url()), "gpu-node-7", Optional.empty(), Optional.empty(),
                Optional.of(kubeletPods()), new PodJobs(PodJobIds.POD), clock, Runnable::run, WHOLE_GPUS);

        assertThat(claims.holderOf(ONE_POD_GPU)).contains(new Owner("ranker", "search-ml"));
        assertThat(claims.holderOf(TWO_PODS_GPU)).as("a claim two pods share says not which used it").isEmpty();
        assertThat(claims.drainErrors()).as("a claim gone since is passed over").isEmpty();
        assertThat(api.requests()).as("one request per claim of the node's pods, no list of the cluster's")
                .containsExactly(SLICES_PATH, claimPath("search", RANKER_CLAIM),
                        claimPath("research", "shared-notebooks-gpu"), claimPath("search", "batch-1-gpu-7tq2c"),
                        claimPath("search", "embedder-0-extended-resources-x7k2p"));
    }

    @Test
    void shouldFindTheClaimOfAPodStartedSinceAtTheNextRefresh() {
        kubelet.answer("GET /pods", 200, podList());
        api.answer(SLICES_PATH, 200, slices()).answer(claimPath("search", RANKER_CLAIM), 200, claim(RANKER_CLAIM));
        // The kubelet's own refreshes after the first are queued, never run: only the claims' refresh asks it
        List<Runnable> kubeletRefreshes = new ArrayList<>();
        KubeletPods pods = new KubeletPods(URI.create(kubelet.url()), Optional.empty(), Optional.empty(),
                List.of("app.kubernetes.io/name"), List.of("cost-center"), new PodJobs(PodJobIds.POD), clock,
                kubeletRefreshes::add);
        DraClaims claims = new DraClaims(URI.create(api.url()), "gpu-node-7", Optional.empty(), Optional.empty(),
                Optional.of(pods), new PodJobs(PodJobIds.POD), clock, Runnable::run, WHOLE_GPUS);
        assertThat(claims.holderOf(ONE_POD_GPU)).isEmpty();

        // The ranker pod starts; thirty seconds on, the claims' refresh asks the kubelet itself, and waits for it
        kubelet.answer("GET /pods", 200, podList(rankerPod()));
        clock.set(clock.instant().plus(DraClaims.REFRESH_EVERY));

        assertThat(claims.holderOf(ONE_POD_GPU)).contains(new Owner("ranker", "search-ml"));
        assertThat(kubeletRefreshes).isEmpty();
    }

    @Test
    void shouldListEveryClaimWhileTheKubeletHasNotAnswered() {
        kubelet.answer("GET /pods", 503, "");
        api.answer(SLICES_PATH, 200, slices()).answer(CLAIMS_PATH, 200, claims());
        DraClaims claims = new DraClaims(URI.create(api.url()), "gpu-node-7", Optional.empty(), Optional.empty(),
                Optional.of(kubeletPods()), new PodJobs(PodJobIds.POD), clock, Runnable::run, WHOLE_GPUS);

        assertThat(claims.holderOf(ONE_POD_GPU)).as("by name and namespace: the kubelet gave no labels")
                .contains(new Owner("ranker-7d9f", "search"));
        assertThat(api.requests()).containsExactly(SLICES_PATH, CLAIMS_PATH);
    }

    @Test
    void shouldListEveryClaimOnceItsRoleRefusesToGetOneAndSaySoOnce() {
        kubelet.answer("GET /pods", 200, podList(rankerPod()));
        api.answer(SLICES_PATH, 200, slices()).answer(CLAIMS_PATH, 200, claims())
                .answer(claimPath("search", RANKER_CLAIM), 403, """
                        {"kind": "Status", "status": "Failure", "reason": "Forbidden", "code": 403}""");
        DraClaims claims = new DraClaims(URI.create(api.url()), "gpu-node-7", Optional.empty(), Optional.empty(),
                Optional.of(kubeletPods()), new PodJobs(PodJobIds.POD), clock, Runnable::run, WHOLE_GPUS);

        assertThat(claims.holderOf(ONE_POD_GPU)).contains(new Owner("ranker", "search-ml"));
        clock.set(clock.instant().plus(DraClaims.REFRESH_EVERY));
        assertThat(claims.holderOf(ONE_POD_GPU)).contains(new Owner("ranker", "search-ml"));
        assertThat(api.requests()).as("refused once, then listed without asking again").containsExactly(
                SLICES_PATH, claimPath("search", RANKER_CLAIM), CLAIMS_PATH, SLICES_PATH, CLAIMS_PATH);
        assertThat(claims.drainErrors()).singleElement().asString().contains("get on resourceclaims")
                .contains("HTTP 403").contains("listed instead");

        // Ten minutes on, the role was mended: the claim is asked for by name again
        api.answer(claimPath("search", RANKER_CLAIM), 200, claim(RANKER_CLAIM));
        clock.set(clock.instant().plus(DraClaims.LIST_ONLY_FOR));
        assertThat(claims.holderOf(ONE_POD_GPU)).contains(new Owner("ranker", "search-ml"));
        assertThat(api.requests()).endsWith(SLICES_PATH, claimPath("search", RANKER_CLAIM)).hasSize(7);
        assertThat(claims.drainErrors()).isEmpty();
    }

    private static String rankerPod() {
        return """
                {"metadata": {"name": "ranker-7d9f", "namespace": "search", "uid": "%s",
                  "labels": {"app.kubernetes.io/name": "ranker", "cost-center": "search-ml"}},
                 "spec": {"resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "one-gpu"}]},
                 "status": {"resourceClaimStatuses": [{"name": "gpu", "resourceClaimName": "%s"}]}}"""
                .formatted(RANKER_POD, RANKER_CLAIM);
    }

    private static String podList(String... pods) {
        return "{\"kind\": \"PodList\", \"items\": [" + String.join(",", pods) + "]}";
    }

    private KubeletPods kubeletPods() {
        return new KubeletPods(URI.create(kubelet.url()), Optional.empty(), Optional.empty(),
                List.of("app.kubernetes.io/name"), List.of("cost-center"), new PodJobs(PodJobIds.POD), clock,
                Runnable::run);
    }

    @Test
    void shouldFollowTheListsContinueTokenToItsLastPage() {
        api.answer(SLICES_PATH, 200, slices())
                .answer(CLAIMS_PATH, 200, """
                        {"kind": "ResourceClaimList", "metadata": {"continue": "eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ=="},
                         "items": []}""")
                .answer(CLAIMS_NEXT_PATH + "eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ%3D%3D", 200,
                        claims());
        DraClaims claims = new DraClaims(URI.create(api.url()), "gpu-node-7", Optional.empty(), Optional.empty(),
                Optional.empty(), new PodJobs(PodJobIds.POD), clock, Runnable::run, WHOLE_GPUS);

        assertThat(claims.holderOf(ONE_POD_GPU)).contains(new Owner("ranker-7d9f", "search"));
        assertThat(api.requests()).hasSize(3);
    }

    @Test
    void shouldReadOnlyThePoolsNewestGenerationOfSlices() {
        // the driver republished gpu-0 with generation 2 under another UUID; the slice of generation 1 lingers,
        // listed after it
        String republished = slices().replace("\"generation\": 1", "\"generation\": 2")
                .replace(ONE_POD_GPU, "GPU-11111111-2222-3333-4444-555555555555");
        String both = withLastItem(republished, slices());
        api.answer(SLICES_PATH, 200, both).answer(CLAIMS_PATH, 200, claims());
        DraClaims claims = new DraClaims(URI.create(api.url()), "gpu-node-7", Optional.empty(), Optional.empty(),
                Optional.empty(), new PodJobs(PodJobIds.POD), clock, Runnable::run, WHOLE_GPUS);

        assertThat(claims.holderOf("GPU-11111111-2222-3333-4444-555555555555")).contains(
                new Owner("ranker-7d9f", "search"));
        assertThat(claims.holderOf(ONE_POD_GPU)).as("a device of the generation replaced").isEmpty();
    }

    /** The list with the first item of another list added at its end, as JSON text. */
    private static String withLastItem(String list, String from) {
        try {
            ObjectMapper json = new ObjectMapper();
            ObjectNode whole = (ObjectNode) json.readTree(list);
            ((ArrayNode) whole.get("items")).add(json.readTree(from).path("items").get(0));
            return whole.toString();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void shouldNotListTheClustersClaimsForANodeWhoseSlicesNameNoGpu() {
        api.answer(SLICES_PATH, 200, "{\"kind\": \"ResourceSliceList\", \"items\": []}");
        DraClaims claims = new DraClaims(URI.create(api.url()), "gpu-node-7", Optional.empty(), Optional.empty(),
                Optional.empty(), new PodJobs(PodJobIds.POD), clock, Runnable::run, WHOLE_GPUS);

        assertThat(claims.holderOf(ONE_POD_GPU)).isEmpty();
        assertThat(api.requests()).containsExactly(SLICES_PATH);
        assertThat(claims.drainErrors()).isEmpty();
    }

    @Test
    void shouldAskTheApiServerAgainOnlyAfterThirtySeconds() {
        api.answer(SLICES_PATH, 200, slices()).answer(CLAIMS_PATH, 200, "{\"items\": []}");
        DraClaims claims = new DraClaims(URI.create(api.url()), "gpu-node-7", Optional.empty(), Optional.empty(),
                Optional.empty(), new PodJobs(PodJobIds.POD), clock, Runnable::run, WHOLE_GPUS);

        assertThat(claims.holderOf(ONE_POD_GPU)).isEmpty();
        api.answer(CLAIMS_PATH, 200, claims());
        clock.set(clock.instant().plus(DraClaims.REFRESH_EVERY).minusMillis(1));
        assertThat(claims.holderOf(ONE_POD_GPU)).as("the claim made since is not asked for yet").isEmpty();
        clock.set(clock.instant().plusMillis(1));
        assertThat(claims.holderOf(ONE_POD_GPU)).contains(new Owner("ranker-7d9f", "search"));
        assertThat(api.requests()).hasSize(4);
    }

    @Test
    void shouldGoOnWithWhatItKnewWhileTheNextListsAreAskedFor() {
        api.answer(SLICES_PATH, 200, slices()).answer(CLAIMS_PATH, 200, "{\"items\": []}");
        List<Runnable> queued = new ArrayList<>();
        DraClaims claims = new DraClaims(URI.create(api.url()), "gpu-node-7", Optional.empty(), Optional.empty(),
                Optional.empty(), new PodJobs(PodJobIds.POD), clock, queued::add, WHOLE_GPUS);

        // The first round waits for the lists: it has nothing else to go by
        assertThat(claims.holderOf(ONE_POD_GPU)).isEmpty();
        assertThat(queued).isEmpty();
        assertThat(api.requests()).hasSize(2);

        // Thirty seconds on, a claim was made: the round that finds the lists due hands them to the refresher
        // and goes on with what it knew; a round while they are asked for asks for nothing more
        api.answer(CLAIMS_PATH, 200, claims());
        clock.set(clock.instant().plus(DraClaims.REFRESH_EVERY));
        assertThat(claims.holderOf(ONE_POD_GPU)).isEmpty();
        clock.set(clock.instant().plus(DraClaims.REFRESH_EVERY));
        assertThat(claims.holderOf(ONE_POD_GPU)).isEmpty();
        assertThat(queued).hasSize(1);
        assertThat(api.requests()).hasSize(2);

        // Once the refresher has run, the claim's pod holds the GPU
        queued.remove(0).run();
        assertThat(claims.holderOf(ONE_POD_GPU)).contains(new Owner("ranker-7d9f", "search"));
        assertThat(api.requests()).hasSize(4);
    }

    @Test
    void shouldAskForTheListsOnAThreadOfItsOwnAfterTheFirstTime() {
        api.answer(SLICES_PATH, 200, slices()).answer(CLAIMS_PATH, 200, "{\"items\": []}");
        DraClaims claims = new DraClaims(URI.create(api.url()), "gpu-node-7", Optional.empty(), Optional.empty(),
                Optional.empty(), new PodJobs(PodJobIds.POD), clock, WHOLE_GPUS);
        assertThat(claims.holderOf(ONE_POD_GPU)).isEmpty();
        api.answer(CLAIMS_PATH, 200, claims());
        clock.set(clock.instant().plus(DraClaims.REFRESH_EVERY));

        assertThat(claims.holderOf(ONE_POD_GPU)).as("not waited for").isEmpty();
        // The clock stands still from here: only the refresh already started can bring the claim in
        long deadline = System.nanoTime() + 10_000_000_000L;
        Optional<Owner> holder = Optional.empty();
        while (holder.isEmpty() && System.nanoTime() < deadline) {
            holder = claims.holderOf(ONE_POD_GPU);
            Thread.onSpinWait();
        }
        assertThat(holder).contains(new Owner("ranker-7d9f", "search"));
        assertThat(api.requests()).hasSize(4);
    }

    @Test
    void shouldSayARefusalOnceAndMapNoGpu() {
        api.answer(SLICES_PATH, 403, """
                {"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "Forbidden", "code": 403}""");
        DraClaims claims = new DraClaims(URI.create(api.url()), "gpu-node-7", Optional.empty(), Optional.empty(),
                Optional.empty(), new PodJobs(PodJobIds.POD), clock, Runnable::run, WHOLE_GPUS);

        assertThat(claims.holderOf(ONE_POD_GPU)).isEmpty();
        clock.set(clock.instant().plus(DraClaims.REFRESH_EVERY));
        assertThat(claims.holderOf(ONE_POD_GPU)).isEmpty();

        assertThat(claims.drainErrors()).singleElement().asString().contains("resourceslices")
                .contains("HTTP 403").contains("may not list").contains("not mapped to pods");
        assertThat(claims.drainErrors()).isEmpty();
    }

    @Test
    void shouldSayAnAnswerThatIsNoListAndAnApiServerThatIsAway() {
        api.answer(SLICES_PATH, 200, slices()).answer(CLAIMS_PATH, 200, "{\"items\": [");
        DraClaims claims = new DraClaims(URI.create(api.url()), "gpu-node-7", Optional.empty(), Optional.empty(),
                Optional.empty(), new PodJobs(PodJobIds.POD), clock, Runnable::run, WHOLE_GPUS);
        assertThat(claims.holderOf(ONE_POD_GPU)).isEmpty();
        api.answer(CLAIMS_PATH, 200, "<html>sign in</html>");
        clock.set(clock.instant().plus(DraClaims.REFRESH_EVERY));
        assertThat(claims.holderOf(ONE_POD_GPU)).isEmpty();
        api.answer(CLAIMS_PATH, 200, "{\"kind\": \"Status\"}");
        clock.set(clock.instant().plus(DraClaims.REFRESH_EVERY));
        assertThat(claims.holderOf(ONE_POD_GPU)).isEmpty();
        api.close();
        clock.set(clock.instant().plus(DraClaims.REFRESH_EVERY));
        assertThat(claims.holderOf(ONE_POD_GPU)).isEmpty();

        assertThat(claims.drainErrors()).hasSize(4)
                .anySatisfy(error -> assertThat(error).contains("not a list"))
                .anySatisfy(error -> assertThat(error).contains("without a list of items"))
                .anySatisfy(error -> assertThat(error).contains("unreachable"));
    }

    @Test
    void shouldKeepWhatItKnewWhileTheApiServerIsAway() {
        api.answer(SLICES_PATH, 200, slices()).answer(CLAIMS_PATH, 200, claims());
        DraClaims claims = new DraClaims(URI.create(api.url()), "gpu-node-7", Optional.empty(), Optional.empty(),
                Optional.empty(), new PodJobs(PodJobIds.POD), clock, Runnable::run, WHOLE_GPUS);
        assertThat(claims.holderOf(ONE_POD_GPU)).isPresent();
        api.answer(CLAIMS_PATH, 503, "");
        clock.set(clock.instant().plus(DraClaims.REFRESH_EVERY));

        assertThat(claims.holderOf(ONE_POD_GPU)).contains(new Owner("ranker-7d9f", "search"));
        assertThat(claims.drainErrors()).singleElement().asString().contains("HTTP 503");
    }

    @Test
    void shouldMapAProcessItCannotSeeToItsGpusPodButNotOneItSeesOutsideAnyPod() {
        api.answer(SLICES_PATH, 200, slices()).answer(CLAIMS_PATH, 200, claims());
        DraClaims claims = new DraClaims(URI.create(api.url()), "gpu-node-7", Optional.empty(), Optional.empty(),
                Optional.empty(), new PodJobs(PodJobIds.POD), clock, Runnable::run, WHOLE_GPUS);
        ProcTree proc = new ProcTree(dir).cgroup(303, "0::/user.slice/user-1000.slice/session-3.scope\n");
        ProcessOwners owners = ProcessOwners.firstOf(List.of(new SlurmOwners(proc.root()),
                new DraOwners(proc.root(), claims)));

        assertThat(owners.ownerOf(101, ONE_POD_GPU)).as("not in the process table").contains(
                new Owner("ranker-7d9f", "search"));
        assertThat(owners.ownerOf(303, ONE_POD_GPU)).as("a host process on the pod's GPU").isEmpty();
        assertThat(owners.ownerOf(101, TWO_PODS_GPU)).isEmpty();
        assertThat(owners.ownerOf(101)).as("without its GPU").isEmpty();
    }

    @Test
    void shouldRefuseACaFileThatHoldsNoCertificate() throws IOException {
        Path ca = Files.writeString(dir.resolve("ca.crt"), "not a certificate\n");

        assertThatThrownBy(() -> new DraClaims(URI.create("https://127.0.0.1:6443"), "gpu-node-7", Optional.empty(),
                Optional.of(ca), Optional.empty(), new PodJobs(PodJobIds.POD), clock, WHOLE_GPUS))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("kubernetes.ca-file").hasMessageContaining(ca.toString());
    }
}
