package io.gpuledger.ingest.agent.usage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gpuledger.ingest.agent.collect.NvidiaSmiGpus;
import io.gpuledger.ingest.testing.Fixtures;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NvidiaSmiProcessesTest {

    private static final String GPU_0 = "GPU-e82ab913-2d6b-1a55-89a8-9ad23a5a09cf";
    private static final String GPU_2 = "GPU-f7c1496c-b7f5-b1d2-78ea-68826f778059";
    private static final String GPU_3 = "GPU-cfd9ce0a-b7af-895a-f54c-4f175b610977";
    private static final double MIB = 1024.0 * 1024;

    @TempDir
    Path dir;

    private final List<String> ran = new CopyOnWriteArrayList<>();

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
                NvidiaSmiGpus.QUERY, gpus,
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
                NvidiaSmiGpus.QUERY, "0, GPU-a, 1000, Disabled\n1, GPU-b, 1000, Disabled\n")), true);
        UsageSource.Result result = alone.read();

        assertThat(ran).containsExactly(ComputeApps.QUERY, NvidiaSmiGpus.QUERY);
        assertThat(result.byGpu().get("GPU-a").users()).containsExactly(GpuUser.process(7, null, 100 * MIB));
    }

    @Test
    void shouldSayWhatItCouldNotReadAndKeepTheRest() {
        NvidiaSmiProcesses source = new NvidiaSmiProcesses(arguments -> {
            if (arguments.startsWith("pmon")) {
                throw new IOException("'nvidia-smi pmon -s um -c 1' exited with 6: Not supported on the device(s)");
            }
            return arguments.equals(NvidiaSmiGpus.QUERY) ? "0, GPU-a, 1000, Disabled\nbroken line\n"
                    : "gpu_uuid, pid, used_gpu_memory [MiB]\nGPU-a, 7, 100 MiB\nGPU-a, 9, 50 MiB\n";
        }, true);

        UsageSource.Result result = source.read();

        assertThat(result.byGpu().get("GPU-a").users()).containsExactly(GpuUser.process(7, null, 100 * MIB),
                GpuUser.process(9, null, 50 * MIB));
        assertThat(result.errors()).hasSize(2).anySatisfy(e -> assertThat(e).contains("broken line"))
                .anySatisfy(e -> assertThat(e).contains("pmon").contains("not measured"));
    }

    @Test
    void shouldTakeTheMeanOfPmonsSamplesOverTheIntervalFromTheRunTheLastRoundStarted() {
        String pmonOver = NvidiaSmiProcesses.pmonOver(Duration.ofSeconds(10));
        String header = """
                # gpu         pid   type     sm    mem    enc    dec    jpg    ofa     fb   ccpm    command
                # Idx           #    C/G      %      %      %      %      %      %     MB     MB    name
                """;
        NvidiaSmiProcesses source = new NvidiaSmiProcesses(runner(Map.of(
                ComputeApps.QUERY, "gpu_uuid, pid, used_gpu_memory [MiB]\nGPU-a, 7, 100 MiB\nGPU-a, 9, 50 MiB\n",
                NvidiaSmiGpus.QUERY, "0, GPU-a, 1000, Disabled\n",
                NvidiaSmiProcesses.PMON, header + "    0      7     C     90      9      -      -      -      -"
                        + "    100      0    python\n",
                pmonOver, header + """
                    0          7     C     60      9      -      -      -      -    100      0    python
                    0          9     C     10      1      -      -      -      -     50      0    python
                    0          7     C     20      9      -      -      -      -    100      0    python
                    0          9     C     30      1      -      -      -      -     50      0    python
                    0          7     C     40      9      -      -      -      -    100      0    python
                """)), Duration.ofSeconds(10), true);

        UsageSource.Result first = source.read();
        UsageSource.Result second = source.read();

        // nine samples, one a second, ending before the next round of a 10 s interval
        assertThat(pmonOver).isEqualTo("pmon -s um -d 1 -c 9");
        // the first round has no run over an interval yet: the last second's sample
        assertThat(first.byGpu().get("GPU-a").users()).containsExactly(GpuUser.process(7, 0.9, 100 * MIB),
                GpuUser.process(9, 0.0, 50 * MIB));
        // the second takes the run the first started: 7 (60 + 20 + 40) / 3, 9 (10 + 30 + 0) / 3
        assertThat(second.errors()).isEmpty();
        assertThat(second.byGpu().get("GPU-a").users()).extracting(GpuUser::smRatio).satisfiesExactly(
                sm -> assertThat(sm).isCloseTo(0.4, within(1e-12)),
                sm -> assertThat(sm).isCloseTo(0.4 / 3, within(1e-12)));
        assertThat(ran).containsOnlyOnce(NvidiaSmiProcesses.PMON);
    }

    @Test
    void shouldSayAPmonRunOverTheIntervalThatFailedAndStartAnother() {
        List<String> pmonRuns = new CopyOnWriteArrayList<>();
        NvidiaSmiProcesses source = new NvidiaSmiProcesses(arguments -> {
            if (arguments.startsWith("pmon")) {
                pmonRuns.add(arguments);
                if (arguments.contains("-c 4")) {
                    throw new IOException("'nvidia-smi pmon -s um -d 1 -c 4' exited with 15: Terminated");
                }
                return "";
            }
            return arguments.equals(NvidiaSmiGpus.QUERY) ? "0, GPU-a, 1000, Disabled\n"
                    : "gpu_uuid, pid, used_gpu_memory [MiB]\nGPU-a, 7, 100 MiB\nGPU-a, 9, 50 MiB\n";
        }, Duration.ofSeconds(5), true);

        source.read();
        UsageSource.Result second = source.read();
        UsageSource.Result third = source.read();

        assertThat(second.errors()).singleElement().asString().contains("exited with 15").contains("not measured");
        assertThat(second.byGpu().get("GPU-a").users()).extracting(GpuUser::smRatio).containsOnlyNulls();
        assertThat(third.errors()).as("the run the second round started").singleElement().asString()
                .contains("exited with 15");
        assertThat(pmonRuns).startsWith(NvidiaSmiProcesses.PMON, "pmon -s um -d 1 -c 4", "pmon -s um -d 1 -c 4");
    }

    @Test
    void shouldStopThePmonRunStillSamplingWhenClosed() throws Exception {
        Path script = nvidiaSmi("""
                  --query-gpu=*) echo "0, GPU-a, 1000, Disabled" ;;
                  --query-compute-apps=*)
                    printf 'gpu_uuid, pid, used_gpu_memory [MiB]\\nGPU-a, 7, 1 MiB\\nGPU-a, 9, 1 MiB\\n' ;;
                  "pmon -s um -c 1") echo "# gpu pid type sm command" ;;
                  pmon*) echo $$ > '%s'; exec sleep 30 ;;
                """.formatted(dir.resolve("pmon.pid")));
        NvidiaSmiProcesses source = NvidiaSmiProcesses.of(script.toString(), Duration.ofSeconds(5),
                Duration.ofSeconds(30), true);

        assertThat(source.read().errors()).isEmpty();
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!Files.exists(dir.resolve("pmon.pid")) && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        long pid = Long.parseLong(Files.readString(dir.resolve("pmon.pid")).strip());
        assertThat(ProcessHandle.of(pid)).as("pmon sampling the interval ahead").isPresent();
        source.close();

        while (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false) && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).isFalse();
    }

    @Test
    void shouldStopAskingForAProgramTheNodeDoesNotHave() {
        NvidiaSmiProcesses quiet = NvidiaSmiProcesses.of("/nonexistent/nvidia-smi", Duration.ofSeconds(5),
                Duration.ofSeconds(10), false);
        NvidiaSmiProcesses said = NvidiaSmiProcesses.of("/nonexistent/nvidia-smi", Duration.ofSeconds(5),
                Duration.ofSeconds(10), true);

        assertThat(quiet.read().errors()).isEmpty();
        assertThat(said.read().errors()).singleElement().asString().contains("cannot be run");
        assertThat(said.read().errors()).isEmpty();
    }

    @Test
    void shouldLeaveTheMpsServerOutOfTheGpusUsers() {
        // Given an MPS GPU: nvidia-smi lists the server, which holds the context, and its one client (NVIDIA's MPS
        // docs: the server appears as an active CUDA process; since Volta the clients are listed too, "M+C")
        NvidiaSmiProcesses source = new NvidiaSmiProcesses(runner(Map.of(
                ComputeApps.QUERY, """
                        gpu_uuid, pid, used_gpu_memory [MiB], process_name
                        GPU-a, 1127738, 30 MiB, nvidia-cuda-mps-server
                        GPU-a, 1397691, 18 MiB, /usr/bin/python3
                        """,
                NvidiaSmiGpus.QUERY, "0, GPU-a, 1000, Disabled\n")), true);

        // When it is read
        UsageSource.Result result = source.read();

        // Then the client alone uses the GPU: no pmon is asked for, as for any GPU of one process
        assertThat(result.errors()).isEmpty();
        assertThat(result.byGpu().get("GPU-a").users()).containsExactly(GpuUser.process(1397691, null, 18 * MIB));
        assertThat(ran).doesNotContain(NvidiaSmiProcesses.PMON);
    }

    @Test
    void shouldReadWhatARunThatFailedForOneGpuPrintedForTheOthers() throws IOException {
        // Given nvidia-smi that lost one GPU: it lists the others' processes and ends with an error status
        Path script = nvidiaSmi("""
                  --query-gpu=*) echo "0, GPU-a, 1000, Disabled" ;;
                  --query-compute-apps=*)
                    printf 'gpu_uuid, pid, used_gpu_memory [MiB]\\nGPU-a, 7, 1 MiB\\n'
                    echo "Unable to determine the device handle for GPU0000:3B:00.0: Unknown Error" >&2
                    exit 15 ;;
                """);
        NvidiaSmiProcesses source = NvidiaSmiProcesses.of(script.toString(), Duration.ofSeconds(5),
                Duration.ofSeconds(10), true);

        // When it is read
        UsageSource.Result result = source.read();

        // Then the GPU it listed has its process, and the status is said
        assertThat(result.byGpu().get("GPU-a").users()).containsExactly(GpuUser.process(7, null, MIB));
        assertThat(result.errors()).singleElement().asString().contains("15").contains("Unknown Error");
    }

    @Test
    void shouldAskAgainForAProgramMissingAtFirst() throws IOException {
        // Given an agent that starts before the driver's container has put nvidia-smi in place
        Path program = dir.resolve("nvidia-smi");
        NvidiaSmiProcesses source = NvidiaSmiProcesses.of(program.toString(), Duration.ofSeconds(5),
                Duration.ofSeconds(10), true);
        assertThat(source.read().errors()).singleElement().asString().contains("cannot be run");

        // When it comes, and the rounds of the wait have passed
        nvidiaSmi("""
                  --query-compute-apps=*) printf 'gpu_uuid, pid, used_gpu_memory [MiB]\\nGPU-a, 7, 1 MiB\\n' ;;
                  --query-gpu=*) echo "0, GPU-a, 1000, Disabled" ;;
                """);
        for (int round = 0; round < NvidiaSmiProcesses.RETRY_MISSING_ROUNDS; round++) {
            assertThat(source.read().byGpu()).isEmpty();
        }

        // Then the processes are read
        assertThat(source.read().byGpu().get("GPU-a").users()).containsExactly(GpuUser.process(7, null, MIB));

        // And when it goes again (the driver's container restarting), that is said again
        Files.delete(program);
        assertThat(source.read().errors()).singleElement().asString().contains("cannot be run");
    }

    @Test
    void shouldDropAPmonRunStartedRoundsBeforeForASampleOfTheLastSecond() {
        // Given a shared GPU read at 0 s, which started pmon over the 10 s ahead (it saw process 7 at 80%)
        String header = "# gpu pid type sm mem fb command\n";
        long[] now = {0};
        NvidiaSmiProcesses source = new NvidiaSmiProcesses(runner(Map.of(
                ComputeApps.QUERY, "gpu_uuid, pid, used_gpu_memory [MiB]\nGPU-a, 7, 100 MiB\nGPU-a, 9, 50 MiB\n",
                NvidiaSmiGpus.QUERY, "0, GPU-a, 1000, Disabled\n",
                NvidiaSmiProcesses.PMON, header + "0 7 C 10 1 100 python\n0 9 C 30 1 50 python\n",
                NvidiaSmiProcesses.pmonOver(Duration.ofSeconds(10)), header + "0 7 C 80 1 100 python\n")),
                Duration.ofSeconds(10), true, () -> now[0]);
        source.read();

        // When the next read comes 20 s later, another source having spoken for the round between
        now[0] = Duration.ofSeconds(20).toNanos();
        UsageSource.Result late = source.read();

        // Then its SM times are the last second's, not those of the run started two rounds before
        assertThat(late.byGpu().get("GPU-a").users()).extracting(GpuUser::smRatio).containsExactly(0.1, 0.3);
        assertThat(ran).filteredOn(NvidiaSmiProcesses.PMON::equals).hasSize(2);
    }

    @Test
    void shouldMeasureNoSmTimeOnAGpuWithAPmonLineItCouldNotRead() {
        // Given pmon's sample of GPU 0 whose line for process 9 is broken (an SM share of 250%)
        NvidiaSmiProcesses source = new NvidiaSmiProcesses(runner(Map.of(
                ComputeApps.QUERY, "gpu_uuid, pid, used_gpu_memory [MiB]\nGPU-a, 7, 100 MiB\nGPU-a, 9, 50 MiB\n",
                NvidiaSmiGpus.QUERY, "0, GPU-a, 1000, Disabled\n",
                NvidiaSmiProcesses.PMON, "# gpu pid type sm mem fb command\n0 7 C 40 1 100 python\n"
                        + "0 9 C 250 1 50 python\n")), true);

        // When it is read
        UsageSource.Result result = source.read();

        // Then neither process has an SM share (the split falls back to memory), rather than 9 having none
        assertThat(result.byGpu().get("GPU-a").users()).extracting(GpuUser::smRatio).containsOnlyNulls();
        assertThat(result.errors()).singleElement().asString().contains("250");
    }

    /** An executable {@code nvidia-smi} in the test's folder, answering its arguments as {@code cases} says. */
    private Path nvidiaSmi(String cases) throws IOException {
        Path script = Files.writeString(dir.resolve("nvidia-smi"), "#!/bin/sh\ncase \"$*\" in\n" + cases + "esac\n");
        script.toFile().setExecutable(true);
        return script;
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
