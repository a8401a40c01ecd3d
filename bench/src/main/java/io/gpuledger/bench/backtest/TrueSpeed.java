package io.gpuledger.bench.backtest;

import io.gpuledger.model.WorkloadClass;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;

/**
 * How fast each GPU model really runs each class of work in the backtest's world, relative to one
 * model of the class: the ground truth that the rules, with their own published figures, try to
 * guess. Deliberately not the rules' table (published benchmarks and datasheet TFLOPS): these are
 * rough field ratios of the world's own, and each run draws every figure within ±12% of them, as
 * one workload differs from another. A backtest against the rules' own figures would only check
 * their arithmetic.
 */
final class TrueSpeed {

    private final Map<WorkloadClass, Map<String, Double>> speeds = new HashMap<>();

    TrueSpeed with(WorkloadClass workloadClass, String gpuModel, double relativeSpeed) {
        speeds.computeIfAbsent(workloadClass, key -> new HashMap<>()).put(gpuModel, relativeSpeed);
        return this;
    }

    /** How many times as fast {@code to} runs work of the class as {@code from}. */
    double ratio(WorkloadClass workloadClass, String from, String to) {
        return speed(workloadClass, to) / speed(workloadClass, from);
    }

    private double speed(WorkloadClass workloadClass, String gpuModel) {
        Double speed = speeds.getOrDefault(workloadClass, Map.of()).get(gpuModel);
        if (speed == null) {
            throw new IllegalArgumentException("the backtest has no speed of " + gpuModel + " for " + workloadClass);
        }
        return speed;
    }

    /** The same figures, each drawn within ±{@code spread} of its own. */
    TrueSpeed jittered(Random random, double spread) {
        TrueSpeed drawn = new TrueSpeed();
        speeds.forEach((workloadClass, models) -> models.forEach((model, speed) -> drawn.with(workloadClass, model,
                speed * (1 + spread * (2 * random.nextDouble() - 1)))));
        return drawn;
    }

    /**
     * Training about 2x from A100 to H100 (not the 3.2x of peak TFLOPS), an L4 at 0.8 of a V100 (its
     * datasheet says 0.97), INT8 serving about 1.3x from V100 to T4; a little off the rules' published
     * figures, as any real fleet would be.
     */
    static TrueSpeed seed() {
        return new TrueSpeed()
                .with(WorkloadClass.TRAINING, "A100-40GB", 1.0).with(WorkloadClass.TRAINING, "A100-80GB", 1.05)
                .with(WorkloadClass.TRAINING, "H100-80GB", 2.0).with(WorkloadClass.TRAINING, "V100-16GB", 0.45)
                .with(WorkloadClass.TRAINING, "T4-16GB", 0.15).with(WorkloadClass.TRAINING, "A10G-24GB", 0.3)
                .with(WorkloadClass.TRAINING, "L4-24GB", 0.36)
                .with(WorkloadClass.INFERENCE, "V100-16GB", 1.0).with(WorkloadClass.INFERENCE, "T4-16GB", 1.3)
                .with(WorkloadClass.INFERENCE, "A10G-24GB", 2.5).with(WorkloadClass.INFERENCE, "L4-24GB", 2.2)
                .with(WorkloadClass.INFERENCE, "A100-40GB", 6.0).with(WorkloadClass.INFERENCE, "A100-80GB", 6.2)
                .with(WorkloadClass.INFERENCE, "H100-80GB", 13.0);
    }
}
