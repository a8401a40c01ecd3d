package io.gpuledger.streams.cost;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuledger.model.UsageRollup.Dimension;
import io.gpuledger.model.UsageTotals;
import io.gpuledger.model.WorkTotals;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A roll-up's stored form: its identity and hours under its key, each minute under a key of its own. */
class RollupStateTest {

    private static final long NOON = 1_767_268_800_000L;
    private static final long MINUTE = 60_000;

    @Test
    void shouldStoreIdentityAndHoursUnderTheKeyAndLeaveTheMinutesToTheirOwnKeys() {
        // Given a job with two minutes and an hour
        RollupState state = new RollupState(Dimension.JOB, "train@eu|7", "EUR");
        state.minutes.put(NOON, sum(3, 1.5, true));
        state.minutes.put(NOON + MINUTE, sum(4, 2.0, false));
        state.hours.put(NOON, sum(7, 3.5, true));

        // When its state and minutes are written and read back, as a restore does
        RollupState restored = RollupState.CODEC.fromBytes(RollupState.CODEC.toBytes(state));
        RollupState.Sum minute = RollupState.MINUTE_CODEC.fromBytes(
                RollupState.MINUTE_CODEC.toBytes(state.minutes.get(NOON)));

        // Then the state holds its identity and hour, in format 2, and no minute; each minute comes back on its own
        assertThat(RollupState.CODEC.toBytes(state)[0]).isEqualTo((byte) 0xC2);
        assertThat(restored.dimension).isEqualTo(Dimension.JOB);
        assertThat(restored.id).isEqualTo("train@eu|7");
        assertThat(restored.currency).isEqualTo("EUR");
        assertThat(restored.minutes).isEmpty();
        assertThat(restored.hours).containsOnlyKeys(NOON);
        assertThat(restored.hours.get(NOON).totals.samples()).isEqualTo(7);
        assertThat(restored.hours.get(NOON).unsent).isTrue();
        assertThat(minute.totals.samples()).isEqualTo(3);
        assertThat(minute.totals.sum(UsageTotals.Sum.COST)).isEqualTo(1.5);
        assertThat(minute.gpus).isEqualTo(3);
        assertThat(minute.work.reports()).isEqualTo(1);
        assertThat(minute.unsent).isTrue();
    }

    @Test
    void shouldReadAStateTheEarlierFormatWroteWithItsMinutes() throws IOException {
        // Given a state as format 1 laid it out (v0.1.0 wrote it): identity, then every minute, then every hour,
        // each sum after its start
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeByte(0xC1);
        out.writeByte(Dimension.TEAM.ordinal());
        out.writeUTF("search");
        out.writeUTF("USD");
        out.writeInt(2);
        writeFormatOneSum(out, NOON, sum(2, 0.25, false));
        writeFormatOneSum(out, NOON + MINUTE, sum(5, 0.75, true));
        out.writeInt(1);
        writeFormatOneSum(out, NOON, sum(7, 1.0, true));

        // When it is read
        RollupState state = RollupState.CODEC.fromBytes(bytes.toByteArray());

        // Then its minutes come with it, to be moved to their own keys, and its hour
        assertThat(state.dimension).isEqualTo(Dimension.TEAM);
        assertThat(state.minutes).containsOnlyKeys(NOON, NOON + MINUTE);
        assertThat(state.minutes.get(NOON + MINUTE).totals.sum(UsageTotals.Sum.COST)).isEqualTo(0.75);
        assertThat(state.minutes.get(NOON + MINUTE).unsent).isTrue();
        assertThat(state.minutes.get(NOON).unsent).isFalse();
        assertThat(state.hours.get(NOON).totals.samples()).isEqualTo(7);
    }

    @Test
    void shouldNameAMinutesKeyAfterItsRollupAndStartWhateverTheIdHolds() {
        String key = RollupState.minuteKey("job|train@eu|7", NOON);

        assertThat(key).isEqualTo("job|train@eu|7@" + NOON);
        assertThat(RollupState.rollupKeyOf(key)).isEqualTo("job|train@eu|7");
        assertThat(RollupState.minuteStartOf(key)).isEqualTo(NOON);
    }

    private static RollupState.Sum sum(long samples, double cost, boolean unsent) {
        RollupState.Sum sum = new RollupState.Sum();
        sum.totals.add(UsageTotals.builder().samples(samples).sum(UsageTotals.Sum.COST, cost).build());
        sum.gpus = samples;
        sum.gpuEquivalents = samples / 2.0;
        sum.work = new WorkTotals(1, Map.of("tokens", 100.0), 2, 1.0, 0.5, 10.0);
        sum.unsent = unsent;
        return sum;
    }

    private static void writeFormatOneSum(DataOutputStream out, long start, RollupState.Sum sum) throws IOException {
        out.writeLong(start);
        out.writeLong(sum.gpus);
        out.writeDouble(sum.gpuEquivalents);
        UsageCodec.TOTALS.write(sum.totals.snapshot(), out);
        RollupPartial.WorkCodec.write(sum.work, out);
        out.writeBoolean(sum.unsent);
    }
}
