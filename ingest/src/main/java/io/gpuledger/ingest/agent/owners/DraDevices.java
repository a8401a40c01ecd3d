package io.gpuledger.ingest.agent.owners;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which pods hold each GPU of a node by Kubernetes Dynamic Resource Allocation ({@code resource.k8s.io/v1}), from
 * the node's ResourceSlices and the cluster's ResourceClaims, as the API server lists them:
 * <ul>
 *   <li>a slice ({@code spec.driver}, {@code spec.pool.name}, {@code spec.devices[]}) names each device of the
 *       node and its attributes; the device's GPU UUID is its {@code uuid} attribute ({@code {"string": ...}}, as
 *       NVIDIA's driver {@code gpu.nvidia.com} publishes it; {@code <driver>/uuid} is the same name, qualified);</li>
 *   <li>a claim's {@code status.allocation.devices.results[]} names the devices it was given by
 *       {@code driver}, {@code pool} and {@code device}, and its {@code status.reservedFor[]} the pods that may use
 *       them ({@code resource: pods}, {@code name}, {@code uid}; the claim's namespace is theirs).</li>
 * </ul>
 * A device given with {@code adminAccess} (a monitor's view of a device others hold) is held by no one for it.
 * Only devices of this node's slices are kept; claims of devices elsewhere are passed over. Of a pool's slices,
 * only those of its highest {@code generation} are read, as the API asks of consumers: the others are being
 * replaced by the driver.
 */
final class DraDevices {

    /** A pod that holds a device through a claim. */
    record Pod(String uid, String name, String namespace) {
    }

    private DraDevices() {
    }

    /**
     * The pods holding each GPU, by its UUID, for the node's devices ({@link #gpus}) and the items of a claim list.
     */
    static Map<String, List<Pod>> holders(Map<String, String> uuidByDevice, List<JsonNode> claims) {
        Map<String, Set<Pod>> holders = new LinkedHashMap<>();
        for (JsonNode claim : claims) {
            String namespace = claim.path("metadata").path("namespace").asText(null);
            List<Pod> pods = new ArrayList<>();
            for (JsonNode consumer : claim.path("status").path("reservedFor")) {
                boolean pod = consumer.path("resource").asText("").equals("pods")
                        && consumer.path("apiGroup").asText("").isEmpty();
                String uid = consumer.path("uid").asText("");
                String name = consumer.path("name").asText("");
                if (pod && !uid.isEmpty() && !name.isEmpty()) {
                    pods.add(new Pod(uid, name, namespace));
                }
            }
            for (JsonNode result : claim.path("status").path("allocation").path("devices").path("results")) {
                String uuid = uuidByDevice.get(key(result.path("driver").asText(""), result.path("pool").asText(""),
                        result.path("device").asText("")));
                if (uuid != null && !result.path("adminAccess").asBoolean(false)) {
                    holders.computeIfAbsent(uuid, k -> new LinkedHashSet<>()).addAll(pods);
                }
            }
        }
        Map<String, List<Pod>> byGpu = new LinkedHashMap<>();
        holders.forEach((uuid, pods) -> byGpu.put(uuid, List.copyOf(pods)));
        return byGpu;
    }

    /**
     * The GPU UUID of each device of the items of a slice list, by driver, pool and device name; empty where none
     * names one.
     */
    static Map<String, String> gpus(List<JsonNode> slices) {
        Map<String, Long> generations = new HashMap<>();
        for (JsonNode slice : slices) {
            generations.merge(pool(slice), slice.path("spec").path("pool").path("generation").asLong(0), Math::max);
        }
        Map<String, String> uuidByDevice = new HashMap<>();
        for (JsonNode slice : slices) {
            JsonNode spec = slice.path("spec");
            String driver = spec.path("driver").asText("");
            String pool = spec.path("pool").path("name").asText("");
            if (spec.path("pool").path("generation").asLong(0) < generations.get(pool(slice))) {
                // a slice the driver has not yet replaced with its pool's new generation: out of date
                continue;
            }
            for (JsonNode device : spec.path("devices")) {
                String uuid = uuid(device.path("attributes"), driver);
                if (uuid != null) {
                    uuidByDevice.put(key(driver, pool, device.path("name").asText("")), uuid);
                }
            }
        }
        return uuidByDevice;
    }

    private static String uuid(JsonNode attributes, String driver) {
        JsonNode attribute = attributes.path("uuid");
        if (attribute.isMissingNode()) {
            attribute = attributes.path(driver + "/uuid");
        }
        String uuid = attribute.path("string").asText("");
        return uuid.startsWith("GPU-") ? uuid : null;
    }

    private static String pool(JsonNode slice) {
        JsonNode spec = slice.path("spec");
        return key(spec.path("driver").asText(""), spec.path("pool").path("name").asText(""), "");
    }

    private static String key(String driver, String pool, String device) {
        return driver + "\n" + pool + "\n" + device;
    }
}
