package io.gpuledger.ingest.agent.collect;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Output forms of nvidia-smi's CSV query; the real captured outputs are in NvidiaSmiFixturesTest. */
class NvidiaSmiCsvTest {

    @Test
    void shouldReadTheFieldListOfTheQueryOption() {
        assertThat(NvidiaSmiCsv.fieldsOf("nvidia-smi --query-gpu=uuid,utilization.gpu --format=csv,noheader"))
                .containsExactly("uuid", "utilization.gpu");
        assertThat(NvidiaSmiCsv.fieldsOf("/opt/fake-smi.sh")).isEqualTo(NvidiaSmiCsv.DEFAULT_FIELDS);
    }

    @Test
    void shouldMapColumnsByTheHeaderIgnoringUnits() {
        String output = """
                uuid, utilization.gpu [%], index, power.draw [W], memory.used [MiB], name
                GPU-aaa, 35 %, 0, 56.78 W, 1024 MiB, NVIDIA A100-SXM4-40GB
                """;

        NvidiaSmiCsv.Result result = NvidiaSmiCsv.parse(output, NvidiaSmiCsv.DEFAULT_FIELDS);

        assertThat(result.errors()).isEmpty();
        GpuReading gpu = result.readings().get(0);
        assertThat(gpu.uuid()).isEqualTo("GPU-aaa");
        assertThat(gpu.index()).isZero();
        assertThat(gpu.model()).isEqualTo("NVIDIA A100-SXM4-40GB");
        assertThat(gpu.gpuUtilization()).isEqualTo(0.35);
        assertThat(gpu.powerWatts()).isEqualTo(56.78);
        assertThat(gpu.memoryUsedBytes()).isEqualTo(1024.0 * 1024 * 1024);
        assertThat(gpu.smActive()).isNull();
        assertThat(gpu.smActiveOrUtilization()).isEqualTo(0.35);
    }

    @Test
    void shouldUseTheQueriedFieldsWhenThereIsNoHeader() {
        String output = "1, GPU-bbb, Tesla T4, 0, 0, [N/A]\n";

        NvidiaSmiCsv.Result result = NvidiaSmiCsv.parse(output,
                List.of("index", "uuid", "name", "utilization.gpu", "memory.used", "power.draw"));

        assertThat(result.readings()).singleElement().satisfies(gpu -> {
            assertThat(gpu.index()).isEqualTo(1);
            assertThat(gpu.uuid()).isEqualTo("GPU-bbb");
            assertThat(gpu.gpuUtilization()).isZero();
            assertThat(gpu.powerWatts()).isNull();
        });
        assertThat(result.errors()).isEmpty();
    }

    @Test
    void shouldGiveTheGpusMemoryWhereTheQueryAsksForIt() {
        String output = "0, GPU-aaa, NVIDIA A100-SXM4-40GB, 85, 16384, 40960, 250.0, 400.0\n"
                + "1, GPU-bbb, NVIDIA A100-SXM4-40GB, 0, 0, [N/A], 60.0, 400.0\n";

        NvidiaSmiCsv.Result result = NvidiaSmiCsv.parse(output, NvidiaSmiCsv.DEFAULT_FIELDS);
        NvidiaSmiCsv.Result notAsked = NvidiaSmiCsv.parse("GPU-ccc, 1024\n", List.of("uuid", "memory.used"));

        assertThat(result.errors()).isEmpty();
        assertThat(result.readings()).extracting(GpuReading::memoryTotalBytes)
                .containsExactly(40960.0 * 1024 * 1024, null);
        assertThat(result.readings().get(0).memoryUsedBytes()).isEqualTo(16384.0 * 1024 * 1024);
        assertThat(notAsked.readings()).singleElement().satisfies(gpu -> assertThat(gpu.memoryTotalBytes()).isNull());
    }

    @Test
    void shouldTreatBracketedAnswersAsNoReadingAndReportBadRows() {
        String output = """
                index, uuid, name, utilization.gpu [%], memory.used [MiB], power.draw [W]
                0, GPU-ccc, NVIDIA A10G, [Not Supported], 10 MiB, [Unknown Error]
                1, GPU-ddd, NVIDIA A10G, lots, 10 MiB, 20 W
                2, [N/A], NVIDIA A10G, 5 %, 10 MiB, 20 W
                3, GPU-fff, NVIDIA A10G
                """;

        NvidiaSmiCsv.Result result = NvidiaSmiCsv.parse(output, List.of());

        assertThat(result.readings()).extracting(GpuReading::uuid).containsExactly("GPU-ccc", "GPU-ddd");
        assertThat(result.readings().get(0).gpuUtilization()).isNull();
        assertThat(result.readings().get(0).powerWatts()).isNull();
        assertThat(result.readings().get(1).gpuUtilization()).isNull();
        assertThat(result.errors()).containsExactly(
                "nvidia-smi line 3: utilization.gpu 'lots' is not a number; left out",
                "nvidia-smi line 4: no GPU UUID (query uuid, it identifies the GPU)",
                "nvidia-smi line 5: 3 values for 6 fields [index, uuid, name, utilization.gpu, memory.used, "
                        + "power.draw]");
    }
}
