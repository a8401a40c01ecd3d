package io.gpuledger.ingest.agent.owners;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuledger.ingest.agent.collect.NvidiaSmiGpus;
import io.gpuledger.ingest.agent.owners.MigInstances.Instance;
import io.gpuledger.ingest.testing.Fixtures;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The GPU instances of a node as published {@code nvidia-smi mig -lgi} tables list them (fixtures/FIXTURES.md). */
class MigInstancesTest {

    private static final String GPU_0 = "GPU-5d3c1a2b-8e4f-4a6b-9c7d-2e1f0a9b8c71";
    private static final String GPU_1 = "GPU-8a7b6c5d-1e2f-4a3b-8c4d-5e6f7a8b9c02";

    @Test
    void shouldReadEachInstanceOfAnA100SplitIntoSevenSlices() {
        var instances = MigInstances.parse(Fixtures.read("nvidia-smi/mig/mig-lgi-a100-7x1g5gb-cloud-native-docs.txt"));

        // Instances 7 to 13, one memory slice each, from slice 0 to 6
        assertThat(instances).hasSize(7);
        for (int i = 0; i < 7; i++) {
            assertThat(instances.get(i)).isEqualTo(new Instance(0, "1g.5gb", 19, 7 + i, i, 1));
        }
    }

    @Test
    void shouldNameTheSliceAtEachPlacementOfTwoGpusWhoseInstanceIdsFollowNoOrder() {
        var instances = MigInstances.parse(
                Fixtures.read("nvidia-smi/mig/mig-lgi-a100-80gb-mixed-dcgm-issue138-excerpt.txt"));
        Map<Integer, String> gpus = NvidiaSmiGpus.parse(
                "0, " + GPU_0 + ", 81920, Enabled\n1, " + GPU_1 + ", 81920, Enabled\n").uuidsByIndex();

        Map<String, String> slices = new java.util.HashMap<>();
        MigInstances.slicesByPlacement(instances, gpus)
                .forEach((placement, slice) -> slices.put(placement, slice.id()));

        assertThat(instances).hasSize(8).contains(new Instance(0, "3g.40gb", 9, 2, 4, 4),
                new Instance(1, "2g.20gb", 14, 5, 0, 2));
        assertThat(slices).containsOnly(
                Map.entry(GPU_0 + "@2", GPU_0 + "/mig/9"), Map.entry(GPU_0 + "@3", GPU_0 + "/mig/10"),
                Map.entry(GPU_0 + "@0", GPU_0 + "/mig/3"), Map.entry(GPU_0 + "@4", GPU_0 + "/mig/2"),
                Map.entry(GPU_1 + "@2", GPU_1 + "/mig/13"), Map.entry(GPU_1 + "@3", GPU_1 + "/mig/14"),
                Map.entry(GPU_1 + "@0", GPU_1 + "/mig/5"), Map.entry(GPU_1 + "@4", GPU_1 + "/mig/1"));
    }

    @Test
    void shouldRunNvidiaSmiForTheInstancesAndTheGpusUuids() throws IOException {
        String table = Fixtures.read("nvidia-smi/mig/mig-lgi-a100-80gb-mixed-dcgm-issue138-excerpt.txt");
        MigInstances mig = new MigInstances(arguments -> switch (arguments) {
            case MigInstances.LIST -> table;
            case NvidiaSmiGpus.QUERY -> "0, " + GPU_0 + ", 81920, Enabled\n";
            default -> throw new IOException("not asked for: " + arguments);
        });

        // GPU 1 is not in the GPU list: its instances name no slice
        assertThat(mig.slicesByPlacement()).hasSize(4)
                .containsEntry(GPU_0 + "@4", new MigInstances.Slice(GPU_0 + "/mig/2", "3g.40gb"));
    }

    @Test
    void shouldTakeTheInstancesAProgramListsWhateverItsStatusButFailWhereItListsNone(@TempDir Path dir)
            throws IOException {
        // A stand-in that lists one GPU's instances and ends with status 6, as for another GPU that has none; and
        // one that lists nothing and ends so
        Path lists = dir.resolve("lists");
        Files.writeString(lists, "#!/bin/sh\ncase \"$*\" in\n"
                + "  \"mig -lgi\") echo '|   0  MIG 3g.40gb          9        2          4:4     |'; exit 6 ;;\n"
                + "  *) echo '0, " + GPU_0 + ", 81920, Enabled' ;;\nesac\n");
        Path none = dir.resolve("none");
        Files.writeString(none, "#!/bin/sh\necho 'No MIG-enabled devices found.' >&2\nexit 6\n");
        lists.toFile().setExecutable(true);
        none.toFile().setExecutable(true);

        assertThat(MigInstances.of(lists.toString(), Duration.ofSeconds(10)).slicesByPlacement())
                .containsOnlyKeys(GPU_0 + "@4");
        assertThatThrownBy(() -> MigInstances.of(none.toString(), Duration.ofSeconds(10)).slicesByPlacement())
                .hasMessageContaining("exited with 6").hasMessageContaining("No MIG-enabled devices found.");
    }

    @Test
    void shouldFindNoInstanceWhereNvidiaSmiSaysThereIsNoneAndFailWhereItFails() {
        // Hand-written: a message instead of a table, and a row whose instance id is past any int
        assertThat(MigInstances.parse("No GPU instances found: Not Found\n")).isEmpty();
        assertThat(MigInstances.parse("|   0  MIG 1g.5gb       19  99999999999          0:1     |\n")).isEmpty();
        MigInstances failing = new MigInstances(arguments -> {
            throw new IOException("'nvidia-smi mig -lgi' exited with 6: No MIG-enabled devices found.");
        });
        assertThatThrownBy(failing::slicesByPlacement).hasMessageContaining("No MIG-enabled devices found");
    }
}
