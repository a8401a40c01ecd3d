package io.gpuledger.streams.cost;

import io.gpuledger.model.GpuSampleReader;
import io.gpuledger.streams.price.PriceTable;
import java.util.HashMap;
import java.util.Map;

/**
 * What a task keeps of one GPU beside its stored {@link GpuState}: what makes its next sample
 * cheap to charge, and which of its open windows the task has not sent yet. Never stored: a task
 * that starts, or takes the GPU over from another instance, begins with none and sends every open
 * window again.
 */
final class GpuCache {

    /** Reads the GPU's samples, taking its identity from the last one when it is written alike. */
    final GpuSampleReader sampleReader = new GpuSampleReader();
    /** The price span the latest sample was charged in, and the identity it was looked up for. */
    PriceTable.InForce price;
    GpuIdentity priceFor;
    /** Where the parts of the GPU's latest shared sample went, while its samples name the same jobs and teams. */
    ShareTargets shareTargets;
    /** Listed among the GPUs with unsent windows in {@link WindowUpdates}. */
    boolean listedUnsent;
    /** What the task holds of each open window, by start (epoch millis). */
    private final Map<Long, WindowWork> windows = new HashMap<>(4);
    /** The window the latest sample went to: the next sample most often goes there too. */
    private long latestStart = GpuState.NONE;
    private WindowWork latest;

    /** What the task holds of one open window of the GPU. */
    static final class WindowWork {
        /** The stored window this is of, once a sample of this task went to it. */
        GpuState.Window stored;
        /** Changed since its last update was sent. */
        boolean unsent;
        /** The pending partials the window's samples add to, per dimension, while they are pending. */
        PendingPartial[] partials;
        /** Keys of the window's partials and the identity they were made for. */
        private String[] partialKeys;
        private GpuIdentity partialKeysOf;

        /** The keys of the partials the window's samples add to, per dimension, made once per identity. */
        String[] partialKeys(GpuIdentity identity, long start) {
            if (partialKeysOf != identity) {
                partials = null;
                partialKeys = new String[identity.rollupKeys.length];
                for (int i = 0; i < partialKeys.length; i++) {
                    partialKeys[i] = RollupPartial.partialKey(identity.rollupKeys[i], start);
                }
                partialKeysOf = identity;
            }
            return partialKeys;
        }
    }

    /** What the task holds of the window starting at {@code start}, new if it held nothing. */
    WindowWork window(long start) {
        if (latest != null && latestStart == start) {
            return latest;
        }
        WindowWork work = windows.computeIfAbsent(start, s -> new WindowWork());
        latestStart = start;
        latest = work;
        return work;
    }

    /** What the task holds of the window starting at {@code start}, or null. */
    WindowWork windowIfHeld(long start) {
        return latestStart == start ? latest : windows.get(start);
    }

    /** Forgets the window starting at {@code start}: it closed. */
    void forget(long start) {
        if (latestStart == start) {
            latest = null;
            latestStart = GpuState.NONE;
        }
        windows.remove(start);
    }
}
