package io.gpuledger.streams.cost;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuledger.model.Mean;
import io.gpuledger.model.Reading;
import io.gpuledger.model.UsageTotals;
import io.gpuledger.model.UsageTotals.Sum;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import org.junit.jupiter.api.Test;

class UsageCodecTest {

    private static final UsageTotals TOTALS = UsageTotals.builder().samples(12).sum(Sum.GPU_SECONDS, 120)
            .sum(Sum.UNPRICED_SECONDS, 10).sum(Sum.STALE_PRICED_SECONDS, 45).sum(Sum.COST, 1.25)
            .sum(Sum.IDLE_SECONDS, 30).sum(Sum.IDLE_COST, 0.3).sum(Sum.UNMONITORED_SECONDS, 5)
            .sum(Sum.ENERGY_KWH, 0.02).sum(Sum.NVLINK_BYTES, 4e9).sum(Sum.UNMONITORED_COST, 0.1333)
            .mean(Reading.SM_ACTIVE, new Mean(96, 120)).mean(Reading.SM_OCCUPANCY, new Mean(60, 120))
            .mean(Reading.POWER_WATTS, new Mean(36_000, 120)).build();

    @Test
    void shouldReadBackEveryFigure() {
        UsageTotals read = UsageCodec.TOTALS.fromBytes(UsageCodec.TOTALS.toBytes(TOTALS));

        assertThat(read).isEqualTo(TOTALS);
        assertThat(read.stalePricedSeconds()).isEqualTo(45.0);
        assertThat(read.unmonitoredCost()).isEqualTo(0.1333);
        assertThat(read.mean(Reading.POWER_WATTS).value()).isEqualTo(300.0);
    }

    @Test
    void shouldReadTotalsWrittenWithFewerFiguresAsHavingNoneOfTheRest() throws IOException {
        // Given totals written when there were two sums and one mean, followed by what comes next in a stored value
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeLong(12);
        out.writeByte(2);
        out.writeDouble(120);
        out.writeDouble(10);
        out.writeByte(1);
        out.writeDouble(96);
        out.writeDouble(120);
        out.writeInt(7);

        // When they are read
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes.toByteArray()));
        UsageTotals read = UsageCodec.TOTALS.read(in);

        // Then the figures they had are read, the others are 0, and what follows them is read in its place
        assertThat(read).isEqualTo(UsageTotals.builder().samples(12).sum(Sum.GPU_SECONDS, 120)
                .sum(Sum.UNPRICED_SECONDS, 10).mean(Reading.SM_ACTIVE, new Mean(96, 120)).build());
        assertThat(in.readInt()).isEqualTo(7);
    }

    @Test
    void shouldSkipFiguresALaterReleaseAdded() throws IOException {
        // Given these totals as a release with one more sum and one more mean would write them
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeLong(TOTALS.samples());
        out.writeByte(Sum.values().length + 1);
        for (Sum sum : Sum.values()) {
            out.writeDouble(TOTALS.sum(sum));
        }
        out.writeDouble(99);
        out.writeByte(Reading.KEPT.size() + 1);
        for (Reading reading : Reading.KEPT) {
            out.writeDouble(TOTALS.mean(reading).weightedSum());
            out.writeDouble(TOTALS.mean(reading).seconds());
        }
        out.writeDouble(5);
        out.writeDouble(6);
        out.writeInt(7);

        // When they are read
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes.toByteArray()));
        UsageTotals read = UsageCodec.TOTALS.read(in);

        // Then the figures this release knows are read, and the stream is left after the totals
        assertThat(read).isEqualTo(TOTALS);
        assertThat(in.readInt()).isEqualTo(7);
    }

    @Test
    void shouldReadBackEmptyTotals() {
        UsageTotals read = UsageCodec.TOTALS.fromBytes(UsageCodec.TOTALS.toBytes(UsageTotals.ZERO));

        assertThat(read).isEqualTo(UsageTotals.ZERO);
    }
}
