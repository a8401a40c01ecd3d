package io.gpuledger.ingest.agent.collect;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuledger.ingest.agent.usage.GpuUser;
import io.gpuledger.ingest.agent.usage.Owner;
import io.gpuledger.ingest.agent.usage.PodJobIds;
import io.gpuledger.ingest.agent.usage.PodJobs;
import io.gpuledger.ingest.testing.Fixtures;
import io.gpuledger.model.Reading;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * dcgm-exporter's series of a GPU shared by pods ({@code --kubernetes-virtual-gpus}). No published page of
 * 4.5.3-4.8.2 or later was found (fixtures/FIXTURES.md): these pages are written here, in the label form of the
 * captured scrapes and the shape 4.5.3-4.8.2 gives a shared GPU (its internal/pkg/transformation/kubernetes.go):
 * GPU_UTIL and FB_USED as the GPU's own series plus, per container of each pod, one with the pod's value, its
 * processes' added up (0 for a pod with no process it could map), every other field copied to each pod.
 */
class DcgmPerPodSeriesTest {

    private static final String GPU = "GPU-be6e8706-1ee7-9ce9-7c5e-80ebf0f66714";
    private static final double MIB = 1024.0 * 1024;

    private final DcgmScrape scrape = new DcgmScrape(List.of("pod"), List.of("namespace"), new PodJobs(PodJobIds.POD));

    @Test
    void shouldTakeEachPodsOwnUseAsTheGpusUsersAndTheirSumsAsTheGpusReadings() {
        String ranker = "modelName=\"Tesla T4\",Hostname=\"pek01\",container=\"main\",namespace=\"search\","
                + "pod=\"ranker-0\"";
        String notebook = "modelName=\"Tesla T4\",Hostname=\"pek01\",container=\"lab\",namespace=\"research\","
                + "pod=\"notebook-1\"";
        String page = series("DCGM_FI_DEV_GPU_UTIL", "modelName=\"Tesla T4\",Hostname=\"pek01\"", "85")
                + series("DCGM_FI_DEV_GPU_UTIL", ranker, "30") + series("DCGM_FI_DEV_GPU_UTIL", notebook, "45")
                + series("DCGM_FI_DEV_FB_USED", "modelName=\"Tesla T4\",Hostname=\"pek01\"", "5120")
                + series("DCGM_FI_DEV_FB_USED", ranker, "1024") + series("DCGM_FI_DEV_FB_USED", notebook, "3072")
                + series("DCGM_FI_DEV_FB_FREE", ranker, "10240") + series("DCGM_FI_DEV_FB_FREE", notebook, "10240")
                + series("DCGM_FI_DEV_POWER_USAGE", ranker, "41.5")
                + series("DCGM_FI_DEV_POWER_USAGE", notebook, "41.5");

        DcgmScrape.Result result = scrape.read(page);

        assertThat(result.errors()).isEmpty();
        GpuReading gpu = result.readings().get(0);
        // the GPU's own: its pods' and a process in no pod
        assertThat(gpu.gpuUtilization()).isEqualTo(0.85);
        assertThat(gpu.memoryUsedBytes()).isEqualTo(5120 * MIB);
        assertThat(gpu.powerWatts()).isEqualTo(41.5);
        assertThat(gpu.users().users()).containsExactly(
                GpuUser.container(new Owner("ranker-0", "search"), 0.30, 1024 * MIB),
                GpuUser.container(new Owner("notebook-1", "research"), 0.45, 3072 * MIB));
        // used 5 GiB + free 10 GiB
        assertThat(gpu.users().memoryTotalBytes()).isEqualTo(15360 * MIB);
        assertThat(gpu.jobId()).as("no one of its pods is its job, where the split is not made").isNull();
        assertThat(gpu.team()).isNull();
    }

    @Test
    void shouldTakeAPodWithoutProcessesAsAUserThatUsedNothing() {
        String page = series("DCGM_FI_DEV_GPU_UTIL", "modelName=\"L4\"", "20")
                + series("DCGM_FI_DEV_GPU_UTIL", "pod=\"a\",namespace=\"x\",container=\"c\",vgpu=\"0\"", "20")
                + series("DCGM_FI_DEV_GPU_UTIL", "pod=\"b\",namespace=\"y\",container=\"c\",vgpu=\"1\"", "0");

        GpuReading gpu = scrape.read(page).readings().get(0);

        assertThat(gpu.users().users()).containsExactly(GpuUser.container(new Owner("a", "x"), 0.20, null),
                GpuUser.container(new Owner("b", "y"), 0.0, null));
    }

    @Test
    void shouldNotSplitAGpuWhosePodsCarryCopiesOfItsUtilisation() {
        String page = """
                DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="%1$s",pod="gpu-workload-1",namespace="default",container="main"} 71
                DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="%1$s",pod="gpu-workload-2",namespace="default",container="main"} 71
                DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="%1$s",pod="gpu-workload-3",namespace="default",container="main"} 71
                """.formatted(GPU);

        DcgmScrape.Result result = scrape.read(page);
        DcgmScrape.Result again = scrape.read(page);

        GpuReading gpu = result.readings().get(0);
        assertThat(gpu.users()).isNull();
        assertThat(gpu.jobId()).as("no one of the pods is the GPU's job").isNull();
        assertThat(gpu.team()).isNull();
        assertThat(gpu.gpuUtilization()).isEqualTo(0.71);
        assertThat(result.errors()).singleElement().asString().contains("3 pods").contains("before 4.5.3");
        assertThat(again.errors()).as("said once").isEmpty();
    }

    /**
     * A published page (FIXTURES.md): two pods sharing an A100 by MPS with {@code --kubernetes-virtual-gpus}, before
     * per-pod values; each pod's series, told apart by {@code vgpu}, carries the GPU's memory used.
     */
    @Test
    void shouldReadAPublishedPageOfPodsCarryingCopiesAsOneGpuNotSplit() {
        String page = Fixtures.read("dcgm-exporter/mps-a100-gke-virtual-gpus-vgpu-label-pr432-comment.prom");

        DcgmScrape.Result result = scrape.read(page);

        assertThat(result.readings()).singleElement().satisfies(gpu -> {
            assertThat(gpu.uuid()).isEqualTo("GPU-3bc239e1-4cc8-97e4-e817-5a36dfd2885e");
            assertThat(gpu.index()).isZero();
            assertThat(gpu.model()).isEqualTo("NVIDIA A100-SXM4-80GB");
            assertThat(gpu.reportedHost()).isEqualTo("gke-gpu-share-test-a100-inference-mps-b3fc3d0e-3bpg");
            assertThat(gpu.users()).as("copies are no pod's own use").isNull();
            assertThat(gpu.jobId()).as("nor is the first pod the GPU's job").isNull();
            assertThat(gpu.team()).isNull();
            // 15866 MiB, once: the copies are not added up
            assertThat(gpu.memoryUsedBytes()).isEqualTo(15866 * MIB);
        });
        assertThat(result.errors()).singleElement().asString()
                .contains("GPU-3bc239e1-4cc8-97e4-e817-5a36dfd2885e").contains("2 pods").contains("before 4.5.3");
        assertThat(scrape.read(page).errors()).as("said once").isEmpty();
    }

    @Test
    void shouldKeepAGpuOfOnePodAsBeforeWithThatPodAsItsJob() {
        String page = """
                DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="%1$s",pod="ranker-0",namespace="search",container="main"} 64
                DCGM_FI_DEV_FB_USED{gpu="0",UUID="%1$s",pod="ranker-0",namespace="search",container="main"} 2048
                """.formatted(GPU);

        GpuReading gpu = scrape.read(page).readings().get(0);

        assertThat(gpu.users()).isNull();
        assertThat(gpu.jobId()).isEqualTo("ranker-0");
        assertThat(gpu.value(Reading.GPU_UTILIZATION)).isEqualTo(0.64);
        assertThat(gpu.memoryUsedBytes()).isEqualTo(2048 * MIB);
    }

    @Test
    void shouldTakeNoPodAsTheJobOfAGpuWhoseSeveralPodsHaveNoUtilisationOrMemoryOfTheirOwn() {
        // pods' labels on the power series only, or on utilisation that DCGM left blank (2147483632 = 0x7ffffff0)
        String powerOnly = series("DCGM_FI_DEV_POWER_USAGE", "pod=\"a\",namespace=\"x\"", "40")
                + series("DCGM_FI_DEV_POWER_USAGE", "pod=\"b\",namespace=\"y\"", "40");
        String blankUse = powerOnly + series("DCGM_FI_DEV_GPU_UTIL", "pod=\"a\",namespace=\"x\"", "2147483632")
                + series("DCGM_FI_DEV_GPU_UTIL", "pod=\"b\",namespace=\"y\"", "2147483632");

        GpuReading power = scrape.read(powerOnly).readings().get(0);
        GpuReading blank = scrape.read(blankUse).readings().get(0);

        assertThat(power.jobId()).as("pod a, listed first, is not the job of a GPU pod b uses too").isNull();
        assertThat(power.team()).isNull();
        assertThat(power.powerWatts()).isEqualTo(40.0);
        assertThat(power.users()).isNull();
        assertThat(blank.jobId()).isNull();
        assertThat(blank.team()).isNull();
        assertThat(blank.users()).isNull();
    }

    @Test
    void shouldTakeOnePodsTwoContainersAsThatPodsJob() {
        // the exporter writes the pod's value, its processes' added up, on each of its containers' series
        String page = series("DCGM_FI_DEV_GPU_UTIL", "modelName=\"L4\"", "30")
                + series("DCGM_FI_DEV_GPU_UTIL", "pod=\"ranker-0\",namespace=\"search\",container=\"model\"", "30")
                + series("DCGM_FI_DEV_GPU_UTIL", "pod=\"ranker-0\",namespace=\"search\",container=\"sidecar\"", "30");

        GpuReading gpu = scrape.read(page).readings().get(0);

        assertThat(gpu.jobId()).as("one pod, however many of its containers use the GPU").isEqualTo("ranker-0");
        assertThat(gpu.team()).isEqualTo("search");
    }

    @Test
    void shouldTakeAPodOnceWhateverHowManyOfItsContainersCarryItsValue() {
        // dcgm-exporter 4.5.3-4.8.2 and later, internal/pkg/transformation/kubernetes.go: one value per pod UID (the
        // sum over the pod's processes), copied to the series of each container the kubelet lists for the device.
        // Pod a: 60% and 10 GiB over its two containers; pod b: 30% and 30 GiB.
        String a = "namespace=\"serve\",pod=\"a\",pod_uid=\"6f0e2a1c-7d6b-4a57-9b0e-2f6d1c3b4a5e\",";
        String b = "namespace=\"lab\",pod=\"b\",pod_uid=\"0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9\",";
        String page = series("DCGM_FI_DEV_GPU_UTIL", "modelName=\"L4\"", "90")
                + series("DCGM_FI_DEV_GPU_UTIL", a + "container=\"model\"", "60")
                + series("DCGM_FI_DEV_GPU_UTIL", a + "container=\"tokenizer\"", "60")
                + series("DCGM_FI_DEV_GPU_UTIL", b + "container=\"lab\"", "30")
                + series("DCGM_FI_DEV_FB_USED", "modelName=\"L4\"", "40960")
                + series("DCGM_FI_DEV_FB_USED", a + "container=\"model\"", "10240")
                + series("DCGM_FI_DEV_FB_USED", a + "container=\"tokenizer\"", "10240")
                + series("DCGM_FI_DEV_FB_USED", b + "container=\"lab\"", "30720");

        GpuReading gpu = scrape.read(page).readings().get(0);

        assertThat(gpu.users().users()).containsExactly(
                GpuUser.container(new Owner("a", "serve"), 0.60, 10240 * MIB),
                GpuUser.container(new Owner("b", "lab"), 0.30, 30720 * MIB));
    }

    @Test
    void shouldReadAPodsUtilisationOverAHundredAsAllOfTheGpu() {
        // under MPS the exporter adds up several processes' SM samples of one pod
        String page = series("DCGM_FI_DEV_GPU_UTIL", "modelName=\"L4\"", "100")
                + series("DCGM_FI_DEV_GPU_UTIL", "pod=\"a\",namespace=\"x\",container=\"c\"", "130")
                + series("DCGM_FI_DEV_GPU_UTIL", "pod=\"b\",namespace=\"y\",container=\"c\"", "0");

        DcgmScrape.Result result = scrape.read(page);

        assertThat(result.errors()).isEmpty();
        assertThat(result.readings().get(0).users().users()).containsExactly(
                GpuUser.container(new Owner("a", "x"), 1.0, null), GpuUser.container(new Owner("b", "y"), 0.0, null));
    }

    @Test
    void shouldNotTakePodsThatAllReadNothingOnABusyGpuAsItsUsersAndSaySoOnce() {
        // what an exporter without the host's process table writes: 0 for each pod, whatever they do
        String pods = series("DCGM_FI_DEV_GPU_UTIL", "pod=\"a\",namespace=\"x\",container=\"c\"", "0")
                + series("DCGM_FI_DEV_GPU_UTIL", "pod=\"b\",namespace=\"y\",container=\"c\"", "0")
                + series("DCGM_FI_DEV_FB_USED", "pod=\"a\",namespace=\"x\",container=\"c\"", "0")
                + series("DCGM_FI_DEV_FB_USED", "pod=\"b\",namespace=\"y\",container=\"c\"", "0");
        String busy = series("DCGM_FI_DEV_GPU_UTIL", "modelName=\"L4\"", "95")
                + series("DCGM_FI_DEV_FB_USED", "modelName=\"L4\"", "61440") + pods;
        String idle = series("DCGM_FI_DEV_GPU_UTIL", "modelName=\"L4\"", "0")
                + series("DCGM_FI_DEV_FB_USED", "modelName=\"L4\"", "2") + pods;

        DcgmScrape.Result first = scrape.read(busy);
        DcgmScrape.Result again = scrape.read(busy);
        GpuReading quiet = scrape.read(idle).readings().get(0);

        GpuReading gpu = first.readings().get(0);
        assertThat(gpu.users()).as("no measure of who used it: another source may tell").isNull();
        assertThat(gpu.jobId()).as("nor is one of its pods its job").isNull();
        assertThat(gpu.gpuUtilization()).isEqualTo(0.95);
        assertThat(first.errors()).singleElement().asString().contains(GPU, "95% busy", "61440 MiB", "hostPID");
        assertThat(again.errors()).isEmpty();
        assertThat(quiet.users().users()).as("an idle GPU whose pods did nothing: they are its users")
                .containsExactly(GpuUser.container(new Owner("a", "x"), 0.0, 0.0),
                        GpuUser.container(new Owner("b", "y"), 0.0, 0.0));
    }

    @Test
    void shouldSplitByMemoryWherePodsAllReadNoSmTimeOnABusyGpu() {
        // Given a GPU 90% busy whose pods read 0% each but hold 1 and 3 GiB: what the exporter writes where NVML
        // gives no per-process utilisation (its nvmlprovider answers 0 for each process then)
        String page = twoPodsOf1And3GiB("DCGM_FI_DEV_GPU_UTIL", "90", "0");

        // When it is read twice
        DcgmScrape.Result first = scrape.read(page);
        DcgmScrape.Result again = scrape.read(page);

        // Then the pods are its users without an SM share (the split falls back to memory), not users of none of it;
        // said once
        assertThat(first.readings().get(0).users().users()).containsExactly(
                GpuUser.container(new Owner("a", "x"), null, 1024 * MIB),
                GpuUser.container(new Owner("b", "y"), null, 3072 * MIB));
        assertThat(first.errors()).singleElement().asString().contains("90% busy", "memory");
        assertThat(again.errors()).isEmpty();
    }

    @Test
    void shouldNotTakeCopiesOfTheRatioSpellingOfUtilisationAsThePodsOwn() {
        // Given a GPU whose counters name DCGM 4's DCGM_FI_DEV_GPU_UTIL_RATIO, which the exporter copies to each pod
        // (only DCGM_FI_DEV_GPU_UTIL and DCGM_FI_DEV_FB_USED are per process, its process_metrics.go), and memory
        // per pod
        String page = twoPodsOf1And3GiB("DCGM_FI_DEV_GPU_UTIL_RATIO", "0.9", "0.9");

        // When it is read
        DcgmScrape.Result result = scrape.read(page);
        GpuReading gpu = result.readings().get(0);

        // Then the pods split it by their memory, with no SM share each: not 0.9 each of a GPU 90% busy; nothing
        // to say, since no pod has a utilisation of its own
        assertThat(gpu.users().users()).containsExactly(GpuUser.container(new Owner("a", "x"), null, 1024 * MIB),
                GpuUser.container(new Owner("b", "y"), null, 3072 * MIB));
        assertThat(gpu.gpuUtilization()).isEqualTo(0.9);
        assertThat(result.errors()).isEmpty();
    }

    @Test
    void shouldGiveTheUsersOfASharedMigSliceNoSmTime() {
        String slice = "modelName=\"NVIDIA A100-SXM4-40GB\",GPU_I_PROFILE=\"3g.20gb\",GPU_I_ID=\"1\",";
        String page = series("DCGM_FI_DEV_FB_USED", slice + "Hostname=\"n\"", "4200")
                + series("DCGM_FI_DEV_FB_USED", slice + "pod=\"a\",namespace=\"x\"", "1000")
                + series("DCGM_FI_DEV_FB_USED", slice + "pod=\"b\",namespace=\"y\"", "3000")
                + series("DCGM_FI_DEV_GPU_UTIL", slice + "pod=\"a\",namespace=\"x\"", "10")
                + series("DCGM_FI_DEV_GPU_UTIL", slice + "pod=\"b\",namespace=\"y\"", "20");

        GpuReading shared = scrape.read(page).readings().stream().filter(r -> r.uuid().contains("/mig/"))
                .findFirst().orElseThrow();

        assertThat(shared.users().migSlice()).isTrue();
        assertThat(shared.users().users()).extracting(GpuUser::smRatio).containsExactly(null, null);
        assertThat(shared.users().users()).extracting(GpuUser::memoryBytes).containsExactly(1000 * MIB, 3000 * MIB);
    }

    @Test
    void shouldWriteAPodsJobByNamespaceAndNameWhenToldSoSoThatPodsOfOneNameStayTwoJobs() {
        String alice = "pod=\"notebook-0\",namespace=\"alice\",container=\"lab\"";
        String bob = "pod=\"notebook-0\",namespace=\"bob\",container=\"lab\"";
        String page = series("DCGM_FI_DEV_GPU_UTIL", "modelName=\"L4\"", "50")
                + series("DCGM_FI_DEV_GPU_UTIL", alice, "30") + series("DCGM_FI_DEV_GPU_UTIL", bob, "20");
        PodJobs byName = new PodJobs(PodJobIds.POD);
        PodJobs byNamespace = new PodJobs(PodJobIds.NAMESPACE_POD);

        DcgmScrape.Result named = scrapeWith(List.of("pod"), byName).read(page);
        DcgmScrape.Result namespaced = scrapeWith(List.of("pod"), byNamespace).read(page);

        assertThat(named.readings().get(0).users().users()).containsExactly(
                GpuUser.container(new Owner("notebook-0", "alice"), 0.30, null),
                GpuUser.container(new Owner("notebook-0", "bob"), 0.20, null));
        assertThat(byName.drainSameNamed()).containsExactly("pods named notebook-0 in namespaces alice, bob get one"
                + " job id 'notebook-0'; kubernetes.job-ids=namespace/pod tells them apart");
        assertThat(named.errors()).as("advice, not an error of the page").isEmpty();
        assertThat(namespaced.readings().get(0).users().users()).containsExactly(
                GpuUser.container(new Owner("alice/notebook-0", "alice"), 0.30, null),
                GpuUser.container(new Owner("bob/notebook-0", "bob"), 0.20, null));
        assertThat(byNamespace.drainSameNamed()).isEmpty();
    }

    @Test
    void shouldWriteTheJobOfAGpuOfOnePodAsThePodJobIdsSayAndLeaveAnotherLabelsJobAsItIs() {
        String page = """
                DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="%s",pod="trainer-0",namespace="vision",job="resnet"} 90
                DCGM_FI_DEV_GPU_UTIL{gpu="1",UUID="%s",pod="trainer-0",namespace="speech"} 80
                """.formatted(GPU, "GPU-1b1e5b9d-0000-4000-8000-000000000001");
        PodJobs labelFirst = new PodJobs(PodJobIds.POD);
        PodJobs podOnly = new PodJobs(PodJobIds.POD);

        List<GpuReading> namespaced = scrapeWith(List.of("job", "pod"), new PodJobs(PodJobIds.NAMESPACE_POD))
                .read(page).readings();
        List<GpuReading> labelled = scrapeWith(List.of("job", "pod"), labelFirst).read(page).readings();
        List<GpuReading> named = scrapeWith(List.of("pod"), podOnly).read(page).readings();

        assertThat(namespaced).extracting(GpuReading::jobId).containsExactly("resnet", "speech/trainer-0");
        assertThat(labelled).extracting(GpuReading::jobId).containsExactly("resnet", "trainer-0");
        assertThat(labelFirst.drainSameNamed()).as("one of them is named by its label").isEmpty();
        assertThat(named).extracting(GpuReading::jobId).containsExactly("trainer-0", "trainer-0");
        assertThat(podOnly.drainSameNamed()).containsExactly("pods named trainer-0 in namespaces speech, vision get one"
                + " job id 'trainer-0'; kubernetes.job-ids=namespace/pod tells them apart");
    }

    @Test
    void shouldReadTheOldPodLabelNamesIntoANamespacedJob() {
        String page = series("DCGM_FI_DEV_GPU_UTIL", "modelName=\"L4\"", "50")
                + series("DCGM_FI_DEV_GPU_UTIL", "pod_name=\"a-0\",pod_namespace=\"x\",container_name=\"c\"", "30")
                + series("DCGM_FI_DEV_GPU_UTIL", "pod_name=\"b-0\",namespace=\"\",pod_namespace=\"y\"", "20");

        GpuReading gpu = scrapeWith(List.of("pod"), new PodJobs(PodJobIds.NAMESPACE_POD)).read(page).readings().get(0);

        // no pod label: the job is named after pod_name, in pod_namespace (a blank namespace label is none)
        assertThat(gpu.users().users()).containsExactly(GpuUser.container(new Owner("x/a-0", "x"), 0.30, null),
                GpuUser.container(new Owner("y/b-0", "y"), 0.20, null));
    }

    @Test
    void shouldTakeTheOneOldNamedPodOfAGpuAsItsJobAndItsNamespaceAsItsTeam() {
        // Given a GPU of one pod, from an exporter run with --use-old-namespace (pod_name, pod_namespace,
        // container_name: its kubernetes.go), the agent told job and team labels pod and namespace (the defaults)
        String page = series("DCGM_FI_DEV_GPU_UTIL", "pod_name=\"ranker-0\",pod_namespace=\"search\","
                + "container_name=\"main\"", "60");

        // When it is read
        GpuReading gpu = scrape.read(page).readings().get(0);

        // Then it is the pod's job, on its namespace's team, as under the new names
        assertThat(gpu.jobId()).isEqualTo("ranker-0");
        assertThat(gpu.team()).isEqualTo("search");
    }

    @Test
    void shouldSayNothingOfPodsWhoseSeriesAreCopies() {
        // copies of the GPU's readings (dcgm-exporter before 4.5.3): neither pod is a user nor the GPU's job
        String page = """
                DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="%1$s",pod="worker-0",namespace="a",container="main"} 71
                DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="%1$s",pod="worker-0",namespace="b",container="main"} 71
                """.formatted(GPU);
        PodJobs podJobs = new PodJobs(PodJobIds.POD);

        GpuReading gpu = scrapeWith(List.of("pod"), podJobs).read(page).readings().get(0);

        assertThat(gpu.users()).isNull();
        assertThat(gpu.jobId()).isNull();
        assertThat(podJobs.drainSameNamed()).isEmpty();
    }

    private static DcgmScrape scrapeWith(List<String> jobLabels, PodJobs podJobs) {
        return new DcgmScrape(jobLabels, List.of("namespace"), podJobs);
    }

    /**
     * An L4 holding 4 GiB, its utilisation field {@code utilisation} reading {@code gpuValue}, and pods a and b
     * holding 1 and 3 GiB, each reading {@code podValue} of that field.
     */
    private static String twoPodsOf1And3GiB(String utilisation, String gpuValue, String podValue) {
        String a = "pod=\"a\",namespace=\"x\",container=\"c\"";
        String b = "pod=\"b\",namespace=\"y\",container=\"c\"";
        return series(utilisation, "modelName=\"L4\"", gpuValue)
                + series("DCGM_FI_DEV_FB_USED", "modelName=\"L4\"", "4096")
                + series(utilisation, a, podValue) + series(utilisation, b, podValue)
                + series("DCGM_FI_DEV_FB_USED", a, "1024") + series("DCGM_FI_DEV_FB_USED", b, "3072");
    }

    /** One series of the GPU, labels as dcgm-exporter orders them: gpu, UUID, then the rest. */
    private static String series(String metric, String labels, String value) {
        return metric + "{gpu=\"0\",UUID=\"" + GPU + "\"," + labels + "} " + value + "\n";
    }
}
