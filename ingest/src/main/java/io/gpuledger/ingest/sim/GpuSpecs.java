package io.gpuledger.ingest.sim;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Rough public figures of the GPU models in the catalog, so that simulated power, memory,
 * throughput and collective bandwidth sit where real ones would. Unknown models get middling values.
 */
final class GpuSpecs {

    private static final Pattern MEMORY_GB = Pattern.compile("(\\d+)\\s*GB");
    private static final double GIB = 1024.0 * 1024 * 1024;

    private GpuSpecs() {
    }

    static double maxPowerWatts(String gpuModel) {
        String model = normalised(gpuModel);
        if (model.startsWith("H100") || model.startsWith("H200")) {
            return 700;
        }
        if (model.startsWith("A100")) {
            return 400;
        }
        if (model.startsWith("A10")) {
            return 300;
        }
        if (model.startsWith("T4")) {
            return 70;
        }
        return 300;
    }

    /** Memory from the model name ({@code A100-80GB}); 16 GB when the name does not say. */
    static double memoryBytes(String gpuModel) {
        Matcher matcher = MEMORY_GB.matcher(normalised(gpuModel));
        return (matcher.find() ? Integer.parseInt(matcher.group(1)) : 16) * GIB;
    }

    /**
     * Training and inference speed relative to an A100 (dense FP16/BF16 work): what one GPU-second
     * of this model achieves in A100-seconds.
     */
    static double relativeSpeed(String gpuModel) {
        String model = normalised(gpuModel);
        if (model.startsWith("H200")) {
            return 2.8;
        }
        if (model.startsWith("H100")) {
            return 2.5;
        }
        if (model.startsWith("A100")) {
            return model.contains("80") ? 1.1 : 1.0;
        }
        if (model.startsWith("A10")) {
            return 0.35;
        }
        if (model.startsWith("T4")) {
            return 0.2;
        }
        return 0.5;
    }

    /** All-reduce bus bandwidth inside one node (NVLink where the model has it, PCIe otherwise), bytes/s. */
    static double nodeBusBandwidth(String gpuModel) {
        String model = normalised(gpuModel);
        if (model.startsWith("H100") || model.startsWith("H200")) {
            return 450e9;
        }
        if (model.startsWith("A100")) {
            return 230e9;
        }
        return 12e9;
    }

    /**
     * All-reduce bus bandwidth across nodes, bounded by the instance's network: 3200 Gbps on the
     * H100/H200 instances, 400 Gbps on the A100 ones, 100 Gbps elsewhere.
     */
    static double networkBusBandwidth(String gpuModel) {
        String model = normalised(gpuModel);
        if (model.startsWith("H100") || model.startsWith("H200")) {
            return 400e9;
        }
        if (model.startsWith("A100")) {
            return 50e9;
        }
        return 12.5e9;
    }

    private static String normalised(String gpuModel) {
        return gpuModel == null ? "" : gpuModel.toUpperCase(Locale.ROOT).replace("NVIDIA ", "");
    }
}
