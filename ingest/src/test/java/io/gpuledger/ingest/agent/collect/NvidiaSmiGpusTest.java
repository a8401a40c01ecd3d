package io.gpuledger.ingest.agent.collect;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** nvidia-smi's GPU list, as the per-process split and the DRA MIG mapping read it. */
class NvidiaSmiGpusTest {

    @Test
    void shouldReadEachGpusIndexUuidMemoryAndMigMode() {
        // The values of the H100 fixtures' first row (h100-*-allfields-*-driver590.csv: 81559 MiB, MIG Enabled
        // on one, Disabled on the other), in this query's form without header or units; the UUIDs told apart
        var gpus = NvidiaSmiGpus.parse("0, GPU-00000000-0000-0000-0000-000000000000, 81559, Enabled\n"
                + "1, GPU-00000000-0000-0000-0000-000000000001, 81559, Disabled\r\n");

        assertThat(gpus.errors()).isEmpty();
        assertThat(gpus.byUuid().values()).containsExactly(
                new NvidiaSmiGpus.Gpu(0, "GPU-00000000-0000-0000-0000-000000000000", 81559.0 * 1024 * 1024, true),
                new NvidiaSmiGpus.Gpu(1, "GPU-00000000-0000-0000-0000-000000000001", 81559.0 * 1024 * 1024, false));
        assertThat(gpus.uuidsByIndex()).isEqualTo(Map.of(0, "GPU-00000000-0000-0000-0000-000000000000",
                1, "GPU-00000000-0000-0000-0000-000000000001"));
    }

    @Test
    void shouldSayEachLineThatIsNoGpuAndKeepTheOthers() {
        // Hand-written: a message where a GPU fails, a line cut short, an index that is no number, and a memory
        // nvidia-smi cannot give
        var gpus = NvidiaSmiGpus.parse("0, GPU-a, 1000, Disabled\nNo devices were found\n1, GPU-b\n"
                + "x, GPU-c, 1000, Disabled\n3, GPU-d, [N/A], Disabled\n");

        assertThat(gpus.uuidsByIndex()).isEqualTo(Map.of(0, "GPU-a", 3, "GPU-d"));
        assertThat(gpus.byUuid().get("GPU-d").memoryBytes()).isNull();
        assertThat(gpus.errors()).hasSize(3);
        assertThat(gpus.errors().get(0)).contains("'No devices were found'", "1 values, not 4", "skipped");
        assertThat(gpus.errors().get(1)).contains("'1, GPU-b'", "2 values, not 4");
        assertThat(gpus.errors().get(2)).contains("'x, GPU-c, 1000, Disabled'");
    }
}
