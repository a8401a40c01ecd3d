package io.gpuledger.streams.cost;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuledger.model.Mean;
import io.gpuledger.model.UsageTotals;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import org.junit.jupiter.api.Test;

class UsageCodecTest {

    private static final UsageTotals TOTALS = new UsageTotals(12, 120, 10, 45, 1.25, 30, 0.3, 5,
            new Mean(96, 120), new Mean(60, 120), Mean.NONE, Mean.NONE, new Mean(36_000, 120), 0.02, 4e9, 0);

    @Test
    void shouldReadBackTotalsWithTheirStalePricedSeconds() {
        UsageTotals read = UsageCodec.TOTALS.fromBytes(UsageCodec.TOTALS.toBytes(TOTALS));

        assertThat(read).isEqualTo(TOTALS);
        assertThat(read.stalePricedSeconds()).isEqualTo(45.0);
    }

    @Test
    void shouldReadTotalsWrittenBeforeStalePricedSecondsExistedAsHavingNone() throws IOException {
        // Given totals as the previous release wrote them, followed by what comes next in a stored value
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeLong(12);
        for (double value : new double[] {120, 10, 1.25, 30, 0.3, 5, 96, 120, 60, 120, 0, 0, 0, 0, 36_000, 120, 0.02,
                4e9}) {
            out.writeDouble(value);
        }
        out.writeInt(7);

        // When they are read by this release
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes.toByteArray()));
        UsageTotals read = UsageCodec.TOTALS.read(in);

        // Then they are the same totals, none of their time stale-priced, and what follows them is read in its place
        assertThat(read).isEqualTo(new UsageTotals(12, 120, 10, 0, 1.25, 30, 0.3, 5, new Mean(96, 120),
                new Mean(60, 120), Mean.NONE, Mean.NONE, new Mean(36_000, 120), 0.02, 4e9, 0));
        assertThat(in.readInt()).isEqualTo(7);
    }

    @Test
    void shouldReadBackTotalsWithTheirUnmonitoredCost() {
        UsageTotals totals = TOTALS.plusUnmonitored(60, 0.1333);

        assertThat(UsageCodec.TOTALS.fromBytes(UsageCodec.TOTALS.toBytes(totals)).unmonitoredCost()).isEqualTo(0.1333);
    }

    @Test
    void shouldReadTotalsWrittenBeforeUnmonitoredCostExistedAsHavingNone() throws IOException {
        // Given totals as the release before wrote them: count complemented, stale-priced seconds last
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeLong(~12L);
        for (double value : new double[] {120, 10, 1.25, 30, 0.3, 5, 96, 120, 60, 120, 0, 0, 0, 0, 36_000, 120, 0.02,
                4e9, 45}) {
            out.writeDouble(value);
        }
        out.writeInt(7);

        // When they are read by this release
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes.toByteArray()));
        UsageTotals read = UsageCodec.TOTALS.read(in);

        // Then they are the same totals, with no unmonitored cost, and what follows them is read in its place
        assertThat(read).isEqualTo(TOTALS);
        assertThat(in.readInt()).isEqualTo(7);
    }

    @Test
    void shouldTellANewEmptyTotalFromAnOldOne() {
        UsageTotals read = UsageCodec.TOTALS.fromBytes(UsageCodec.TOTALS.toBytes(UsageTotals.ZERO));

        assertThat(read).isEqualTo(UsageTotals.ZERO);
    }
}
