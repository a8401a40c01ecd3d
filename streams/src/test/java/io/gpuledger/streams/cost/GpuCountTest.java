package io.gpuledger.streams.cost;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuledger.model.UsageRollup.Dimension;
import io.gpuledger.model.UsageTotals;
import io.gpuledger.model.WorkTotals;
import io.gpuledger.streams.state.UnknownFormatException;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/** Roll-up partials and a GPU's own views keep how much GPU their GPUs are. */
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
    void shouldRefuseAPartialWrittenWithoutAVersionByte() throws IOException {
        // Given a partial of 3 GPUs as an untagged build before the first release wrote it (no version byte)
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeByte(Dimension.POOL.ordinal());
        out.writeUTF("aws|us-east-1|p4d.24xlarge|on-demand");
        out.writeLong(60_000);
        out.writeUTF("USD");
        out.writeLong(3);

        // When this release reads it, then it is refused rather than misread
        assertThatThrownBy(() -> RollupPartial.CODEC.fromBytes(bytes.toByteArray()))
                .isInstanceOf(UnknownFormatException.class).hasMessageContaining("no format version byte");
    }

    @Test
    void shouldKeepTheShareOfASlicesOwnViewsAndTheMinutesOfAWholeGpu() {
        // Given the views of a 1/7 slice with one minute, and of a whole GPU with two
        GpuRecent slice = new GpuRecent();
        slice.addMinute(0, UsageTotals.ZERO, RollupWindows.ROLLING_MINUTES);
        slice.gpuFraction = 1.0 / 7;
        GpuRecent whole = new GpuRecent();
        whole.addMinute(0, UsageTotals.ZERO, RollupWindows.ROLLING_MINUTES);
        whole.addMinute(60_000, UsageTotals.ZERO, RollupWindows.ROLLING_MINUTES);

        // When they are read back
        GpuRecent readSlice = GpuRecent.CODEC.fromBytes(GpuRecent.CODEC.toBytes(slice));
        GpuRecent readWhole = GpuRecent.CODEC.fromBytes(GpuRecent.CODEC.toBytes(whole));

        // Then the slice is still a seventh, with its minute, and the whole GPU one GPU with both
        assertThat(readSlice.gpuFraction).isEqualTo(1.0 / 7);
        assertThat(readSlice.minutes).containsOnlyKeys(0L);
        assertThat(readWhole.gpuFraction).isEqualTo(1.0);
        assertThat(readWhole.minutes).containsOnlyKeys(0L, 60_000L);
    }
}
