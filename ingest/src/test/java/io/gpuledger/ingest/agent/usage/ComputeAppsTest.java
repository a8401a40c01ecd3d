package io.gpuledger.ingest.agent.usage;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuledger.ingest.agent.usage.ComputeApps.Row;
import io.gpuledger.ingest.testing.Fixtures;
import org.junit.jupiter.api.Test;

class ComputeAppsTest {

    @Test
    void shouldReadEachProcessOfEachGpuWithItsMemory() {
        ComputeApps.Result result = ComputeApps.parse(
                Fixtures.read("nvidia-smi/compute-apps-gpu_uuid-pid-used_memory-4gpu.csv"));

        assertThat(result.errors()).isEmpty();
        // one process on two GPUs is a row on each
        assertThat(result.rows()).containsExactly(
                new Row("GPU-e82ab913-2d6b-1a55-89a8-9ad23a5a09cf", 2069192, 80_742_449_152.0),
                new Row("GPU-e82ab913-2d6b-1a55-89a8-9ad23a5a09cf", 2680904, 543_162_368.0),
                new Row("GPU-f7c1496c-b7f5-b1d2-78ea-68826f778059", 2198486, 77_886_128_128.0),
                new Row("GPU-cfd9ce0a-b7af-895a-f54c-4f175b610977", 2680904, 543_162_368.0));
    }

    @Test
    void shouldReadColumnsByNameAndMemoryWithoutUnitsOrNotAvailable() {
        String text = """
                pid, gpu_uuid, used_gpu_memory [MiB]
                17, GPU-a, 100
                18, GPU-a, [N/A]
                """;

        assertThat(ComputeApps.parse(text).rows()).containsExactly(
                new Row("GPU-a", 17, 104_857_600.0), new Row("GPU-a", 18, null));
    }

    @Test
    void shouldReadEachProcesssNameWhateverItHoldsAndKnowTheMpsServer() {
        // The header as nvidia-smi prints "name" (dcgm-exporter issue #94 shows "gpu_uuid, process_name" for
        // --query-compute-apps=gpu_uuid,name); a name last, holding a comma
        String text = """
                gpu_uuid, pid, used_gpu_memory [MiB], process_name
                GPU-a, 1127738, 30 MiB, /usr/bin/nvidia-cuda-mps-server
                GPU-a, 1397691, 18 MiB, python3 serve.py --models a,b
                GPU-a, 1400000, 10 MiB, nvidia-cuda-mps-server-wrapper
                """;

        ComputeApps.Result result = ComputeApps.parse(text);

        assertThat(result.errors()).isEmpty();
        assertThat(result.rows()).extracting(Row::processName).containsExactly("/usr/bin/nvidia-cuda-mps-server",
                "python3 serve.py --models a,b", "nvidia-cuda-mps-server-wrapper");
        assertThat(result.rows()).extracting(Row::mpsServer).containsExactly(true, false, false);
        assertThat(result.rows().get(1).memoryBytes()).isEqualTo(18 * 1024 * 1024.0);
    }

    @Test
    void shouldSkipAndSayRowsItCannotRead() {
        String text = """
                GPU-a, 1, 1 MiB
                gpu_uuid, pid, used_gpu_memory [MiB]
                GPU-a, -4, 1 MiB
                GPU-a, 5
                No devices were found, 6, 1 MiB
                GPU-b, 7, lots
                GPU-c, 8, 2 MiB
                """;

        ComputeApps.Result result = ComputeApps.parse(text);

        assertThat(result.rows()).containsExactly(new Row("GPU-c", 8, 2_097_152.0));
        assertThat(result.errors()).hasSize(5);
        // each says the line: nvidia-smi prints why it failed on its standard output, as such a line
        assertThat(result.errors().get(0)).contains("before the header").endsWith("GPU-a, 1, 1 MiB");
    }
}
