package io.gpuledger.streams.capacity;

import io.gpuledger.model.PlacedGpu;

/**
 * One GPU arriving on, updated on, or leaving an instance; keyed by that instance on the stage's
 * repartition topic. A departure is a record of its own rather than a tombstone, because the
 * aggregation skips null values.
 *
 * @param placed the GPU as it is now on the instance; null when it left
 */
record PlacementChange(String gpuUuid, PlacedGpu placed) {

    static PlacementChange placed(PlacedGpu gpu) {
        return new PlacementChange(gpu.gpuUuid(), gpu);
    }

    static PlacementChange left(String gpuUuid) {
        return new PlacementChange(gpuUuid, null);
    }
}
