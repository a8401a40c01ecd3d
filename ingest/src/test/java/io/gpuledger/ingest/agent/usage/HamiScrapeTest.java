package io.gpuledger.ingest.agent.usage;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuledger.ingest.testing.Fixtures;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class HamiScrapeTest {

    private static final String GPU = "GPU-066f734b-226c-30ba-4c7b-8d0c3221093f";

    @Test
    void shouldReadEachContainersUseOfItsGpuFromARealPage() {
        UsageSource.Result result = new HamiScrape(new PodJobs(PodJobIds.POD)).read(
                Fixtures.read("hami/kai-resource-isolator-monitor-pr2033-excerpt.prom"));

        assertThat(result.errors()).isEmpty();
        assertThat(result.byGpu()).containsOnlyKeys(GPU);
        assertThat(result.byGpu().get(GPU).users()).containsExactly(
                GpuUser.container(new Owner("ccdeemaoeo", "kai-zjldfiaddb"), 0.0, 230_686_720.0));
    }

    @Test
    void shouldPreferTheCurrentMemoryNameAndReadPercentsAndOlderLabels() {
        String page = """
                hami_container_device_memory_bytes{container="a",device_uuid="GPU-1",namespace="ml",pod="p1"} 5
                hami_vgpu_memory_used_bytes{container="a",device_uuid="GPU-1",namespace="ml",pod="p1"} 1000
                hami_container_device_utilization_ratio{container="a",device_uuid="GPU-1",namespace="ml",pod="p1"} 1
                Device_utilization_desc_of_container{ctrname="b",deviceuuid="GPU-1",podname="p2",podnamespace="web"} 40
                Device_memory_desc_of_container{ctrname="b",deviceuuid="GPU-1",podname="p2",podnamespace="web"} 3000
                hami_container_device_utilization_ratio{container="c",device_uuid="GPU-1",namespace="ml"} 0.5
                """;

        UsageSource.Result result = new HamiScrape(new PodJobs(PodJobIds.POD)).read(page);

        assertThat(result.byGpu().get("GPU-1").users()).isEqualTo(List.of(
                // 1%, as HAMi writes a container's SM use: a whole percent
                GpuUser.container(new Owner("p1", "ml"), 0.01, 1000.0),
                GpuUser.container(new Owner("p2", "web"), 0.40, 3000.0)));
        assertThat(result.errors()).singleElement().satisfies(e -> assertThat(e).contains("without its GPU or pod"));
    }

    @Test
    void shouldReadAUtilisationAboveAHundredPercentAsTheWholeGpuWithoutAnError() {
        // HAMi adds up the SM use of a container's processes (Project-HAMi/HAMi#555): 250 % is three busy processes
        String page = """
                hami_container_device_utilization_ratio{container="a",device_uuid="GPU-1",namespace="ml",pod="p1"} 250
                hami_container_device_utilization_ratio{container="b",device_uuid="GPU-1",namespace="ml",pod="p2"} 100
                hami_container_device_utilization_ratio{container="c",device_uuid="GPU-1",namespace="ml",pod="p3"} 10
                """;
        HamiScrape scrape = new HamiScrape(new PodJobs(PodJobIds.POD));

        UsageSource.Result first = scrape.read(page);
        UsageSource.Result next = scrape.read(page);

        assertThat(first.byGpu().get("GPU-1").users()).containsExactly(
                GpuUser.container(new Owner("p1", "ml"), 1.0, null),
                GpuUser.container(new Owner("p2", "ml"), 1.0, null),
                GpuUser.container(new Owner("p3", "ml"), 0.1, null));
        assertThat(first.errors()).as("a reading HAMi means, not a fault of the page").isEmpty();
        assertThat(next.errors()).isEmpty();
    }

    @Test
    void shouldNameAContainersJobAndTeamByItsPodsLabelsWhereTheKubeletListsThePod() {
        String page = """
                hami_container_device_utilization_ratio{device_uuid="G1",namespace="ai",pod="llm-7d9f-x2"} 50
                hami_container_device_utilization_ratio{container="m",device_uuid="G1",namespace="lab",pod="nb-3"} 20
                hami_container_device_utilization_ratio{container="m",device_uuid="G1",pod="llm-7d9f-x2"} 10
                """;
        List<String> askedFor = new ArrayList<>();
        // the kubelet lists llm-7d9f-x2 of ai, labelled app.kubernetes.io/instance=llm and cost-center=search-ml
        PodOwners kubelet = (namespace, pod) -> {
            askedFor.add(namespace + "/" + pod);
            return namespace.equals("ai") && pod.equals("llm-7d9f-x2") ? Optional.of(new Owner("llm", "search-ml"))
                    : Optional.empty();
        };

        UsageSource.Result result = new HamiScrape(new PodJobs(PodJobIds.POD), kubelet).read(page);

        assertThat(result.byGpu().get("G1").users()).containsExactly(
                GpuUser.container(new Owner("llm", "search-ml"), 0.50, null),
                GpuUser.container(new Owner("nb-3", "lab"), 0.20, null),
                // without its namespace the pod is not looked for
                GpuUser.container(new Owner("llm-7d9f-x2", null), 0.10, null));
        assertThat(askedFor).containsExactly("ai/llm-7d9f-x2", "lab/nb-3");
    }

    @Test
    void shouldWriteAContainersJobAsThePodJobIdsSayAndNoteEachPod() {
        String page = """
                hami_container_device_utilization_ratio{container="c",device_uuid="G1",namespace="alice",pod="nb-0"} 30
                hami_container_device_utilization_ratio{container="c",device_uuid="G2",namespace="bob",pod="nb-0"} 20
                """;
        PodJobs byName = new PodJobs(PodJobIds.POD);
        PodJobs byNamespace = new PodJobs(PodJobIds.NAMESPACE_POD);

        UsageSource.Result named = new HamiScrape(byName).read(page);
        UsageSource.Result namespaced = new HamiScrape(byNamespace).read(page);

        assertThat(named.byGpu().get("G1").users()).containsExactly(
                GpuUser.container(new Owner("nb-0", "alice"), 0.30, null));
        assertThat(byName.drainSameNamed()).containsExactly("pods named nb-0 in namespaces alice, bob get one"
                + " job id 'nb-0'; kubernetes.job-ids=namespace/pod tells them apart");
        assertThat(named.errors()).as("advice, not an error of the page").isEmpty();
        assertThat(namespaced.byGpu().get("G1").users()).containsExactly(
                GpuUser.container(new Owner("alice/nb-0", "alice"), 0.30, null));
        assertThat(namespaced.byGpu().get("G2").users()).containsExactly(
                GpuUser.container(new Owner("bob/nb-0", "bob"), 0.20, null));
        assertThat(byNamespace.drainSameNamed()).isEmpty();
    }
    @Test
    void shouldTakeTheSmUseOfContainersThatAllReadNothingOnABusyGpuAsNotMeasured() {
        // HAMi-core writes a container's SM use only under a core limit (gpucores); these two set memory alone
        String containers = """
                hami_container_device_utilization_ratio{container="a",device_uuid="GPU-1",namespace="ml",pod="p1"} 0
                hami_vgpu_memory_used_bytes{container="a",device_uuid="GPU-1",namespace="ml",pod="p1"} 2000
                hami_container_device_utilization_ratio{container="b",device_uuid="GPU-1",namespace="web",pod="p2"} 0
                hami_vgpu_memory_used_bytes{container="b",device_uuid="GPU-1",namespace="web",pod="p2"} 6000
                """;
        String busy = containers + "hami_host_gpu_utilization_ratio{device_index=\"0\",device_uuid=\"GPU-1\"} 80\n";
        String oldNames = containers + "HostCoreUtilization{deviceidx=\"0\",deviceuuid=\"GPU-1\"} 80\n";
        String quiet = containers + "hami_host_gpu_utilization_ratio{device_index=\"0\",device_uuid=\"GPU-1\"} 3\n";
        String oneMeasured = busy.replace("namespace=\"web\",pod=\"p2\"} 0", "namespace=\"web\",pod=\"p2\"} 20");
        HamiScrape scrape = new HamiScrape(new PodJobs(PodJobIds.POD));

        UsageSource.Result first = scrape.read(busy);
        UsageSource.Result again = scrape.read(busy);

        List<GpuUser> unmeasured = List.of(GpuUser.container(new Owner("p1", "ml"), null, 2000.0),
                GpuUser.container(new Owner("p2", "web"), null, 6000.0));
        assertThat(first.byGpu().get("GPU-1").users()).isEqualTo(unmeasured);
        assertThat(first.errors()).singleElement().asString().contains("GPU-1", "80% busy", "gpucores");
        assertThat(again.errors()).isEmpty();
        assertThat(new HamiScrape(new PodJobs(PodJobIds.POD)).read(oldNames).byGpu().get("GPU-1").users())
                .isEqualTo(unmeasured);
        assertThat(scrape.read(quiet).byGpu().get("GPU-1").users()).as("a GPU about idle: its zeros are measured")
                .containsExactly(GpuUser.container(new Owner("p1", "ml"), 0.0, 2000.0),
                        GpuUser.container(new Owner("p2", "web"), 0.0, 6000.0));
        assertThat(scrape.read(oneMeasured).byGpu().get("GPU-1").users()).as("one measured: the zero may be idleness")
                .containsExactly(GpuUser.container(new Owner("p1", "ml"), 0.0, 2000.0),
                        GpuUser.container(new Owner("p2", "web"), 0.20, 6000.0));
    }
}
