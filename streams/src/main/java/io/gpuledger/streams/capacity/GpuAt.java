package io.gpuledger.streams.capacity;

import io.gpuledger.model.GpuUsage;
import io.gpuledger.model.JobShare;
import io.gpuledger.model.PlacedGpu;
import io.gpuledger.streams.state.Codec;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Where a GPU was last seen and what it did there, as the capacity stage keeps it per GPU.
 * Lives in a state store (and its changelog) only.
 */
record GpuAt(String instanceId, PlacedGpu gpu) {

    /** How far a sharing job's share may move before the placement is news. */
    private static final double SHARE_CHANGE = 0.01;

    static final Codec<GpuAt> CODEC = new Codec<>() {
        @Override
        public int version(GpuAt at) {
            return GpuForm.versionOf(at.gpu);
        }

        @Override
        public int readsUpTo() {
            return GpuForm.WITH_SHARES;
        }

        @Override
        public void write(GpuAt at, DataOutput out) throws IOException {
            out.writeUTF(at.instanceId);
            GpuForm.write(at.gpu, out, version(at));
        }

        @Override
        public GpuAt read(DataInput in) throws IOException {
            return read(in, 1);
        }

        @Override
        public GpuAt read(DataInput in, int version) throws IOException {
            return new GpuAt(in.readUTF(), GpuForm.read(in, version));
        }
    };

    /**
     * A {@link PlacedGpu} in binary, inside the values of the stage's stores and repartition topic. Version 1 is
     * what the first release wrote; version 2 adds the jobs sharing a GPU, and a value holding no shared GPU is
     * still written as version 1, which every release reads.
     */
    static final class GpuForm {

        static final int WITH_SHARES = 2;

        private GpuForm() {
        }

        /** The version a value holding {@code gpu} is written in, at least. */
        static int versionOf(PlacedGpu gpu) {
            return gpu == null || gpu.sharedBy().isEmpty() ? 1 : WITH_SHARES;
        }

        static void write(PlacedGpu gpu, DataOutput out, int version) throws IOException {
            out.writeUTF(gpu.gpuUuid());
            out.writeInt(gpu.gpuIndex());
            Codec.writeNullable(gpu.gpuModel(), out);
            out.writeUTF(gpu.jobId());
            out.writeDouble(gpu.costPerHour());
            Codec.writeNullable(gpu.currency(), out);
            out.writeLong(gpu.lastWindowEnd().toEpochMilli());
            if (version >= WITH_SHARES) {
                out.writeInt(gpu.sharedBy().size());
                for (JobShare share : gpu.sharedBy()) {
                    out.writeUTF(share.jobId());
                    out.writeDouble(share.share());
                }
            }
        }

        static PlacedGpu read(DataInput in, int version) throws IOException {
            String uuid = in.readUTF();
            int index = in.readInt();
            String model = Codec.readNullable(in);
            String jobId = in.readUTF();
            double costPerHour = in.readDouble();
            String currency = Codec.readNullable(in);
            Instant lastWindowEnd = Instant.ofEpochMilli(in.readLong());
            List<JobShare> shares = new ArrayList<>();
            if (version >= WITH_SHARES) {
                for (int count = in.readInt(); count > 0; count--) {
                    shares.add(new JobShare(in.readUTF(), in.readDouble()));
                }
            }
            return new PlacedGpu(uuid, index, model, jobId, costPerHour, currency, lastWindowEnd, shares);
        }
    }

    static GpuAt of(GpuUsage usage) {
        return new GpuAt(usage.placement().instanceId(), PlacedGpu.of(usage));
    }

    /**
     * Whether a notice would show the GPU the same way, but for how recent the picture is: the
     * same instance, job, model, index and currency, and the same cost per hour. A window's cost
     * per hour is a quotient of running sums, so it moves in its last digits with every sample at
     * an unchanged price: that is no news, and passing it on would rewrite the instance's
     * placement for nothing. A shared GPU's jobs must be the same too, their shares close.
     */
    boolean samePlacement(GpuAt other) {
        if (other == null || !instanceId.equals(other.instanceId)) {
            return false;
        }
        PlacedGpu mine = gpu;
        PlacedGpu theirs = other.gpu;
        return mine.gpuUuid().equals(theirs.gpuUuid()) && mine.gpuIndex() == theirs.gpuIndex()
                && Objects.equals(mine.gpuModel(), theirs.gpuModel()) && mine.jobId().equals(theirs.jobId())
                && Objects.equals(mine.currency(), theirs.currency())
                && sameJobs(mine.sharedBy(), theirs.sharedBy())
                && Math.abs(mine.costPerHour() - theirs.costPerHour())
                        <= 1e-9 * Math.max(1, Math.abs(mine.costPerHour()));
    }

    /**
     * Whether two lists of shares name the same jobs with shares within a percentage point of each other: the
     * shares of an open window move with every sample, and a notice needs no finer split.
     */
    private static boolean sameJobs(List<JobShare> mine, List<JobShare> theirs) {
        if (mine.size() != theirs.size()) {
            return false;
        }
        for (int i = 0; i < mine.size(); i++) {
            if (!mine.get(i).jobId().equals(theirs.get(i).jobId())
                    || Math.abs(mine.get(i).share() - theirs.get(i).share()) > SHARE_CHANGE) {
                return false;
            }
        }
        return true;
    }
}
