package io.gpuledger.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;

class GpuHourTest {

    private static final Placement PLACEMENT = new Placement("node-1", "i-0abc", "p5.48xlarge", "aws", "us-east-1",
            Lifecycle.ON_DEMAND);
    private static final Instant HOUR = Instant.parse("2026-12-01T10:00:00Z");

    @Test
    void shouldLeaveWhatNoJobTookUnallocatedAndReadBackWhatItWrote() {
        UsageTotals totals = UsageTotals.builder().samples(360).sum(UsageTotals.Sum.GPU_SECONDS, 3600)
                .sum(UsageTotals.Sum.COST, 10.0).build();
        GpuHour hour = new GpuHour("GPU-1", 0, "H100", PLACEMENT, HOUR, HOUR.plusSeconds(3600), "USD", null, totals,
                List.of(new JobPart("infer-a", "search", 1800, 6.0, 0.2, 0),
                        new JobPart("notebook-b", null, 900, 3.0, 0.1, 0)));

        // 10 - 6 - 3, by hand
        assertThat(hour.unallocatedCost()).isCloseTo(1.0, Offset.offset(1e-12));
        assertThat(hour.gpuFraction()).isEqualTo(1.0);
        GpuHour read = Json.read(Json.write(hour), GpuHour.class);
        assertThat(read).isEqualTo(hour);
        assertThat(new String(Json.write(hour), StandardCharsets.UTF_8))
                .contains("\"instanceId\":\"i-0abc\"", "\"unallocatedCost\":1.0");
    }

    @Test
    void shouldNameTheTeamThatTakesWhatNoJobTookAndReadAnHourWrittenWithoutOne() {
        UsageTotals totals = UsageTotals.builder().samples(360).sum(UsageTotals.Sum.GPU_SECONDS, 3600)
                .sum(UsageTotals.Sum.COST, 10.0).build();
        GpuHour hour = new GpuHour("GPU-1", 0, "H100", PLACEMENT, HOUR, HOUR.plusSeconds(3600), "USD", 1.0, totals,
                List.of(new JobPart("infer-a", "search", 1800, 6.0, 0.2, 0)), "platform");
        String written = new String(Json.write(hour), StandardCharsets.UTF_8);
        String before = written.replace(",\"team\":\"platform\"", "");

        assertThat(written).contains("\"team\":\"platform\"");
        assertThat(Json.read(Json.write(hour), GpuHour.class)).isEqualTo(hour);
        assertThat(before).doesNotContain("platform");
        assertThat(Json.read(before.getBytes(StandardCharsets.UTF_8), GpuHour.class).team()).isNull();
        assertThatThrownBy(() -> new GpuHour("GPU-1", 0, "H100", PLACEMENT, HOUR, HOUR.plusSeconds(3600), "USD", 1.0,
                totals, List.of(), "a|b")).isInstanceOf(InvalidRecordException.class).hasMessageContaining("team");
    }

    @Test
    void shouldRefuseAnHourThatEndsBeforeItStarts() {
        assertThatThrownBy(() -> new GpuHour("GPU-1", 0, "H100", PLACEMENT, HOUR, HOUR, "USD", 1.0, null, null))
                .isInstanceOf(InvalidRecordException.class).hasMessageContaining("windowEnd");
    }
}
