package io.gpuledger.streams.cost;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuledger.model.CurrencyRates;
import io.gpuledger.model.GpuHour;
import io.gpuledger.model.GpuUsage;
import io.gpuledger.model.JobPart;
import io.gpuledger.model.Json;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Placement;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.TelemetrySample;
import io.gpuledger.model.Topics;
import io.gpuledger.model.UsageRollup;
import io.gpuledger.model.UsageTotals;
import io.gpuledger.streams.cost.AdversarialScenario.Arrival;
import io.gpuledger.streams.cost.ReferenceCharger.Charged;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.stream.LongStream;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The cost engine against {@link ReferenceCharger}, a naive second opinion, on many
 * {@link AdversarialScenario}s drawn at random: every GPU's, job's, team's and pool's cost,
 * covered, unpriced and unmonitored time, and unmonitored cost, must agree within 0.01%.
 *
 * <p>Each run draws {@code -Dgpuledger.scenarios} scenarios (default 30) from seeds that follow
 * from {@code -Dgpuledger.scenarioSeed} (default: a new one each run, printed with any failure);
 * a seed that once failed is kept in {@link #REGRESSIONS} and runs every time.
 */
class EngineAgainstReferenceTest {

    /** Seeds of scenarios that once found a difference, kept so that it stays found. */
    private static final long[] REGRESSIONS = {
        -594798593157429144L,   // price versions starting inside samples: charged at each sample's middle
        -6087268195355759572L,  // a silence across a price change: charged at the minute's price
        -1109287713991315740L,  // two nodes whose clocks run 5 min ahead, a MIG slice beside them
    };

    private static final Duration GRACE = Duration.ofMinutes(2);
    private static final double RELATIVE = 1e-4;
    private static final double ABSOLUTE = 1e-9;
    private static final String FLUSH_GPU = AdversarialScenario.gpuUuid(999);

    static LongStream seeds() {
        long master = Long.getLong("gpuledger.scenarioSeed", System.nanoTime());
        Random seeds = new Random(master);
        LongStream drawn = LongStream.generate(seeds::nextLong).limit(Integer.getInteger("gpuledger.scenarios", 30));
        return LongStream.concat(LongStream.of(REGRESSIONS), drawn);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void shouldChargeEveryGpuJobTeamAndPoolAsTheReferenceDoes(long seed) {
        // Given a drawn scenario, and the reference's reading of it
        AdversarialScenario scenario = AdversarialScenario.draw(seed);
        ReferenceCharger reference = new ReferenceCharger(scenario.quotes, CostSettings.DEFAULT_MAX_GAP.toSeconds(),
                GRACE.toMillis());
        scenario.arrivals.stream().filter(Arrival::acceptable).forEach(arrival -> reference.accept(arrival.sample()));
        ReferenceCharger.Totals expected = reference.totals();

        // When the engine reads it, record by record, its wall clock at each record's arrival
        Engine engine = new Engine(scenario);

        // Then every subject's figures agree
        assertAgree(scenario, "GPU", expected.gpus(), engine.gpus);
        assertAgree(scenario, "job", expected.jobs(), engine.rollups.get(UsageRollup.Dimension.JOB));
        assertAgree(scenario, "team", expected.teams(), engine.rollups.get(UsageRollup.Dimension.TEAM));
        assertAgree(scenario, "pool", expected.pools(), engine.rollups.get(UsageRollup.Dimension.POOL));
        // and the GPUs' hours hold every GPU's figures, and their job parts every job's cost and time
        assertAgree(scenario, "GPU's hours", expected.gpus(), engine.hours);
        assertThat(engine.hourParts.keySet()).as("jobs in the hours' parts, %s", scenario)
                .isEqualTo(expected.jobs().keySet());
        for (Map.Entry<String, double[]> job : engine.hourParts.entrySet()) {
            Charged charged = expected.jobs().get(job.getKey());
            assertClose(job.getValue()[0], charged.cost, "hours' parts' cost of job " + job.getKey() + ", " + scenario);
            assertClose(job.getValue()[1], charged.seconds, "hours' parts' seconds of job " + job.getKey());
        }
    }

    private static void assertAgree(AdversarialScenario scenario, String what, Map<String, Charged> expected,
            Map<String, UsageTotals> actual) {
        assertThat(actual.keySet()).as("%ss charged, %s", what, scenario).isEqualTo(expected.keySet());
        for (Map.Entry<String, Charged> subject : expected.entrySet()) {
            Charged reference = subject.getValue();
            UsageTotals engine = actual.get(subject.getKey());
            String name = what + " " + subject.getKey() + " (reference: " + reference + "), " + scenario;
            assertClose(engine.gpuSeconds(), reference.seconds, "covered seconds of " + name);
            assertClose(engine.cost(), reference.cost, "cost of " + name);
            assertClose(engine.unpricedSeconds(), reference.unpricedSeconds, "unpriced seconds of " + name);
            assertClose(engine.unmonitoredSeconds(), reference.unmonitoredSeconds, "unmonitored seconds of " + name);
            assertClose(engine.unmonitoredCost(), reference.unmonitoredCost, "unmonitored cost of " + name);
            assertClose(engine.unallocatedCost(), reference.unallocatedCost, "unallocated cost of " + name);
        }
    }

    private static void assertClose(double actual, double expected, String what) {
        double tolerance = Math.max(ABSOLUTE, Math.abs(expected) * RELATIVE);
        assertThat(actual).as(what).isBetween(expected - tolerance, expected + tolerance);
    }

    /** The engine under a test driver, fed a scenario, and what it published at the end. */
    private static final class Engine {
        final Map<String, UsageTotals> gpus = new HashMap<>();
        final Map<UsageRollup.Dimension, Map<String, UsageTotals>> rollups = new HashMap<>();
        final Map<String, UsageTotals> hours = new HashMap<>();
        /** Per job: the cost and GPU seconds of its parts of the GPUs' hours. */
        final Map<String, double[]> hourParts = new HashMap<>();
        private Instant wallClock;

        Engine(AdversarialScenario scenario) {
            Properties props = new Properties();
            props.put(StreamsConfig.APPLICATION_ID_CONFIG, "engine-against-reference");
            props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:9");
            wallClock = AdversarialScenario.START.minus(Duration.ofMinutes(1));
            try (TopologyTestDriver driver = new TopologyTestDriver(
                    CostTopology.build(CostSettings.of(GRACE, CurrencyRates.shipped("USD"))), props, wallClock)) {
                TestInputTopic<String, PriceQuote> prices = driver.createInputTopic(Topics.PRICES.name(),
                        Topics.PRICES.keySerde().serializer(), Topics.PRICES.valueSerde().serializer());
                TestInputTopic<String, byte[]> telemetry = driver.createInputTopic(Topics.TELEMETRY.name(),
                        Serdes.String().serializer(), Serdes.ByteArray().serializer());
                // Every price version is known before any sample it prices, as a feed publishes them.
                scenario.quotes.forEach(quote -> prices.pipeInput(quote.key(), quote, wallClock));
                for (Arrival arrival : scenario.arrivals) {
                    advanceTo(driver, arrival.arrival());
                    byte[] value = arrival.sample() != null ? Json.write(arrival.sample()) : arrival.raw();
                    telemetry.pipeInput(new TestRecord<>(arrival.key(), value, arrival.arrival()));
                }
                // Then a sample of another pool, once every window has ended and its grace has passed,
                // closes them all; a few updates later every partial has been sent.
                Instant flush = scenario.end.plus(Duration.ofMinutes(6));
                advanceTo(driver, flush);
                telemetry.pipeInput(new TestRecord<>(FLUSH_GPU, Json.write(flushSample(flush)), flush));
                for (int update = 0; update < 10; update++) {
                    advanceTo(driver, wallClock.plus(CostSettings.DEFAULT_UPDATE_INTERVAL));
                }
                // And a sample two hours later ends every GPU's hour.
                Instant hoursEnd = flush.plus(Duration.ofHours(2));
                advanceTo(driver, hoursEnd);
                telemetry.pipeInput(new TestRecord<>(FLUSH_GPU, Json.write(flushSample(hoursEnd)), hoursEnd));
                readUsage(driver);
                readRollups(driver);
                readHours(driver);
            }
        }

        private void advanceTo(TopologyTestDriver driver, Instant to) {
            // In update-interval steps, as a wall clock runs: every update in between is sent.
            while (wallClock.isBefore(to)) {
                Duration step = Duration.between(wallClock, to);
                if (step.compareTo(CostSettings.DEFAULT_UPDATE_INTERVAL) > 0) {
                    step = CostSettings.DEFAULT_UPDATE_INTERVAL;
                }
                driver.advanceWallClockTime(step);
                wallClock = wallClock.plus(step);
            }
        }

        private void readUsage(TopologyTestDriver driver) {
            Map<String, GpuUsage> latest = new HashMap<>();
            for (GpuUsage window : driver.createOutputTopic(Topics.USAGE.name(), Topics.USAGE.keySerde().deserializer(),
                    Topics.USAGE.valueSerde().deserializer()).readValuesToList()) {
                latest.put(window.gpuUuid() + "@" + window.windowStart(), window);
            }
            for (GpuUsage window : latest.values()) {
                if (!window.gpuUuid().equals(FLUSH_GPU)) {
                    gpus.merge(window.gpuUuid(), window.totals(), UsageTotals::plus);
                }
            }
        }

        private void readRollups(TopologyTestDriver driver) {
            Map<String, UsageRollup> latest = new HashMap<>();
            List<UsageRollup> records = new ArrayList<>(driver.createOutputTopic(Topics.ROLLUPS.name(),
                    Topics.ROLLUPS.keySerde().deserializer(), Topics.ROLLUPS.valueSerde().deserializer())
                    .readValuesToList());
            for (UsageRollup rollup : records) {
                boolean minute = Duration.between(rollup.windowStart(), rollup.windowEnd())
                        .equals(Duration.ofMinutes(1));
                if (minute && rollup.dimension() != UsageRollup.Dimension.GPU) {
                    latest.put(rollup.key() + "@" + rollup.windowStart(), rollup);
                }
            }
            for (UsageRollup rollup : latest.values()) {
                if (!rollup.id().startsWith("flush") && !rollup.id().contains("g5.xlarge")) {
                    rollups.computeIfAbsent(rollup.dimension(), d -> new HashMap<>())
                            .merge(rollup.id(), rollup.totals(), UsageTotals::plus);
                }
            }
        }

        private void readHours(TopologyTestDriver driver) {
            Map<String, GpuHour> latest = new HashMap<>();
            for (GpuHour hour : driver.createOutputTopic(Topics.HOURS.name(), Topics.HOURS.keySerde().deserializer(),
                    Topics.HOURS.valueSerde().deserializer()).readValuesToList()) {
                assertThat(latest.put(hour.gpuUuid() + "@" + hour.windowStart(), hour)).as("a GPU's hour sent twice")
                        .isNull();
            }
            for (GpuHour hour : latest.values()) {
                if (hour.gpuUuid().equals(FLUSH_GPU)) {
                    continue;
                }
                hours.merge(hour.gpuUuid(), hour.totals(), UsageTotals::plus);
                for (JobPart part : hour.jobParts()) {
                    double[] sums = hourParts.computeIfAbsent(part.jobId(), job -> new double[2]);
                    sums[0] += part.cost();
                    sums[1] += part.gpuSeconds();
                }
            }
        }

        private static TelemetrySample flushSample(Instant end) {
            return TelemetrySample.builder().gpuUuid(FLUSH_GPU).gpuModel("A10G")
                    .placement(new Placement("node-flush", "i-flush", "g5.xlarge", "aws", "us-east-1",
                            Lifecycle.ON_DEMAND))
                    .jobId("flush-job").team("flush-team").time(end).intervalSeconds(10).smActive(0.5).build();
        }
    }
}
