package io.gpuledger.ingest.agent.owners;

import static io.gpuledger.ingest.testing.KubernetesApiStandIn.MIG_PARENT_GPU;
import static io.gpuledger.ingest.testing.KubernetesApiStandIn.migSlices;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gpuledger.ingest.agent.owners.DraDevices.MigDevice;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Where a DRA MIG device lies on its GPU, as NVIDIA's driver publishes it (stand-ins/kubernetes/ORIGINS.md). */
class DraDevicesTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void shouldFindEachStaticMigDevicesParentAndFirstMemorySlice() throws IOException {
        Map<String, MigDevice> devices = DraDevices.migDevices(items(migSlices()));

        assertThat(devices.values()).extracting(MigDevice::name, MigDevice::profile, MigDevice::placementStart)
                .containsExactlyInAnyOrder(
                        tuple("gpu-0-mig-2g20gb-14-0", "2g.20gb", 0),
                        tuple("gpu-0-mig-1g10gb-19-2", "1g.10gb", 2),
                        tuple("gpu-0-mig-1g10gb-19-3", "1g.10gb", 3),
                        tuple("gpu-0-mig-3g40gb-9-4", "3g.40gb", 4));
        assertThat(devices.values()).allMatch(device -> device.parentUuid().equals(MIG_PARENT_GPU));
        assertThat(DraDevices.gpus(items(migSlices()))).as("a MIG device's own uuid is no GPU's").isEmpty();
    }

    @Test
    void shouldTakeThePlacementFromTheNameOfADeviceWithoutMemorySlicesInEitherForm() throws IOException {
        // Hand-written, in the driver's shapes: a dynamic MIG device (its placement in counters it consumes, not in
        // capacities), a static one named as releases before 25.12 named it (profile id, start, size), a device
        // whose name says no placement, and a whole GPU
        String slices = """
                {"items": [{"spec": {"driver": "gpu.nvidia.com", "pool": {"name": "n", "generation": 1}, "devices": [
                  {"name": "gpu-1-mig-1g10gb-19-6", "attributes": {"type": {"string": "mig"},
                     "parentUUID": {"string": "GPU-b"}, "profile": {"string": "1g.10gb"}}},
                  {"name": "gpu-1-mig-9-4-4", "attributes": {"type": {"string": "mig"},
                     "parentUUID": {"string": "GPU-b"}, "profile": {"string": "3g.40gb"}}},
                  {"name": "mig-device-7", "attributes": {"type": {"string": "mig"},
                     "parentUUID": {"string": "GPU-b"}}},
                  {"name": "gpu-2", "attributes": {"type": {"string": "gpu"}, "uuid": {"string": "GPU-c"}}}
                ]}}]}""";

        Map<String, MigDevice> devices = DraDevices.migDevices(items(slices));

        assertThat(devices.values()).extracting(MigDevice::name, MigDevice::placementStart).containsExactlyInAnyOrder(
                tuple("gpu-1-mig-1g10gb-19-6", 6),
                tuple("gpu-1-mig-9-4-4", 4));
    }

    @Test
    void shouldLeaveOutADeviceWhosePlacementIsNoNumberItCanHold() throws IOException {
        // Hand-written: digit runs past any int, in a capacity's name and in the device's own
        String slices = """
                {"items": [{"spec": {"driver": "gpu.nvidia.com", "pool": {"name": "n", "generation": 1}, "devices": [
                  {"name": "gpu-1-mig-1g10gb-19-99999999999", "attributes": {"type": {"string": "mig"},
                     "parentUUID": {"string": "GPU-b"}, "profile": {"string": "1g.10gb"}},
                   "capacity": {"memorySlice99999999999": {"value": "1"}}},
                  {"name": "gpu-1-mig-1g10gb-19-3", "attributes": {"type": {"string": "mig"},
                     "parentUUID": {"string": "GPU-b"}, "profile": {"string": "1g.10gb"}},
                   "capacity": {"memorySlice99999999999": {"value": "1"}, "memorySlice3": {"value": "1"}}}
                ]}}]}""";

        Map<String, MigDevice> devices = DraDevices.migDevices(items(slices));

        assertThat(devices.values()).extracting(MigDevice::name, MigDevice::placementStart)
                .containsExactly(tuple("gpu-1-mig-1g10gb-19-3", 3));
    }

    private static List<JsonNode> items(String list) throws IOException {
        List<JsonNode> items = new ArrayList<>();
        JSON.readTree(list).path("items").forEach(items::add);
        return items;
    }
}
