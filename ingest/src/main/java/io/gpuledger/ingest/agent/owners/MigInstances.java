package io.gpuledger.ingest.agent.owners;

import io.gpuledger.ingest.agent.collect.NvidiaSmiGpus;
import io.gpuledger.ingest.agent.collect.ShellCommand;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The GPU instances (MIG slices) of this node's GPUs, as nvidia-smi lists them: {@code nvidia-smi mig -lgi} gives
 * each one's GPU index, profile, instance id and memory placement, its GPU list ({@link NvidiaSmiGpus}) each GPU's
 * UUID.
 * A DRA MIG device names its parent GPU's UUID and its placement, but no instance id; the agent samples a slice as
 * {@code <GPU UUID>/mig/<instance id>} (dcgm-exporter's {@code GPU_I_ID}). On one GPU no two instances start at the
 * same memory slice, so the parent and the placement's start name one instance.
 */
public final class MigInstances {

    /** Runs nvidia-smi with the given arguments and returns what it printed. */
    @FunctionalInterface
    public interface Runner {
        String run(String arguments) throws IOException;
    }

    static final String LIST = "mig -lgi";

    /** A row of the table: {@code |   0  MIG 1g.5gb       19        7          0:1     |}. */
    private static final Pattern ROW = Pattern.compile(
            "^\\|\\s*(\\d{1,9})\\s+MIG\\s+(\\S+)\\s+(\\d{1,9})\\s+(\\d{1,9})\\s+(\\d{1,9}):(\\d{1,9})\\s*\\|\\s*$");

    /** One GPU instance as {@code nvidia-smi mig -lgi} lists it. */
    record Instance(int gpuIndex, String profile, int profileId, int id, int placementStart, int placementSize) {
    }

    /** A GPU instance as the agent samples it: {@code <GPU UUID>/mig/<instance id>}, of its profile. */
    record Slice(String id, String profile) {
    }

    private final Runner runner;

    public MigInstances(Runner runner) {
        this.runner = runner;
    }

    /** Runs {@code program ARGUMENTS} through {@code /bin/sh -c}, at most {@code timeout} each time. */
    public static MigInstances of(String program, Duration timeout) {
        return new MigInstances(arguments -> {
            String command = program + " " + arguments;
            ShellCommand.Output output = ShellCommand.outputOf(command, timeout);
            // The instances it lists count whatever its status: it may fail for one GPU and list the others'.
            if (output.exitCode() == 0 || arguments.equals(LIST) && !parse(output.stdout()).isEmpty()) {
                return output.stdout();
            }
            throw ShellCommand.failed(command, output);
        });
    }

    /**
     * The slice of each GPU instance of the node, {@code <GPU UUID>/mig/<instance id>}, by
     * {@link #placementKey its GPU's UUID and the start of its placement}.
     *
     * @throws IOException when nvidia-smi cannot be run or fails
     */
    Map<String, Slice> slicesByPlacement() throws IOException {
        // A GPU line it cannot read names no GPU: the devices on that GPU match no instance, and are said so.
        return slicesByPlacement(parse(runner.run(LIST)),
                NvidiaSmiGpus.parse(runner.run(NvidiaSmiGpus.QUERY)).uuidsByIndex());
    }

    static String placementKey(String gpuUuid, int placementStart) {
        return gpuUuid + "@" + placementStart;
    }

    /** The instances of {@code nvidia-smi mig -lgi}'s table; its frame, headers and any message are passed over. */
    static List<Instance> parse(String output) {
        List<Instance> instances = new ArrayList<>();
        for (String line : output.split("\r?\n")) {
            Matcher row = ROW.matcher(line);
            if (row.matches()) {
                instances.add(new Instance(Integer.parseInt(row.group(1)), row.group(2), Integer.parseInt(row.group(3)),
                        Integer.parseInt(row.group(4)), Integer.parseInt(row.group(5)),
                        Integer.parseInt(row.group(6))));
            }
        }
        return instances;
    }

    static Map<String, Slice> slicesByPlacement(List<Instance> instances, Map<Integer, String> uuidsByIndex) {
        Map<String, Slice> slices = new HashMap<>();
        for (Instance instance : instances) {
            String uuid = uuidsByIndex.get(instance.gpuIndex());
            if (uuid != null) {
                slices.put(placementKey(uuid, instance.placementStart()),
                        new Slice(uuid + "/mig/" + instance.id(), instance.profile()));
            }
        }
        return slices;
    }
}
