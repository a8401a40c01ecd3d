package io.gpuledger.streams.cost;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Mean;
import io.gpuledger.model.Placement;
import io.gpuledger.model.Reading;
import io.gpuledger.model.TelemetrySample;
import io.gpuledger.model.UsageTotals;
import io.gpuledger.model.UsageTotals.Sum;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class GpuRecentTest {

    private static final long T0 = 1_772_366_400_000L;
    private static final long MINUTE = GpuState.MINUTE_MILLIS;

    @Test
    void shouldSumTheClosedMinutesOfTheLastFiveAndKeepOnlyWhatTheNextViewNeeds() {
        GpuRecent recent = new GpuRecent();

        for (int minute = 0; minute < 7; minute++) {
            UsageTotals rolling = recent.addMinute(T0 + minute * MINUTE, minuteCosting(minute + 1), 5);
            // Minutes 0..6 cost 1..7: the view ending with minute m sums the costs of m-4..m
            double expected = 0;
            for (int earlier = Math.max(0, minute - 4); earlier <= minute; earlier++) {
                expected += earlier + 1;
            }
            assertThat(rolling.cost()).as("view ending with minute %d", minute).isEqualTo(expected);
        }
        assertThat(recent.minutes).containsOnlyKeys(T0 + 3 * MINUTE, T0 + 4 * MINUTE, T0 + 5 * MINUTE, T0 + 6 * MINUTE);
        assertThat(recent.hour.cost()).isEqualTo(28.0);
    }

    @Test
    void shouldLeaveOutMinutesTheGpuHadNoWindowIn() {
        GpuRecent recent = new GpuRecent();
        recent.addMinute(T0, minuteCosting(1), 5);

        UsageTotals rolling = recent.addMinute(T0 + 6 * MINUTE, minuteCosting(2), 5);

        assertThat(rolling.cost()).isEqualTo(2.0);
        assertThat(rolling.gpuSeconds()).isEqualTo(60.0);
    }

    @Test
    void shouldReadBackWhatItWroteAndEndItsHourOnce() {
        GpuRecent recent = new GpuRecent();
        recent.hourStart = T0;
        recent.addMinute(T0, minuteCosting(1), 5);
        recent.addMinute(T0 + MINUTE, minuteCosting(2), 5);

        GpuRecent read = GpuRecent.CODEC.fromBytes(GpuRecent.CODEC.toBytes(recent));

        assertThat(read.hourStart).isEqualTo(T0);
        assertThat(read.hour).isEqualTo(recent.hour);
        assertThat(read.minutes).isEqualTo(recent.minutes);
        assertThat(read.endHour().cost()).isEqualTo(3.0);
        assertThat(read.hourStart).isEqualTo(GpuRecent.NONE);
        assertThat(read.hour).isEqualTo(UsageTotals.ZERO);
    }

    @Test
    void shouldKeepTheHoursJobPartsAndAForgottenGpusIdentityAcrossARestart() {
        GpuRecent recent = new GpuRecent();
        recent.hourStart = T0;
        recent.addMinute(T0, minuteCosting(1), 5);
        recent.addParts(JobParts.sole("train-1", "vision", minuteCosting(1)));
        recent.addMinute(T0 + MINUTE, minuteCosting(2), 5);
        recent.addParts(JobParts.sole("train-1", "vision", minuteCosting(2)));
        recent.identity = GpuIdentity.of(TelemetrySample.builder().gpuUuid("GPU-1").gpuModel("H100")
                .placement(new Placement("node-1", "i-1", "p5.48xlarge", "aws", "us-east-1", Lifecycle.SPOT))
                .jobId("train-1").team("vision").time(Instant.ofEpochMilli(T0)).intervalSeconds(10).build());

        GpuRecent read = GpuRecent.CODEC.fromBytes(GpuRecent.CODEC.toBytes(recent));

        assertThat(read.hourParts.toContract()).singleElement().satisfies(part -> {
            assertThat(part.jobId()).isEqualTo("train-1");
            assertThat(part.team()).isEqualTo("vision");
            assertThat(part.cost()).isEqualTo(3.0);
            assertThat(part.gpuSeconds()).isEqualTo(120.0);
        });
        assertThat(read.identity.placement.instanceId()).isEqualTo("i-1");
        assertThat(read.identity.placement.lifecycle()).isEqualTo(Lifecycle.SPOT);
        read.endHour();
        assertThat(read.hourParts).isNull();
    }

    @Test
    void shouldKeepTheTeamOfTheHoursRestAcrossARestartWritingItOnlyForAnHourThatWasShared() {
        GpuRecent plain = new GpuRecent();
        plain.hourStart = T0;
        plain.addMinute(T0, minuteCosting(1), 5);
        GpuRecent shared = new GpuRecent();
        shared.hourStart = T0;
        shared.addMinute(T0, minuteCosting(1), 5);
        shared.shared = true;
        shared.restTeam = "platform";
        GpuRecent sharedNoTeam = new GpuRecent();
        sharedNoTeam.shared = true;

        // An hour never shared is written as before (version byte 0xC2), which releases before read
        assertThat(GpuRecent.CODEC.toBytes(plain)[0]).isEqualTo((byte) 0xC2);
        assertThat(GpuRecent.CODEC.toBytes(shared)[0]).isEqualTo((byte) 0xC3);
        GpuRecent readPlain = GpuRecent.CODEC.fromBytes(GpuRecent.CODEC.toBytes(plain));
        GpuRecent readShared = GpuRecent.CODEC.fromBytes(GpuRecent.CODEC.toBytes(shared));
        GpuRecent readNoTeam = GpuRecent.CODEC.fromBytes(GpuRecent.CODEC.toBytes(sharedNoTeam));

        assertThat(readPlain.shared).isFalse();
        assertThat(readShared.shared).isTrue();
        assertThat(readShared.restTeam).isEqualTo("platform");
        assertThat(readShared.hour.cost()).isEqualTo(1.0);
        assertThat(readNoTeam.shared).isTrue();
        assertThat(readNoTeam.restTeam).isNull();
        readShared.endHour();
        assertThat(readShared.shared).isFalse();
        assertThat(readShared.restTeam).isNull();
    }

    @Test
    void shouldKeepTheDarkTimeOfEachJobsPartAcrossARestartWritingItOnlyWhereAPartHoldsSome() {
        UsageTotals darkMinute = UsageTotals.ZERO.plusUnmonitored(60, 0.2);
        GpuRecent recent = new GpuRecent();
        recent.hourStart = T0;
        recent.addMinute(T0, minuteCosting(1), 5);
        recent.addParts(JobParts.sole("train-1", "vision", minuteCosting(1)));
        GpuRecent dark = new GpuRecent();
        dark.hourStart = T0;
        dark.addMinute(T0, darkMinute, 5);
        dark.addParts(JobParts.sole("train-1", "vision", darkMinute));
        dark.addMinute(T0 + MINUTE, minuteCosting(2), 5);
        dark.addParts(JobParts.sole("train-1", "vision", minuteCosting(2)));
        dark.shared = true;
        dark.restTeam = "platform";

        // An hour whose parts hold no dark time is written as before; one that does in version 4 (0xC4)
        assertThat(GpuRecent.CODEC.toBytes(recent)[0]).isEqualTo((byte) 0xC2);
        assertThat(GpuRecent.CODEC.toBytes(dark)[0]).isEqualTo((byte) 0xC4);
        GpuRecent read = GpuRecent.CODEC.fromBytes(GpuRecent.CODEC.toBytes(dark));

        assertThat(read.hourParts.toContract()).singleElement().satisfies(part -> {
            assertThat(part.unmonitoredSeconds()).isEqualTo(60.0);
            assertThat(part.unmonitoredCost()).isEqualTo(0.2);
            assertThat(part.cost()).isEqualTo(2.0);
        });
        assertThat(read.shared).isTrue();
        assertThat(read.restTeam).isEqualTo("platform");
        dark.shared = false;
        GpuRecent notShared = GpuRecent.CODEC.fromBytes(GpuRecent.CODEC.toBytes(dark));
        assertThat(notShared.shared).isFalse();
        assertThat(notShared.hourParts.toContract().get(0).unmonitoredCost()).isEqualTo(0.2);
    }

    @Test
    void shouldReadAVersionOneRecordAsAnHourWithoutParts() throws IOException {
        // Version 1, as the release before wrote it: version byte, hour start, hour, minutes, fraction.
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeByte(0xC1);
        out.writeLong(T0);
        UsageCodec.TOTALS.write(minuteCosting(4), out);
        out.writeByte(1);
        out.writeLong(T0);
        UsageCodec.TOTALS.write(minuteCosting(4), out);
        out.writeDouble(0.5);

        GpuRecent read = GpuRecent.CODEC.fromBytes(bytes.toByteArray());

        assertThat(read.hourStart).isEqualTo(T0);
        assertThat(read.hour.cost()).isEqualTo(4.0);
        assertThat(read.gpuFraction).isEqualTo(0.5);
        assertThat(read.hourParts).isNull();
        assertThat(read.identity).isNull();
    }

    private static UsageTotals minuteCosting(double cost) {
        return UsageTotals.builder().samples(6).sum(Sum.GPU_SECONDS, 60).sum(Sum.COST, cost)
                .sum(Sum.ENERGY_KWH, 0.005).mean(Reading.SM_ACTIVE, new Mean(30, 60))
                .mean(Reading.POWER_WATTS, new Mean(18_000, 60)).build();
    }
}
