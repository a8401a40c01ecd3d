package io.gpuledger.streams.cost;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gpuledger.model.GpuHour;
import io.gpuledger.model.GpuUsage;
import io.gpuledger.model.JobEconomics;
import io.gpuledger.model.JobPart;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Placement;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.TelemetrySample;
import io.gpuledger.model.UsageRollup;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Time a running GPU was paid for while nobody observed it is charged at the price in force, apart. */
class UnmonitoredCostTest {

    private static final Instant T0 = Instant.parse("2026-03-01T12:00:00Z");
    /** A one-GPU instance at 8 USD an hour. */
    private static final double PRICE_PER_HOUR = 8.0;

    private CostDriver cost;
    private final List<GpuUsage> closed = new ArrayList<>();
    private final List<UsageRollup> rollups = new ArrayList<>();
    private final List<JobEconomics> economics = new ArrayList<>();

    @BeforeEach
    void startDriver() {
        cost = new CostDriver("unmonitored-cost-test", T0);
        cost.publish(new PriceQuote("aws", "us-east-1", "g6.xlarge", Lifecycle.ON_DEMAND, "L4", 1, PRICE_PER_HOUR,
                "USD", T0.minus(Duration.ofDays(1)), "test"));
    }

    @AfterEach
    void stopDriver() {
        cost.close();
    }

    @Test
    void shouldChargeFiveDarkMinutesAtTheGpusPriceAsUnmonitoredCost() {
        // Given a GPU at 8 USD/h whose agent reports for a minute, goes dark for 5 minutes, then returns
        tenSecondSamples(0, 60);
        tenSecondSamples(360, 900);

        // Then its closed minutes carry 5 min × 8/60 USD = 0.6667 USD of unmonitored cost, apart from its cost
        double expected = 5 * 8.0 / 60;
        assertThat(closed.stream().mapToDouble(window -> window.totals().unmonitoredSeconds()).sum())
                .isEqualTo(300.0);
        assertThat(closed.stream().mapToDouble(window -> window.totals().unmonitoredCost()).sum())
                .isCloseTo(expected, within(1e-9));
        // Each dark minute: 60 s × 8/3600 USD = 0.1333 USD, and no observed cost
        GpuUsage dark = closed.stream().filter(window -> window.windowStart().equals(T0.plusSeconds(120)))
                .findFirst().orElseThrow();
        assertThat(dark.totals().unmonitoredCost()).isCloseTo(60 * 8.0 / 3600, within(1e-9));
        assertThat(dark.totals().cost()).isZero();
        // And the job's and the pool's minutes add up to the same, as do the pool's hour and the job's economics
        assertThat(latestMinutes("job|infer").values().stream().mapToDouble(r -> r.totals().unmonitoredCost()).sum())
                .isCloseTo(expected, within(1e-9));
        assertThat(latestMinutes("pool|aws|us-east-1|g6.xlarge|on-demand").values().stream()
                .mapToDouble(r -> r.totals().unmonitoredCost()).sum()).isCloseTo(expected, within(1e-9));
        assertThat(latestEconomics().values().stream().mapToDouble(JobEconomics::unmonitoredCost).sum())
                .isCloseTo(expected, within(1e-9));
    }

    @Test
    void shouldKeepInTheHourThatTheDarkMinutesOfAJobThatHadTheGpuAloneAreThatJobs() {
        // Given the GPU at 8 USD/h of job infer for a minute, dark for 5 minutes, infer's again until 900 s, then job
        // train's of team vision until 1,800 s, and a sample of another GPU long after, which closes the hour
        tenSecondSamples(0, 60);
        tenSecondSamples(360, 900);
        for (int end = 910; end <= 1800; end += 10) {
            send(sample("GPU-1", "train", end).toBuilder().team("vision").build());
        }
        send(sample("GPU-2", "other", 80 * 60));
        cost.advance(Duration.ofSeconds(30));
        cost.sendUpdates();

        // Then the hour's part of infer holds the 300 dark seconds and their 5 × 8/60 USD, as infer's roll-ups do, and
        // train's none: the hour's unmonitored cost is no longer left to the team of its last minute
        GpuHour hour = cost.hours.readValuesToList().stream().filter(h -> h.gpuUuid().equals("GPU-1"))
                .reduce((first, second) -> second).orElseThrow();
        assertThat(hour.team()).isEqualTo("vision");
        JobPart infer = hour.jobParts().stream().filter(part -> part.jobId().equals("infer")).findFirst()
                .orElseThrow();
        JobPart train = hour.jobParts().stream().filter(part -> part.jobId().equals("train")).findFirst()
                .orElseThrow();
        assertThat(infer.unmonitoredSeconds()).isEqualTo(300.0);
        assertThat(infer.unmonitoredCost()).isCloseTo(5 * 8.0 / 60, within(1e-9));
        assertThat(infer.cost()).isCloseTo(600 * 8.0 / 3600, within(1e-9));
        assertThat(train.unmonitoredCost()).isZero();
        assertThat(hour.totals().unmonitoredCost()).isCloseTo(infer.unmonitoredCost(), within(1e-12));
        assertThat(latestMinutes("job|infer").values().stream().mapToDouble(r -> r.totals().unmonitoredCost()).sum())
                .isCloseTo(infer.unmonitoredCost(), within(1e-9));
    }

    /** The latest minute roll-up of {@code key} per window start. */
    private Map<Instant, UsageRollup> latestMinutes(String key) {
        Map<Instant, UsageRollup> latest = new LinkedHashMap<>();
        for (UsageRollup rollup : rollups) {
            if (rollup.key().equals(key) && Duration.between(rollup.windowStart(), rollup.windowEnd())
                    .toMinutes() == 1) {
                latest.put(rollup.windowStart(), rollup);
            }
        }
        return latest;
    }

    private Map<Instant, JobEconomics> latestEconomics() {
        Map<Instant, JobEconomics> latest = new LinkedHashMap<>();
        economics.forEach(minute -> latest.put(minute.windowStart(), minute));
        return latest;
    }

    private void tenSecondSamples(int fromSecond, int toSecond) {
        for (int end = fromSecond + 10; end <= toSecond; end += 10) {
            send(sample("GPU-1", "infer", end));
        }
    }

    private static TelemetrySample sample(String gpu, String job, int endSecond) {
        return TelemetrySample.builder().gpuUuid(gpu).gpuModel("L4")
                .placement(new Placement("node-1", "i-1", "g6.xlarge", "aws", "us-east-1", Lifecycle.ON_DEMAND))
                .jobId(job).time(T0.plusSeconds(endSecond)).intervalSeconds(10).smActive(0.5).build();
    }

    private void send(TelemetrySample sample) {
        cost.send(sample);
        cost.usage.readValuesToList().stream().filter(GpuUsage::closed).forEach(closed::add);
        rollups.addAll(cost.rollups.readValuesToList());
        economics.addAll(cost.economics.readValuesToList());
    }
}
