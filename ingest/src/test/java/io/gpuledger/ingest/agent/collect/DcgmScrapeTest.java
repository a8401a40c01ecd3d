package io.gpuledger.ingest.agent.collect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gpuledger.ingest.agent.usage.PodJobIds;
import io.gpuledger.ingest.agent.usage.PodJobs;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Mapping rules of dcgm-exporter scrapes; real captured scrapes are read in DcgmFixturesTest. */
class DcgmScrapeTest {

    private final DcgmScrape scrape = new DcgmScrape(List.of("pod"), List.of("namespace"), new PodJobs(PodJobIds.POD));

    @Test
    void shouldNormaliseFieldsAndUnitsOfOneGpu() {
        String text = """
                DCGM_FI_PROF_SM_ACTIVE{gpu="3",UUID="GPU-a",modelName="NVIDIA H100 80GB HBM3",Hostname="node-7"} 0.625
                DCGM_FI_PROF_SM_OCCUPANCY{gpu="3",UUID="GPU-a",modelName="NVIDIA H100 80GB HBM3",Hostname="node-7"} 0.31
                DCGM_FI_PROF_DRAM_ACTIVE{gpu="3",UUID="GPU-a",modelName="NVIDIA H100 80GB HBM3",Hostname="node-7"} 0.5
                DCGM_FI_PROF_PIPE_TENSOR_ACTIVE{gpu="3",UUID="GPU-a",modelName="NVIDIA H100 80GB \
                HBM3",Hostname="node-7"} 0.2
                DCGM_FI_DEV_GPU_UTIL{gpu="3",UUID="GPU-a",modelName="NVIDIA H100 80GB HBM3",Hostname="node-7"} 97
                DCGM_FI_DEV_POWER_USAGE{gpu="3",UUID="GPU-a",modelName="NVIDIA H100 80GB HBM3",Hostname="node-7"} 512.5
                DCGM_FI_DEV_FB_USED{gpu="3",UUID="GPU-a",modelName="NVIDIA H100 80GB HBM3",Hostname="node-7"} 2048
                DCGM_FI_PROF_NVLINK_TX_BYTES{gpu="3",UUID="GPU-a",modelName="NVIDIA H100 80GB HBM3",Hostname="node-7"} \
                1.5e10
                DCGM_FI_PROF_PCIE_TX_BYTES{gpu="3",UUID="GPU-a",modelName="NVIDIA H100 80GB HBM3",Hostname="node-7"} 3e8
                """;

        DcgmScrape.Result result = scrape.read(text);

        assertThat(result.errors()).isEmpty();
        GpuReading gpu = result.readings().get(0);
        assertThat(gpu.uuid()).isEqualTo("GPU-a");
        assertThat(gpu.index()).isEqualTo(3);
        assertThat(gpu.model()).isEqualTo("NVIDIA H100 80GB HBM3");
        assertThat(gpu.smActive()).isEqualTo(0.625);
        assertThat(gpu.smOccupancy()).isEqualTo(0.31);
        assertThat(gpu.dramActive()).isEqualTo(0.5);
        assertThat(gpu.tensorActive()).isEqualTo(0.2);
        assertThat(gpu.gpuUtilization()).isCloseTo(0.97, within(1e-12));
        assertThat(gpu.powerWatts()).isEqualTo(512.5);
        assertThat(gpu.memoryUsedBytes()).isEqualTo(2048.0 * 1024 * 1024);
        assertThat(gpu.nvlinkTxBytesPerSecond()).isEqualTo(1.5e10);
        assertThat(gpu.pcieTxBytesPerSecond()).isEqualTo(3e8);
        assertThat(gpu.reportedHost()).isEqualTo("node-7");
    }

    @Test
    void shouldGiveTheGpusMemoryAsItsUsedFreeAndReservedMemoryTogether() {
        String text = """
                DCGM_FI_DEV_FB_USED{gpu="0",UUID="GPU-a",modelName="NVIDIA A100-SXM4-80GB"} 16384
                DCGM_FI_DEV_FB_FREE{gpu="0",UUID="GPU-a",modelName="NVIDIA A100-SXM4-80GB"} 64535
                DCGM_FI_DEV_FB_RESERVED{gpu="0",UUID="GPU-a",modelName="NVIDIA A100-SXM4-80GB"} 1001
                DCGM_FI_DEV_FB_USED{gpu="1",UUID="GPU-b",modelName="NVIDIA A100-SXM4-80GB"} 16384
                """;

        DcgmScrape.Result result = scrape.read(text);

        assertThat(result.errors()).isEmpty();
        // 16384 + 64535 + 1001 = 81920 MiB
        assertThat(result.readings().get(0).memoryTotalBytes()).isEqualTo(81920.0 * 1024 * 1024);
        assertThat(result.readings().get(1).memoryTotalBytes()).as("without its free memory").isNull();
        assertThat(result.readings().get(0).users()).as("no pod's series").isNull();
    }

    @Test
    void shouldReadTheLowerCaseHostLabelAndKubernetesJobAndTeam() {
        String text = "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",UUID=\"GPU-b\",hostname=\"node-8\",container=\"trainer\","
                + "namespace=\"research\",pod=\"llm-pretrain-0\",label_secret=\"x\"} 40\n";

        GpuReading gpu = scrape.read(text).readings().get(0);

        assertThat(gpu.reportedHost()).isEqualTo("node-8");
        assertThat(gpu.jobId()).isEqualTo("llm-pretrain-0");
        assertThat(gpu.team()).isEqualTo("research");
    }

    @Test
    void shouldLeaveOutDcgmBlankSentinelsAndSayWhy() {
        String text = """
                DCGM_FI_DEV_POWER_USAGE{gpu="0",UUID="GPU-c"} 140737488355328
                DCGM_FI_DEV_FB_USED{gpu="0",UUID="GPU-c"} 2147483632
                DCGM_FI_PROF_SM_ACTIVE{gpu="0",UUID="GPU-c"} 9223372036854775792
                DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-c"} 12
                """;

        DcgmScrape.Result result = scrape.read(text);

        GpuReading gpu = result.readings().get(0);
        assertThat(gpu.powerWatts()).isNull();
        assertThat(gpu.memoryUsedBytes()).isNull();
        assertThat(gpu.smActive()).isNull();
        assertThat(gpu.gpuUtilization()).isCloseTo(0.12, within(1e-12));
        assertThat(result.errors()).hasSize(3).allMatch(error -> error.contains("DCGM blank value"));
    }

    @Test
    void shouldReportEachMigInstanceWithItsShareOfTheGpu() {
        String text = """
                DCGM_FI_PROF_SM_ACTIVE{gpu="0",UUID="GPU-d",modelName="NVIDIA \
                A100-SXM4-40GB",GPU_I_PROFILE="3g.20gb",GPU_I_ID="1"} 0.4
                DCGM_FI_PROF_SM_ACTIVE{gpu="0",UUID="GPU-d",modelName="NVIDIA \
                A100-SXM4-40GB",GPU_I_PROFILE="1g.5gb",GPU_I_ID="9"} 0.1
                """;

        List<GpuReading> readings = scrape.read(text).readings();

        assertThat(readings).extracting(GpuReading::uuid).containsExactly("GPU-d/mig/1", "GPU-d/mig/9");
        assertThat(readings.get(0).gpuFraction()).isEqualTo(3.0 / 7);
        assertThat(readings.get(1).gpuFraction()).isEqualTo(1.0 / 7);
        assertThat(readings.get(0).migProfile()).isEqualTo("3g.20gb");
        assertThat(DcgmScrape.sliceShare("2g.12gb", "NVIDIA A30")).isEqualTo(0.5);
    }

    @Test
    void shouldRefuseRatiosOutOfRange() {
        DcgmScrape.Result result = scrape.read("DCGM_FI_PROF_SM_ACTIVE{gpu=\"0\",UUID=\"GPU-e\"} 1.7\n");

        assertThat(result.readings().get(0).smActive()).isNull();
        assertThat(result.errors()).containsExactly("DCGM_FI_PROF_SM_ACTIVE of GPU-e: 1.7 is out of range, left out");
    }
}
