package io.gpuledger.model;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.time.Instant;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Usage windows and roll-ups as the engine writes them, and as it wrote them before. */
class UsageDocumentsTest {

    private static final Instant T0 = Instant.parse("2026-03-01T12:00:00Z");

    @Test
    void shouldReadAWindowWrittenBeforeUnmonitoredCostExistedAsCostingNothingUnmonitored() {
        // Given a window as the release before wrote it: 20 unmonitored seconds and no unmonitoredCost field
        GpuUsage window = usage(new Random(3), 10);
        String json = new String(Json.write(window), java.nio.charset.StandardCharsets.UTF_8)
                .replaceFirst(",\"unmonitoredCost\":[^,}]+", "");
        assertThat(json).doesNotContain("unmonitoredCost");

        // When it is read
        GpuUsage byDatabind = Json.read(json.getBytes(java.nio.charset.StandardCharsets.UTF_8), GpuUsage.class);

        // Then its unmonitored seconds are kept, with no cost
        assertThat(byDatabind.totals().unmonitoredSeconds()).isEqualTo(window.totals().unmonitoredSeconds());
        assertThat(byDatabind.totals().unmonitoredCost()).isZero();
    }

    @Test
    void shouldWriteEveryFigureOfTheTotalsAsDatabindWritesThatDouble() throws IOException {
        // The totals have a writer of their own (UsageTotalsJson, driven by the readings table):
        // each of its numbers must read as databind writes the same double anywhere else.
        double[] figures = {0.0, -0.0, 1.0, 60.0, 3600.0, 3601.0, -5.0, 2147483648.0, 1e20, 59.99999999999999, 0.1};
        for (int i = 0; i < figures.length; i++) {
            double a = figures[i];
            double b = figures[(i + 3) % figures.length];
            UsageTotals.Builder totals = UsageTotals.builder().samples(i);
            for (UsageTotals.Sum sum : UsageTotals.Sum.values()) {
                totals.sum(sum, sum.ordinal() % 2 == 0 ? a : b);
            }
            totals.mean(Reading.SM_ACTIVE, new Mean(a, b)).mean(Reading.POWER_WATTS, new Mean(b, b));
            UsageRollup rollup = new UsageRollup(UsageRollup.Dimension.GPU, "GPU-" + i, T0, T0.plusSeconds(300),
                    "USD", 1, null, totals.build());

            JsonNode written = Json.MAPPER.readTree(Json.write(rollup)).get("totals");

            assertThat(written.get("gpuSeconds").toString()).isEqualTo(Json.MAPPER.writeValueAsString(a));
            assertThat(written.get("smActive").get("seconds").toString()).isEqualTo(Json.MAPPER.writeValueAsString(b));
        }
    }

    /** Windows with and without optional readings, prices, teams, models and MIG shares, and odd doubles. */
    static GpuUsage usage(Random random, int i) {
        Instant start = T0.plusSeconds(60L * i).plusMillis(i % 7 == 0 ? 123 : 0);
        TelemetrySample.Builder sample = TelemetrySample.builder().gpuUuid("GPU-" + i + "-é\u00e4")
                .gpuIndex(i % 8).gpuModel(i % 5 == 0 ? null : "H100-80GB")
                .placement(new Placement("node-" + i, "i-" + i, "p5.48xlarge", "aws", "us-east-1",
                        Lifecycle.values()[i % Lifecycle.values().length]))
                .jobId(i % 4 == 0 ? null : "job-" + i).team(i % 3 == 0 ? null : "team \"" + i + "\"")
                .time(start.plusSeconds(30)).intervalSeconds(0.5 + random.nextDouble() * 30)
                .smActive(i % 7 == 3 ? null : random.nextDouble());
        if (i % 2 == 0) {
            sample.smOccupancy(random.nextDouble()).dramActive(random.nextDouble()).tensorActive(random.nextDouble())
                    .powerWatts(random.nextDouble() * 700).nvlinkTxBytesPerSecond(random.nextDouble() * 1e11);
        }
        if (i % 9 == 0) {
            sample.migProfile("3g.40gb").gpuFraction(3.0 / 7);
        }
        TelemetrySample built = sample.build();
        Double price = i % 6 == 0 ? null : random.nextDouble() * 98.32;
        GpuUsage usage = GpuUsage.empty(built, start, start.plusSeconds(60), "USD").add(built, price)
                .add(built, 1e-300);
        UsageTotals charged = i % 4 == 1 ? usage.totals().add(built, 1.5, true) : usage.totals();
        int unmonitored = i % 10 == 0 ? random.nextInt(60) : 0;
        UsageTotals totals = charged.plusUnmonitored(unmonitored, unmonitored * random.nextDouble() / 60);
        return usage.toBuilder().totals(totals).closed(i % 2 == 1).build();
    }
}
