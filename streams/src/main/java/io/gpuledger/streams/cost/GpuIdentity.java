package io.gpuledger.streams.cost;

import io.gpuledger.model.GpuUsage;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Offer;
import io.gpuledger.model.TelemetrySample;
import io.gpuledger.model.UsageRollup;
import io.gpuledger.model.UsageRollup.Dimension;
import io.gpuledger.model.UsageTotals;
import io.gpuledger.streams.state.Codec;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.time.Instant;
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
            out.writeUTF(id.host);
            out.writeUTF(id.instanceId);
            out.writeUTF(id.instanceType);
            out.writeUTF(id.provider);
            out.writeUTF(id.region);
            out.writeUTF(id.lifecycle.name());
            out.writeUTF(id.jobId);
            Codec.writeNullable(id.team, out);
            out.writeDouble(id.fraction);
        }

        @Override
        public GpuIdentity read(DataInput in) throws IOException {
            return new GpuIdentity(in.readInt(), Codec.readNullable(in), in.readUTF(), in.readUTF(), in.readUTF(),
                    in.readUTF(), in.readUTF(), Lifecycle.valueOf(in.readUTF()), in.readUTF(), Codec.readNullable(in),
                    in.readDouble());
        }
    };

    final int gpuIndex;
    final String gpuModel;
    final String host;
    final String instanceId;
    final String instanceType;
    final String provider;
    final String region;
    final Lifecycle lifecycle;
    final String jobId;
    final String team;
    /** Share of the physical GPU (below 1 for a MIG slice). */
    final double fraction;
    /** What the GPU's instance is bought as: the price it is charged comes from this. */
    final Offer offer;
    /** {@code dimension|id} of the job, team and pool, in {@link Dimension#GROUPS} order. */
    final String[] rollupKeys;

    private GpuIdentity(int gpuIndex, String gpuModel, String host, String instanceId, String instanceType,
            String provider, String region, Lifecycle lifecycle, String jobId, String team, double fraction) {
        this.gpuIndex = gpuIndex;
        this.gpuModel = gpuModel;
        this.host = host;
        this.instanceId = instanceId;
        this.instanceType = instanceType;
        this.provider = provider;
        this.region = region;
        this.lifecycle = lifecycle;
        this.jobId = jobId;
        this.team = team;
        this.fraction = fraction;
        this.offer = new Offer(provider, region, instanceType, lifecycle);
        this.rollupKeys = new String[Dimension.GROUPS.size()];
        for (Dimension dimension : Dimension.GROUPS) {
            rollupKeys[dimension.ordinal()] = UsageRollup.keyOf(dimension, idIn(dimension));
        }
    }

    static GpuIdentity of(TelemetrySample sample) {
        return new GpuIdentity(sample.gpuIndex(), sample.gpuModel(), sample.host(), sample.instanceId(),
                sample.instanceType(), sample.provider(), sample.region(), sample.lifecycle(), sample.jobId(),
                sample.team(), sample.chargedFraction());
    }

    /** This identity if {@code sample} still says the same, else the sample's. */
    GpuIdentity following(TelemetrySample sample) {
        boolean same = gpuIndex == sample.gpuIndex() && lifecycle == sample.lifecycle()
                && fraction == sample.chargedFraction() && jobId.equals(sample.jobId())
                && instanceId.equals(sample.instanceId()) && host.equals(sample.host())
                && instanceType.equals(sample.instanceType()) && region.equals(sample.region())
                && provider.equals(sample.provider()) && Objects.equals(team, sample.team())
                && Objects.equals(gpuModel, sample.gpuModel());
        return same ? this : of(sample);
    }

    /** The id of this GPU in {@code dimension}. */
    String idIn(Dimension dimension) {
        return UsageRollup.idOf(dimension, jobId, team, offer);
    }

    GpuUsage usage(String gpuUuid, long windowStart, long windowEnd, String currency, UsageTotals totals,
            boolean closed) {
        return new GpuUsage(gpuUuid, gpuIndex, gpuModel, host, instanceId, instanceType, provider, region, lifecycle,
                jobId, team, Instant.ofEpochMilli(windowStart), Instant.ofEpochMilli(windowEnd), currency, totals,
                closed, fraction);
    }
}
