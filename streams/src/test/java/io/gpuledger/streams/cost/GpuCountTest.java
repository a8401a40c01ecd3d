package io.gpuledger.streams.cost;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuledger.model.UsageRollup.Dimension;
import io.gpuledger.model.UsageTotals;
import io.gpuledger.model.WorkTotals;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/** Roll-up partials and a GPU's own views keep how much GPU their GPUs are, and read older ones as whole GPUs. */
class GpuCountTest {

    @Test
    void shouldCarryHowMuchGpuAPartialsSlicesAre() {
        // Given a job's partial of seven 1/7 slices
        RollupPartial partial = new RollupPartial(Dimension.JOB, "job-mig", 60_000, "USD", 7, 7 * (1.0 / 7),
                UsageTotals.ZERO, WorkTotals.NONE);

        // When it crosses the repartition topic
        RollupPartial read = RollupPartial.CODEC.fromBytes(RollupPartial.CODEC.toBytes(partial));

        // Then it is still seven slices making one GPU
        assertThat(read).isEqualTo(partial);
    }

    @Test
    void shouldReadAPartialWrittenBeforeSharesWereKeptAsWholeGpus() throws IOException {
        // Given a partial of 3 GPUs as the previous release wrote it
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeByte(Dimension.POOL.ordinal());
        out.writeUTF("aws|us-east-1|p4d.24xlarge|on-demand");
        out.writeLong(60_000);
        out.writeUTF("USD");
        out.writeLong(3);
        UsageCodec.TOTALS.write(UsageTotals.ZERO, out);
        RollupPartial.WorkCodec.write(WorkTotals.NONE, out);

        // When this release reads it
        RollupPartial read = RollupPartial.CODEC.fromBytes(bytes.toByteArray());

        // Then its 3 GPUs are 3 whole GPUs
        assertThat(read.gpus()).isEqualTo(3);
        assertThat(read.gpuEquivalents()).isEqualTo(3.0);
        assertThat(read.currency()).isEqualTo("USD");
    }

    @Test
    void shouldKeepTheShareOfASlicesOwnViewsAndReadOlderViewsAsAWholeGpu() throws IOException {
        // Given the views of a 1/7 slice, and views as the previous release wrote them (no minutes)
        GpuRecent slice = new GpuRecent();
        slice.addMinute(0, UsageTotals.ZERO, RollupWindows.ROLLING_MINUTES);
        slice.gpuFraction = 1.0 / 7;
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeLong(GpuRecent.NONE);
        UsageCodec.TOTALS.write(UsageTotals.ZERO, out);
        out.writeByte(0);

        // When they are read back
        GpuRecent readSlice = GpuRecent.CODEC.fromBytes(GpuRecent.CODEC.toBytes(slice));
        GpuRecent readOld = GpuRecent.CODEC.fromBytes(bytes.toByteArray());

        // Then the slice is still a seventh, with its minute, and the older views are of a whole GPU
        assertThat(readSlice.gpuFraction).isEqualTo(1.0 / 7);
        assertThat(readSlice.minutes).containsOnlyKeys(0L);
        assertThat(readOld.gpuFraction).isEqualTo(1.0);
        assertThat(readOld.minutes).isEmpty();
    }
}
