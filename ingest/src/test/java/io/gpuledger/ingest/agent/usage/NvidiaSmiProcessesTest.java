package io.gpuledger.ingest.agent.usage;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuledger.ingest.testing.Fixtures;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class NvidiaSmiProcessesTest {

    private static final String GPU_0 = "GPU-e82ab913-2d6b-1a55-89a8-9ad23a5a09cf";
    private static final String GPU_2 = "GPU-f7c1496c-b7f5-b1d2-78ea-68826f778059";
    private static final String GPU_3 = "GPU-cfd9ce0a-b7af-895a-f54c-4f175b610977";
    private static final double MIB = 1024.0 * 1024;

    private final List<String> ran = new ArrayList<>();

    @Test
    void shouldJoinEachProcessesMemoryWithItsSmTimeOnTheGpusPmonWatches() {
        String gpus = """
                0, %s, 81559, Disabled
                1, GPU-4eac38f2-1a70-662a-f6f4-9b62d1778ef4, 81559, Disabled
                2, %s, 81559, Disabled
                3, %s, 81559, Enabled
                """.formatted(GPU_0, GPU_2, GPU_3);
        String pmon = """
                # gpu         pid   type     sm    mem    enc    dec    jpg    ofa     fb   ccpm    command
                # Idx           #    C/G      %      %      %      %      %      %     MB     MB    name
                    0    2069192     C     75      9      -      -      -      -  77002      0    python
                    0    2680904     C      -      -      -      -      -      -    518      0    python
                """;
        NvidiaSmiProcesses source = new NvidiaSmiProcesses(runner(Map.of(
                NvidiaSmiProcesses.GPUS_QUERY, gpus,
                ComputeApps.QUERY, Fixtures.read("nvidia-smi/compute-apps-gpu_uuid-pid-used_memory-4gpu.csv"),
                NvidiaSmiProcesses.PMON, pmon)), true);

        UsageSource.Result result = source.read();

        assertThat(result.errors()).isEmpty();
        // GPU 3 is in MIG mode: nvidia-smi cannot tell the slice of its process
        assertThat(result.byGpu()).containsOnlyKeys(GPU_0, GPU_2);
        assertThat(result.byGpu().get(GPU_0)).isEqualTo(new GpuUsers(GPU_0, "nvidia-smi", List.of(
                GpuUser.process(2069192, 0.75, 77002 * MIB), GpuUser.process(2680904, 0.0, 518 * MIB)),
                81559 * MIB));
        // pmon printed nothing for GPU 2: its SM time is not measured
        assertThat(result.byGpu().get(GPU_2).users()).containsExactly(GpuUser.process(2198486, null, 74278 * MIB));
    }

    @Test
    void shouldRunNeitherTheGpuListNorPmonWithoutProcessesNorPmonWithoutASharedGpu() {
        NvidiaSmiProcesses idle = new NvidiaSmiProcesses(runner(Map.of(
                ComputeApps.QUERY, "gpu_uuid, pid, used_gpu_memory [MiB]\n")), true);
        assertThat(idle.read()).isEqualTo(new UsageSource.Result(Map.of(), List.of()));
        assertThat(ran).containsExactly(ComputeApps.QUERY);

        ran.clear();
        NvidiaSmiProcesses alone = new NvidiaSmiProcesses(runner(Map.of(
                ComputeApps.QUERY, "gpu_uuid, pid, used_gpu_memory [MiB]\nGPU-a, 7, 100 MiB\nGPU-b, 8, 200 MiB\n",
                NvidiaSmiProcesses.GPUS_QUERY, "0, GPU-a, 1000, Disabled\n1, GPU-b, 1000, Disabled\n")), true);
        UsageSource.Result result = alone.read();

        assertThat(ran).containsExactly(ComputeApps.QUERY, NvidiaSmiProcesses.GPUS_QUERY);
        assertThat(result.byGpu().get("GPU-a").users()).containsExactly(GpuUser.process(7, null, 100 * MIB));
    }

    @Test
    void shouldSayWhatItCouldNotReadAndKeepTheRest() {
        NvidiaSmiProcesses source = new NvidiaSmiProcesses(arguments -> {
            if (arguments.startsWith("pmon")) {
                throw new IOException("'nvidia-smi pmon -s um -c 1' exited with 6: Not supported on the device(s)");
            }
            return arguments.equals(NvidiaSmiProcesses.GPUS_QUERY) ? "0, GPU-a, 1000, Disabled\nbroken line\n"
                    : "gpu_uuid, pid, used_gpu_memory [MiB]\nGPU-a, 7, 100 MiB\nGPU-a, 9, 50 MiB\n";
        }, true);

        UsageSource.Result result = source.read();

        assertThat(result.byGpu().get("GPU-a").users()).containsExactly(GpuUser.process(7, null, 100 * MIB),
                GpuUser.process(9, null, 50 * MIB));
        assertThat(result.errors()).hasSize(2).anySatisfy(e -> assertThat(e).contains("broken line"))
                .anySatisfy(e -> assertThat(e).contains("pmon").contains("not measured"));
    }

    @Test
    void shouldStopAskingForAProgramTheNodeDoesNotHave() {
        NvidiaSmiProcesses quiet = NvidiaSmiProcesses.of("/nonexistent/nvidia-smi", java.time.Duration.ofSeconds(5),
                false);
        NvidiaSmiProcesses said = NvidiaSmiProcesses.of("/nonexistent/nvidia-smi", java.time.Duration.ofSeconds(5),
                true);

        assertThat(quiet.read().errors()).isEmpty();
        assertThat(said.read().errors()).singleElement().asString().contains("cannot be run");
        assertThat(said.read().errors()).isEmpty();
    }

    private NvidiaSmiProcesses.Runner runner(Map<String, String> outputs) {
        return arguments -> {
            ran.add(arguments);
            String output = outputs.get(arguments);
            if (output == null) {
                throw new IOException("unexpected arguments " + arguments);
            }
            return output;
        };
    }
}
