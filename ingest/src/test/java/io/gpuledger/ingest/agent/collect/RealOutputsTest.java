package io.gpuledger.ingest.agent.collect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gpuledger.ingest.agent.usage.PodJobIds;
import io.gpuledger.ingest.agent.usage.PodJobs;
import io.gpuledger.ingest.testing.Fixtures;
import io.gpuledger.model.Reading;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The collectors' readers on real published outputs of nvidia-smi and dcgm-exporter (see fixtures/FIXTURES.md). */
class RealOutputsTest {

    private final DcgmScrape dcgm = new DcgmScrape(List.of("pod"), List.of("namespace"), new PodJobs(PodJobIds.POD));

    @Test
    void shouldReadAnH100AllFieldsCaptureWithHeaderAndUnits() {
        NvidiaSmiCsv.Result result = NvidiaSmiCsv.parse(
                Fixtures.read("nvidia-smi/h100-allfields-csv-header-units-idle-driver590.csv"), List.of());

        assertThat(result.errors()).isEmpty();
        GpuReading gpu = result.readings().get(0);
        assertThat(gpu.uuid()).isEqualTo("GPU-00000000-0000-0000-0000-000000000000");
        assertThat(gpu.model()).isEqualTo("NVIDIA H100 80GB HBM3");
        assertThat(gpu.index()).isZero();
        assertThat(gpu.gpuUtilization()).isZero();
        assertThat(gpu.powerWatts()).isEqualTo(69.85);
        assertThat(gpu.memoryUsedBytes()).isZero();
    }

    @Test
    void shouldReadThePowerLimitOfNvidiaSmiAndDcgmExporter() {
        // Given nvidia-smi captures that queried power.limit (an H100 with all fields, an RTX 2080's own query)
        GpuReading h100 = NvidiaSmiCsv.parse(
                Fixtures.read("nvidia-smi/h100-allfields-csv-header-units-idle-driver590.csv"), List.of())
                .readings().get(0);
        GpuReading rtx2080 = NvidiaSmiCsv.parse(
                Fixtures.read("nvidia-smi/rtx2080-csv-noheader-nounits-driver440-gpu-utils-issue83.csv"),
                NvidiaSmiCsv.fieldsOf("nvidia-smi --query-gpu=power.limit,power.min_limit,power.max_limit,"
                        + "memory.total,vbios_version,driver_version,name,gpu_uuid,power.draw,temperature.gpu,"
                        + "temperature.memory,clocks.current.graphics,clocks.sm,clocks.mem,utilization.gpu,"
                        + "utilization.memory,fan.speed,pcie.link.width.current,pstate"))
                .readings().get(0);
        // and a dcgm-exporter page's DCGM_FI_DEV_POWER_MGMT_LIMIT and draw lines, verbatim from the single-GPU
        // page in ai-dynamo/aiperf, tests/unit/gpu_telemetry/conftest.py (sample_dcgm_data, Apache-2.0)
        String page = """
                # HELP DCGM_FI_DEV_POWER_USAGE Power draw (in W)
                # TYPE DCGM_FI_DEV_POWER_USAGE gauge
                DCGM_FI_DEV_POWER_USAGE{gpu="0",UUID="GPU-ef6ef310-f8e2-cef9-036e-8f12d59b5ffc",\
                pci_bus_id="00000000:02:00.0",device="nvidia0",modelName="NVIDIA RTX 6000 Ada Generation",\
                Hostname="ed7e7a5e585f"} 22.582000
                # HELP DCGM_FI_DEV_POWER_MGMT_LIMIT Power management limit (in W)
                # TYPE DCGM_FI_DEV_POWER_MGMT_LIMIT gauge
                DCGM_FI_DEV_POWER_MGMT_LIMIT{gpu="0",UUID="GPU-ef6ef310-f8e2-cef9-036e-8f12d59b5ffc",\
                pci_bus_id="00000000:02:00.0",device="nvidia0",modelName="NVIDIA RTX 6000 Ada Generation",\
                Hostname="ed7e7a5e585f"} 300.000000
                """;
        GpuReading ada = dcgm.read(page).readings().get(0);

        // Then each reads the limit its output says, in watts, beside the draw
        assertThat(h100.value(Reading.POWER_LIMIT_WATTS)).isEqualTo(700.0);
        assertThat(rtx2080.value(Reading.POWER_LIMIT_WATTS)).isEqualTo(200.0);
        assertThat(rtx2080.powerWatts()).isEqualTo(176.98);
        assertThat(ada.value(Reading.POWER_LIMIT_WATTS)).isEqualTo(300.0);
        assertThat(ada.powerWatts()).isEqualTo(22.582);
    }

    @Test
    void shouldLeaveOutUtilisationThatAMigModeGpuReportsAsNotAvailable() {
        NvidiaSmiCsv.Result result = NvidiaSmiCsv.parse(
                Fixtures.read("nvidia-smi/h100-mig-enabled-allfields-csv-header-units-idle-driver590.csv"), List.of());

        GpuReading gpu = result.readings().get(0);
        assertThat(gpu.gpuUtilization()).isNull();
        assertThat(gpu.memoryUsedBytes()).isEqualTo(59.0 * 1024 * 1024);
        assertThat(gpu.powerWatts()).isEqualTo(71.15);
    }

    @Test
    void shouldReadAHeaderlessUnitlessLineWithTheQueryThatProducedIt() {
        String query = "nvidia-smi --query-gpu=power.limit,power.min_limit,power.max_limit,memory.total,vbios_version,"
                + "driver_version,name,gpu_uuid,power.draw,temperature.gpu,temperature.memory,clocks.current.graphics,"
                + "clocks.sm,clocks.mem,utilization.gpu,utilization.memory,fan.speed,pcie.link.width.current,pstate "
                + "--format=csv,noheader,nounits";

        NvidiaSmiCsv.Result result = NvidiaSmiCsv.parse(
                Fixtures.read("nvidia-smi/rtx2080-csv-noheader-nounits-driver440-gpu-utils-issue83.csv"),
                NvidiaSmiCsv.fieldsOf(query));

        assertThat(result.errors()).isEmpty();
        GpuReading gpu = result.readings().get(0);
        assertThat(gpu.uuid()).isEqualTo("GPU-22b2c6ac-2d49-4863-197c-9c469071178a");
        assertThat(gpu.model()).isEqualTo("GeForce RTX 2080");
        assertThat(gpu.powerWatts()).isEqualTo(176.98);
        assertThat(gpu.gpuUtilization()).isEqualTo(0.86);
    }

    @Test
    void shouldReadTheMeanPowerSinceTheLastScrapeFromTheEnergyCounterAndItsResetAsInstantaneous() {
        // Given the real page (its counter at 455,497,156 mJ, its power 40.979 W), the same page 10 s later (the
        // exporter had not refreshed), 20 s later with the counter 3,000,000 mJ on, then after the driver was reloaded
        String page = Fixtures.read("dcgm-exporter/k8s-pod-labels-rtx4000ada-gpu-operator.prom");
        String twentySecondsOn = page.replace("} 455497156", "} 458497156");
        String reloaded = page.replace("} 455497156", "} 1200");
        long t0 = 1_000_000_000L;

        DcgmScrape.Result first = dcgm.read(page, t0);
        DcgmScrape.Result unrefreshed = dcgm.read(page, t0 + 10_000_000_000L);
        DcgmScrape.Result second = dcgm.read(twentySecondsOn, t0 + 20_000_000_000L);
        DcgmScrape.Result third = dcgm.read(reloaded, t0 + 30_000_000_000L);

        // Then: instantaneous at first, and while the exporter had not refreshed the counter; then 3,000,000 mJ over
        // the 20 s since it last moved is 150 W; after the reload, instantaneous again
        assertThat(first.readings().get(0).powerWatts()).isEqualTo(40.979);
        assertThat(unrefreshed.readings().get(0).powerWatts()).isEqualTo(40.979);
        assertThat(second.readings().get(0).powerWatts()).isCloseTo(150.0, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(second.errors()).isEmpty();
        assertThat(third.readings().get(0).powerWatts()).isEqualTo(40.979);
        assertThat(third.errors()).singleElement().asString().contains("went back", "driver was reloaded");
    }

    @Test
    void shouldReadAKubernetesScrapeWithPodAndNamespaceAsJobAndTeam() {
        DcgmScrape.Result result =
                dcgm.read(Fixtures.read("dcgm-exporter/k8s-pod-labels-rtx4000ada-gpu-operator.prom"));

        assertThat(result.readings()).singleElement().satisfies(gpu -> {
            assertThat(gpu.uuid()).isEqualTo("GPU-a8394b51-c086-568a-9f1a-c1e1c934c44c");
            assertThat(gpu.jobId()).isEqualTo("cuda-75454ffb9f-8ljq7");
            assertThat(gpu.team()).isEqualTo("default");
            assertThat(gpu.reportedHost()).isEqualTo("lke529760-766837-0a634ab30000");
            assertThat(gpu.powerWatts()).isEqualTo(40.979);
            assertThat(gpu.memoryUsedBytes()).isEqualTo(1024.0 * 1024);
            assertThat(gpu.gpuUtilization()).isZero();
            assertThat(gpu.tensorActive()).isNotNull();
            assertThat(gpu.dramActive()).isEqualTo(0.003074);
        });
    }

    @Test
    void shouldWriteTheJobOfARealScrapesPodWithItsNamespaceWhenToldSo() {
        DcgmScrape namespaced = new DcgmScrape(List.of("pod"), List.of("namespace"),
                new PodJobs(PodJobIds.NAMESPACE_POD));

        DcgmScrape.Result result = namespaced.read(Fixtures.read("dcgm-exporter/h100x8-eks-k8s-sampled.prom"));

        // the page's labels: namespace="dynamo-workload", pod="vllm-agg-0-vllmdecodeworker-s65j5"
        assertThat(result.readings()).filteredOn(gpu -> gpu.jobId() != null).extracting(GpuReading::jobId)
                .containsExactly("dynamo-workload/vllm-agg-0-vllmdecodeworker-s65j5");
        assertThat(result.errors()).isEmpty();
    }

    @Test
    void shouldReadEightH100sAndTheJobOfTheOneThatRunsAPod() {
        DcgmScrape.Result result = dcgm.read(Fixtures.read("dcgm-exporter/h100x8-eks-k8s-sampled.prom"));

        assertThat(result.readings()).hasSize(8);
        assertThat(result.readings()).extracting(GpuReading::index).containsExactlyInAnyOrder(0, 1, 2, 3, 4, 5, 6, 7);
        assertThat(result.readings()).filteredOn(gpu -> gpu.jobId() != null).singleElement()
                .satisfies(gpu -> {
                    assertThat(gpu.index()).isZero();
                    assertThat(gpu.jobId()).isEqualTo("vllm-agg-0-vllmdecodeworker-s65j5");
                    assertThat(gpu.team()).isEqualTo("dynamo-workload");
                    assertThat(gpu.powerWatts()).isEqualTo(113.611);
                });
    }

    @Test
    void shouldReadTheLowerCaseHostnameLabelAndMigInstancesOfAnA30() {
        DcgmScrape.Result result = dcgm.read(
                Fixtures.read("dcgm-exporter/lowercase-hostname-mig-a30-mixed-node-pr736-excerpt.prom"));

        assertThat(result.readings())
                .allSatisfy(gpu -> assertThat(gpu.reportedHost()).isEqualTo("dcgm-exporter-wwwjh"));
        assertThat(result.readings()).filteredOn(gpu -> "1g.6gb".equals(gpu.migProfile())).isNotEmpty()
                .allSatisfy(gpu -> {
                    assertThat(gpu.uuid()).contains("/mig/");
                    assertThat(gpu.gpuFraction()).isEqualTo(0.25);
                });
    }

    @Test
    void shouldSplitAnA30IntoFourSlicesOfAQuarter() {
        DcgmScrape.Result result = dcgm.read(Fixtures.read("dcgm-exporter/mig-a30-1g6gb-issue317-excerpt.prom"));

        List<GpuReading> firstGpu = result.readings().stream()
                .filter(gpu -> gpu.uuid().startsWith("GPU-265c9814-6156-355b-e589-ff2064894f16")).toList();
        assertThat(firstGpu).extracting(GpuReading::uuid).contains("GPU-265c9814-6156-355b-e589-ff2064894f16/mig/3");
        assertThat(firstGpu.stream().mapToDouble(GpuReading::gpuFraction).sum()).isCloseTo(1.0, within(1e-9));
        assertThat(firstGpu).filteredOn(gpu -> gpu.migProfile().equals("1g.6gb"))
                .allSatisfy(gpu -> assertThat(gpu.smActive()).isZero());
    }

    @Test
    void shouldKeepTheUnslicedShareOfAMigGpuAsIdle() {
        DcgmScrape.Result result = dcgm.read(Fixtures.read("dcgm-exporter/mig-a100-1g5gb-nvidia-docs.prom"));

        GpuReading slice = result.readings().stream().filter(gpu -> gpu.uuid().endsWith("/mig/13")).findFirst()
                .orElseThrow();
        GpuReading rest = result.readings().stream()
                .filter(gpu -> gpu.uuid().equals("GPU-34319582-d595-d1c7-d1d2-179bcfa61660")).findFirst().orElseThrow();
        assertThat(slice.gpuFraction()).isEqualTo(1.0 / 7);
        assertThat(slice.tensorActive()).isEqualTo(0.930433);
        assertThat(rest.migProfile()).isEqualTo(DcgmScrape.UNALLOCATED_MIG);
        assertThat(rest.gpuFraction()).isCloseTo(6.0 / 7, within(1e-12));
        assertThat(rest.smActive()).isZero();
        assertThat(rest.powerWatts()).isEqualTo(409.692);
    }

    @Test
    void shouldReadGraphicsEngineActivityAsTheActivityOfAGpuWithoutSmActivity() {
        // Given an A100 page with DCGM_FI_PROF_GR_ENGINE_ACTIVE but neither SM activity nor utilisation
        DcgmScrape.Result result = dcgm.read(Fixtures.read("dcgm-exporter/mig-a100-1g5gb-nvidia-docs.prom"));

        // Then its MIG instance's activity is its graphics engine's, 0.995687 as the page says
        assertThat(result.readings()).filteredOn(gpu -> gpu.uuid().endsWith("/mig/13")).singleElement()
                .satisfies(slice -> assertThat(slice.smActive()).isEqualTo(0.995687));
    }

    @Test
    void shouldPreferSmActivityToGraphicsEngineActivityWhereAPageHasBoth() {
        // Given one GPU with both readings
        String page = "DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu=\"0\",UUID=\"GPU-1\"} 0.9\n"
                + "DCGM_FI_PROF_SM_ACTIVE{gpu=\"0\",UUID=\"GPU-1\"} 0.4\n";

        // Then SM activity, the finer of the two, is the one read
        assertThat(dcgm.read(page).readings()).singleElement()
                .satisfies(gpu -> assertThat(gpu.smActive()).isEqualTo(0.4));
    }

    @Test
    void shouldLeaveOutASentinelThatAnOldExporterLeaked() {
        DcgmScrape.Result result = new DcgmScrape(List.of(), List.of(), new PodJobs(PodJobIds.POD)).read(
                "DCGM_FI_DEV_FB_USED{gpu=\"0\", UUID=\"GPU-604ac76c-d9cf-fef3-62e9-d92044ab6e52\"} "
                        + "9223372036854775794\n"
                        + Fixtures.read("dcgm-exporter/sentinel-memory-temp-not-supported-readme.prom"));

        assertThat(result.readings().get(0).memoryUsedBytes()).isNull();
        assertThat(result.errors()).anySatisfy(error -> assertThat(error).contains("DCGM blank value"));
    }

    @Test
    void shouldKnowEveryRenamedFieldOfDcgm46ThatItReads() {
        String aliases = Fixtures.read("dcgm-exporter/dcgm-4.6-deprecated-field-aliases.csv");

        for (String renamed : List.of("DCGM_FI_PROF_SM_UTIL_RATIO", "DCGM_FI_PROF_GR_ENGINE_UTIL_RATIO",
                "DCGM_FI_PROF_SM_OCCUPANCY_RATIO",
                "DCGM_FI_PROF_TENSOR_UTIL_RATIO", "DCGM_FI_PROF_DRAM_UTIL_RATIO", "DCGM_FI_DEV_GPU_UTIL_RATIO",
                "DCGM_FI_DEV_BOARD_POWER_WATTS")) {
            assertThat(aliases).contains(renamed);
            assertThat(DcgmScrape.reads(renamed)).as(renamed).isTrue();
        }
    }
}
