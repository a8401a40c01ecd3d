package io.gpuledger.streams.cost;

import io.gpuledger.model.GpuUsage;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Offer;
import io.gpuledger.model.Placement;
import io.gpuledger.model.TelemetrySample;
import io.gpuledger.model.UsageRollup;
import io.gpuledger.model.UsageRollup.Dimension;
import io.gpuledger.model.UsageTotals;
import io.gpuledger.streams.state.Codec;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * Where a GPU ran and for whom, as its latest sample says: what a window carries besides its
 * totals, and the keys of the job, team and pool it counts in.
 */
final class GpuIdentity {

    static final Codec<GpuIdentity> CODEC = new Codec<>() {
        @Override
        public void write(GpuIdentity id, DataOutput out) throws IOException {
            out.writeInt(id.gpuIndex);
            Codec.writeNullable(id.gpuModel, out);
            Placement placement = id.placement;
            out.writeUTF(placement.host());
            out.writeUTF(placement.instanceId());
            out.writeUTF(placement.instanceType());
            out.writeUTF(placement.provider());
            out.writeUTF(placement.region());
            out.writeUTF(placement.lifecycle().name());
            out.writeUTF(id.jobId);
            Codec.writeNullable(id.team, out);
            out.writeDouble(id.fraction);
        }

        @Override
        public GpuIdentity read(DataInput in) throws IOException {
            int gpuIndex = in.readInt();
            String gpuModel = Codec.readNullable(in);
            Placement placement = new Placement(in.readUTF(), in.readUTF(), in.readUTF(), in.readUTF(), in.readUTF(),
                    Lifecycle.valueOf(in.readUTF()));
            return new GpuIdentity(gpuIndex, gpuModel, placement, in.readUTF(), Codec.readNullable(in),
                    in.readDouble());
        }
    };

    final int gpuIndex;
    final String gpuModel;
    final Placement placement;
    final String jobId;
    final String team;
    /** Share of the physical GPU (below 1 for a MIG slice). */
    final double fraction;
    /** What the GPU's instance is bought as: the price it is charged comes from this. */
    final Offer offer;
    /** {@code dimension|id} of the job, team and pool, in {@link Dimension#GROUPS} order. */
    final String[] rollupKeys;
    /** Whether its job is {@link TelemetrySample#SHARED_JOB}: asked of every sample, so decided once. */
    private final boolean shared;

    private GpuIdentity(int gpuIndex, String gpuModel, Placement placement, String jobId, String team,
            double fraction) {
        this.gpuIndex = gpuIndex;
        this.gpuModel = gpuModel;
        this.placement = placement;
        this.jobId = jobId;
        this.team = team;
        this.fraction = fraction;
        this.offer = placement.offer();
        this.shared = TelemetrySample.SHARED_JOB.equals(jobId);
        this.rollupKeys = new String[Dimension.GROUPS.size()];
        for (Dimension dimension : Dimension.GROUPS) {
            rollupKeys[dimension.ordinal()] = UsageRollup.keyOf(dimension, idIn(dimension));
        }
    }

    static GpuIdentity of(TelemetrySample sample) {
        return new GpuIdentity(sample.gpuIndex(), sample.gpuModel(), sample.placement(), sample.jobId(), sample.team(),
                sample.chargedFraction());
    }

    /** This identity if {@code sample} still says the same, else the sample's. */
    GpuIdentity following(TelemetrySample sample) {
        boolean same = gpuIndex == sample.gpuIndex() && placement.lifecycle() == sample.lifecycle()
                && fraction == sample.chargedFraction() && jobId.equals(sample.jobId())
                && placement.instanceId().equals(sample.instanceId()) && placement.host().equals(sample.host())
                && placement.instanceType().equals(sample.instanceType())
                && placement.region().equals(sample.region()) && placement.provider().equals(sample.provider())
                && Objects.equals(team, sample.team()) && Objects.equals(gpuModel, sample.gpuModel());
        return same ? this : of(sample);
    }

    /** The id of this GPU in {@code dimension}. */
    String idIn(Dimension dimension) {
        return UsageRollup.idOf(dimension, jobId, team, offer);
    }

    /**
     * The GPU's minute window starting at {@code windowStart}, with the jobs that shared it and their parts as
     * {@code window} holds them (null: a minute of no sample, none).
     */
    GpuUsage usage(String gpuUuid, long windowStart, String currency, UsageTotals totals, GpuState.Window window,
            boolean closed) {
        return GpuUsage.builder().gpu(gpuUuid, gpuIndex, gpuModel).placement(placement).job(jobId, team)
                .window(Instant.ofEpochMilli(windowStart), Instant.ofEpochMilli(windowStart + GpuState.MINUTE_MILLIS))
                .currency(currency).totals(totals).closed(closed).gpuFraction(fraction)
                .sharingJobs(window != null ? window.sharingJobs() : 0)
                .jobParts(window != null ? window.jobParts() : List.of()).build();
    }

    /** Whether the GPU's latest sample said it was shared: its time is charged to the jobs it lists, not to one. */
    boolean shared() {
        return shared;
    }

    /**
     * Whether what it is charged goes to its roll-up in {@code dimension}: every one but the job's for a shared
     * GPU, whose jobs (if any) its samples' allocations name, not its own {@code jobId}.
     */
    boolean charges(Dimension dimension) {
        return dimension != Dimension.JOB || !shared;
    }
}
