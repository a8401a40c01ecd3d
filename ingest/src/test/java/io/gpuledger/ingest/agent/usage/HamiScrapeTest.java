package io.gpuledger.ingest.agent.usage;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuledger.ingest.testing.Fixtures;
import java.util.List;
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
                hami_container_device_utilization_ratio{container="d",device_uuid="GPU-1",namespace="ml",pod="p4"} 250
                """;

        UsageSource.Result result = new HamiScrape(new PodJobs(PodJobIds.POD)).read(page);

        assertThat(result.byGpu().get("GPU-1").users()).isEqualTo(List.of(
                // 1%, as HAMi writes a container's SM use: a whole percent
                GpuUser.container(new Owner("p1", "ml"), 0.01, 1000.0),
                GpuUser.container(new Owner("p2", "web"), 0.40, 3000.0)));
        assertThat(result.errors()).hasSize(2).anySatisfy(e -> assertThat(e).contains("without its GPU or pod"))
                .anySatisfy(e -> assertThat(e).contains("p4").contains("above 100%"));
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
}
