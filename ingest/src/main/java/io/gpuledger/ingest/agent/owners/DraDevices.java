package io.gpuledger.ingest.agent.owners;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

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

    /** A device a claim was given (not for a monitor's admin access), by its key, and the pods it is reserved for. */
    record Allocation(String device, List<Pod> pods) {
    }

    /** The devices the claims of a claim list were given, each with the pods of its claim. */
    static List<Allocation> allocations(List<JsonNode> claims) {
        List<Allocation> allocations = new ArrayList<>();
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
            List<Pod> holding = List.copyOf(pods);
            for (JsonNode result : claim.path("status").path("allocation").path("devices").path("results")) {
                if (!result.path("adminAccess").asBoolean(false)) {
                    allocations.add(new Allocation(key(result.path("driver").asText(""),
                            result.path("pool").asText(""), result.path("device").asText("")), holding));
                }
            }
        }
        return allocations;
    }

    /** The pods holding each GPU, by its UUID, for the node's devices ({@link #gpus}) and the claims' allocations. */
    static Map<String, List<Pod>> holders(Map<String, String> uuidByDevice, List<Allocation> allocations) {
        Map<String, Set<Pod>> holders = new LinkedHashMap<>();
        for (Allocation allocation : allocations) {
            String uuid = uuidByDevice.get(allocation.device());
            if (uuid != null) {
                holders.computeIfAbsent(uuid, k -> new LinkedHashSet<>()).addAll(allocation.pods());
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
        Map<String, String> uuidByDevice = new HashMap<>();
        forEachDevice(slices, (driver, pool, device) -> {
            String uuid = uuid(device.path("attributes"), driver);
            if (uuid != null) {
                uuidByDevice.put(key(driver, pool, device.path("name").asText("")), uuid);
            }
        });
        return uuidByDevice;
    }

    /**
     * A MIG device of a slice ({@code type} {@code mig}): its parent GPU's UUID ({@code parentUUID}), its profile, and
     * the first memory slice of its placement, which NVIDIA's driver publishes as its capacities
     * {@code memorySlice<N>} (static MIG) and in its name, {@code gpu-<minor>-mig-<profile>-<profile id>-<start>}
     * (before release 25.12, {@code gpu-<minor>-mig-<profile id>-<start>-<size>}). It carries no GPU-instance id.
     */
    record MigDevice(String name, String parentUuid, String profile, int placementStart) {
    }

    private static final Pattern MIG_NAME = Pattern.compile("^gpu-\\d+-mig-(.+)-(\\d{1,9})-(\\d{1,9})$");
    private static final Pattern MEMORY_SLICE = Pattern.compile("^memorySlice(\\d{1,9})$");

    /** The MIG devices of the node's slices, by the key claims' results name them by; one of no placement is not. */
    static Map<String, MigDevice> migDevices(List<JsonNode> slices) {
        Map<String, MigDevice> migs = new HashMap<>();
        forEachDevice(slices, (driver, pool, device) -> {
            JsonNode attributes = device.path("attributes");
            String parent = attribute(attributes, driver, "parentUUID");
            if (!"mig".equals(attribute(attributes, driver, "type")) || parent == null || !parent.startsWith("GPU-")) {
                return;
            }
            String name = device.path("name").asText("");
            Integer start = placementStart(name, device.path("capacity"));
            if (start != null) {
                migs.put(key(driver, pool, name),
                        new MigDevice(name, parent, attribute(attributes, driver, "profile"), start));
            }
        });
        return migs;
    }

    private static Integer placementStart(String name, JsonNode capacity) {
        Integer lowest = null;
        for (Iterator<String> names = capacity.fieldNames(); names.hasNext(); ) {
            Matcher slice = MEMORY_SLICE.matcher(names.next());
            if (slice.matches()) {
                int index = Integer.parseInt(slice.group(1));
                lowest = lowest == null ? index : Math.min(lowest, index);
            }
        }
        if (lowest != null) {
            return lowest;
        }
        Matcher named = MIG_NAME.matcher(name);
        if (!named.matches()) {
            return null;
        }
        // A profile id where the profile's name stands: the older form, whose start comes before the size.
        return Integer.valueOf(named.group(1).matches("\\d+") ? named.group(2) : named.group(3));
    }

    /** A device of the node's slices, each pool's newest generation only. */
    @FunctionalInterface
    private interface DeviceVisitor {
        void visit(String driver, String pool, JsonNode device);
    }

    private static void forEachDevice(List<JsonNode> slices, DeviceVisitor visitor) {
        Map<String, Long> generations = new HashMap<>();
        for (JsonNode slice : slices) {
            generations.merge(pool(slice), slice.path("spec").path("pool").path("generation").asLong(0), Math::max);
        }
        for (JsonNode slice : slices) {
            JsonNode spec = slice.path("spec");
            if (spec.path("pool").path("generation").asLong(0) < generations.get(pool(slice))) {
                // a slice the driver has not yet replaced with its pool's new generation: out of date
                continue;
            }
            String driver = spec.path("driver").asText("");
            String pool = spec.path("pool").path("name").asText("");
            for (JsonNode device : spec.path("devices")) {
                visitor.visit(driver, pool, device);
            }
        }
    }

    /** A string attribute, by its name or the name qualified by the driver; null when absent. */
    private static String attribute(JsonNode attributes, String driver, String name) {
        JsonNode attribute = attributes.path(name);
        if (attribute.isMissingNode()) {
            attribute = attributes.path(driver + "/" + name);
        }
        String value = attribute.path("string").asText("");
        return value.isEmpty() ? null : value;
    }

    private static String uuid(JsonNode attributes, String driver) {
        String uuid = attribute(attributes, driver, "uuid");
        return uuid != null && uuid.startsWith("GPU-") ? uuid : null;
    }

    private static String pool(JsonNode slice) {
        JsonNode spec = slice.path("spec");
        return key(spec.path("driver").asText(""), spec.path("pool").path("name").asText(""), "");
    }

    private static String key(String driver, String pool, String device) {
        return driver + "\n" + pool + "\n" + device;
    }
}
