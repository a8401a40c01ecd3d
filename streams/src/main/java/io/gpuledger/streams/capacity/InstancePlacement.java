package io.gpuledger.streams.capacity;

import io.gpuledger.model.PlacedGpu;
import io.gpuledger.streams.state.Codec;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The GPUs last seen on one instance, each as its latest usage window shows it. Lives in the
 * stage's placement store (and its changelog) only.
 */
record InstancePlacement(List<PlacedGpu> gpus) {

    static final InstancePlacement NONE = new InstancePlacement(List.of());

    static final Codec<InstancePlacement> CODEC = new Codec<>() {
        @Override
        public int version(InstancePlacement placement) {
            int version = 1;
            for (PlacedGpu gpu : placement.gpus) {
                version = Math.max(version, GpuAt.GpuForm.versionOf(gpu));
            }
            return version;
        }

        @Override
        public int readsUpTo() {
            return GpuAt.GpuForm.WITH_SHARES;
        }

        @Override
        public void write(InstancePlacement placement, DataOutput out) throws IOException {
            int version = version(placement);
            out.writeInt(placement.gpus.size());
            for (PlacedGpu gpu : placement.gpus) {
                GpuAt.GpuForm.write(gpu, out, version);
            }
        }

        @Override
        public InstancePlacement read(DataInput in) throws IOException {
            return read(in, 1);
        }

        @Override
        public InstancePlacement read(DataInput in, int version) throws IOException {
            List<PlacedGpu> gpus = new ArrayList<>();
            for (int count = in.readInt(); count > 0; count--) {
                gpus.add(GpuAt.GpuForm.read(in, version));
            }
            return new InstancePlacement(gpus);
        }
    };

    InstancePlacement {
        gpus = List.copyOf(gpus);
    }

    /**
     * This placement after the change; null once no GPU is left, so that an instance that is gone
     * leaves nothing behind in the store.
     */
    InstancePlacement apply(PlacementChange change) {
        List<PlacedGpu> after = new ArrayList<>(gpus.size() + 1);
        for (PlacedGpu gpu : gpus) {
            if (!gpu.gpuUuid().equals(change.gpuUuid())) {
                after.add(gpu);
            }
        }
        if (change.placed() != null) {
            after.add(change.placed());
            after.sort(Comparator.comparingInt(PlacedGpu::gpuIndex).thenComparing(PlacedGpu::gpuUuid));
        }
        return after.isEmpty() ? null : new InstancePlacement(after);
    }

    /** The GPUs whose latest window ended no more than {@code maxAge} before {@code at}. */
    List<PlacedGpu> recentAt(Instant at, Duration maxAge) {
        Instant oldest = at.minus(maxAge);
        return gpus.stream().filter(gpu -> !gpu.lastWindowEnd().isBefore(oldest)).toList();
    }

    /** End of the newest window of any GPU held, recent or not. */
    Instant updatedAt() {
        return gpus.stream().map(PlacedGpu::lastWindowEnd).max(Comparator.naturalOrder()).orElse(null);
    }
}
