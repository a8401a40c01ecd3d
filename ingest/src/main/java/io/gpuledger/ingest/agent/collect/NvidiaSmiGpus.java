package io.gpuledger.ingest.agent.collect;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * This node's GPUs as {@code nvidia-smi --query-gpu=index,uuid,memory.total,mig.mode.current} lists them: each
 * one's index, UUID, memory and whether MIG splits it. Read by the per-process split (which GPU pmon's index is,
 * how much memory a GPU has) and by the DRA MIG mapping (which GPU a MIG instance's index is).
 */
public final class NvidiaSmiGpus {

    /** The arguments that list them, one GPU a line, as {@link #parse} reads them. */
    public static final String QUERY =
            "--query-gpu=index,uuid,memory.total,mig.mode.current --format=csv,noheader,nounits";

    /** One GPU of the node; its memory is null where nvidia-smi gives none ({@code [N/A]}). */
    public record Gpu(int index, String uuid, Double memoryBytes, boolean mig) {
    }

    /** The GPUs by UUID, in the order listed, and what could not be read, a message for each such line. */
    public record Result(Map<String, Gpu> byUuid, List<String> errors) {

        /** Each GPU's UUID by its index. */
        public Map<Integer, String> uuidsByIndex() {
            Map<Integer, String> uuids = new HashMap<>();
            byUuid.values().forEach(gpu -> uuids.put(gpu.index(), gpu.uuid()));
            return uuids;
        }
    }

    private NvidiaSmiGpus() {
    }

    /**
     * The GPUs of {@link #QUERY}'s output; a line that is not one (a message, say) is passed over, and the
     * {@link Result#errors()} say it for a reader that reports them.
     */
    public static Result parse(String output) {
        Map<String, Gpu> gpus = new LinkedHashMap<>();
        List<String> errors = new ArrayList<>();
        for (String line : output.split("\r?\n")) {
            if (line.isBlank()) {
                continue;
            }
            String[] cells = line.split(",", -1);
            try {
                if (cells.length != 4) {
                    throw new IllegalArgumentException(cells.length + " values, not 4");
                }
                int index = Integer.parseInt(cells[0].strip());
                String uuid = cells[1].strip();
                String memory = cells[2].strip();
                Double bytes = memory.matches("[0-9]+(\\.[0-9]+)?") ? Double.parseDouble(memory) * 1024 * 1024 : null;
                gpus.put(uuid, new Gpu(index, uuid, bytes, cells[3].strip().equalsIgnoreCase("Enabled")));
            } catch (IllegalArgumentException e) {
                errors.add("nvidia-smi GPU list: '" + line.strip() + "' cannot be read (" + e.getMessage()
                        + "), skipped");
            }
        }
        return new Result(Collections.unmodifiableMap(gpus), List.copyOf(errors));
    }
}
