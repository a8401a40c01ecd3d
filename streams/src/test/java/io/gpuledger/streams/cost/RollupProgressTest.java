package io.gpuledger.streams.cost;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gpuledger.model.CurrencyRates;
import io.gpuledger.model.JobProgress;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Offer;
import io.gpuledger.model.Placement;
import io.gpuledger.model.TelemetrySample;
import io.gpuledger.model.Topics;
import io.gpuledger.model.UsageRollup;
import io.gpuledger.model.UsageRollup.Dimension;
import io.gpuledger.model.UsageTotals;
import io.gpuledger.model.WorkTotals;
import io.gpuledger.streams.state.CodecSerde;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The roll-ups fed, on their repartition topic, by three tasks of the GPU windows that work off a
 * backlog at their own paces: a minute closes on the progress of every task, not on the newest
 * minute one of them sent.
 */
class RollupProgressTest {

    private static final String APPLICATION = "rollup-progress";
    private static final Instant DAY = Instant.parse("2026-03-01T00:00:00Z");
    /** The engine catches up long after: none of the history is live. */
    private static final Instant WALL_CLOCK = DAY.plus(Duration.ofDays(3));
    private static final double PER_GPU_HOUR = 6.0;
    private static final String POOL = new Offer("aws", "us-east-1", "p4d.24xlarge", Lifecycle.SPOT).key();
    private static final String POOL_KEY = UsageRollup.keyOf(Dimension.POOL, POOL);
    private static final Duration MINUTE = Duration.ofMinutes(1);

    private TopologyTestDriver driver;
    private TestInputTopic<String, RollupInput> partials;
    private TestOutputTopic<String, UsageRollup> rollups;
    /** The latest roll-up of each key, start and length. */
    private final Map<String, UsageRollup> latest = new HashMap<>();

    @BeforeEach
    void startDriver() {
        // Three tasks send partials; the roll-ups go quiet only after five updates without one
        CostSettings settings = CostSettings.of(CostDriver.GRACE, CurrencyRates.shipped("USD"))
                .committingEvery(Duration.ofSeconds(8)).withSources(3);
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, APPLICATION);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:9");
        driver = new TopologyTestDriver(CostTopology.build(settings), props, WALL_CLOCK);
        partials = driver.createInputTopic(APPLICATION + "-rollup-partials-repartition", Serdes.String().serializer(),
                new CodecSerde<>(RollupInput.CODEC).serializer());
        rollups = driver.createOutputTopic(Topics.ROLLUPS.name(), Topics.ROLLUPS.keySerde().deserializer(),
                Topics.ROLLUPS.valueSerde().deserializer());
    }

    @AfterEach
    void stopDriver() {
        driver.close();
    }

    @Test
    void shouldRollUpEveryMinuteWhenTheSourcesSendTheirHoursInAnyOrder() {
        // Given three hours in which source s charges s + 1 GPUs of the pool for every minute
        int minutes = 180;

        // When source 1 sends all of it first, then source 0 ten minutes at a time, and source 2
        // half an hour at a time, an hour behind source 0
        sendChunks(1, 0, minutes);
        for (int from = 0; from < minutes; from += 10) {
            sendChunks(0, from, from + 10);
            if (from >= 60 && from % 30 == 0) {
                sendChunks(2, from - 60, from - 30);
            }
        }
        sendChunks(2, minutes - 60, minutes - 30);
        sendChunks(2, minutes - 30, minutes);
        for (int source = 0; source < 3; source++) {
            SourceProgress done = new SourceProgress(source, at(minutes).toEpochMilli(), true);
            partials.pipeInput(done.key(), done, WALL_CLOCK);
        }
        quietUpdates();

        // Then every minute holds the six GPUs, 1 + 2 + 3, each charged a whole minute at 6 USD an hour
        for (int minute = 0; minute < minutes; minute++) {
            UsageRollup pool = latest.get(POOL_KEY + "@" + at(minute) + "/PT1M");
            assertThat(pool).as("minute " + minute).isNotNull();
            assertThat(pool.totals().samples()).as("minute " + minute).isEqualTo(6);
            assertThat(pool.totals().cost()).as("minute " + minute).isCloseTo(6 * PER_GPU_HOUR / 60, within(1e-9));
        }
        // And every hour sixty such minutes: 6 GPU-hours at 6 USD
        for (int hour = 0; hour < 3; hour++) {
            UsageRollup pool = latest.get(POOL_KEY + "@" + at(60 * hour) + "/PT1H");
            assertThat(pool.totals().samples()).isEqualTo(60 * 6);
            assertThat(pool.totals().cost()).isCloseTo(6 * PER_GPU_HOUR, within(1e-9));
        }
        assertThat(rollupsLate()).isZero();
    }

    @Test
    void shouldCloseAMinuteOnceEverySourceNotIdleHasPassedIt() {
        // Given sources 0 and 1 past the first half hour, source 2 not heard from yet
        sendChunks(0, 0, 30);
        sendChunks(1, 0, 30);
        update();

        // Then nothing of it is complete yet: source 2 may still send partials for any minute
        assertThat(latest).doesNotContainKey(POOL_KEY + "@" + at(0) + "/PT1M");

        // When source 2 says it is idle, having nothing to send
        SourceProgress idle = new SourceProgress(2, Long.MIN_VALUE, true);
        partials.pipeInput(idle.key(), idle, WALL_CLOCK);
        update();

        // Then the half hour is complete and sent: three GPUs a minute, 1 + 2
        assertThat(latest.get(POOL_KEY + "@" + at(29) + "/PT1M").totals().samples()).isEqualTo(3);

        // When source 0 gets ten minutes further and source 1 does not
        sendChunks(0, 30, 40);
        update();

        // Then those ten minutes wait for source 1
        assertThat(latest).doesNotContainKey(POOL_KEY + "@" + at(30) + "/PT1M");

        // When source 1 catches up
        sendChunks(1, 30, 40);
        update();

        // Then they are sent, whole
        assertThat(latest.get(POOL_KEY + "@" + at(30) + "/PT1M").totals().samples()).isEqualTo(3);
        assertThat(latest.get(POOL_KEY + "@" + at(39) + "/PT1M").totals().samples()).isEqualTo(3);
        assertThat(rollupsLate()).isZero();
    }

    @Test
    void shouldKeepWhichMinutesAndHoursWereNotSentYetInTheStoredRollups() {
        // Given a pool with a minute sent and a minute changed since, and its hour changed
        RollupState state = new RollupState(Dimension.POOL, POOL, "USD");
        RollupState.Sum sent = new RollupState.Sum();
        RollupState.Sum pending = new RollupState.Sum();
        pending.unsent = true;
        RollupState.Sum hour = new RollupState.Sum();
        hour.unsent = true;
        state.hours.put(at(0).toEpochMilli(), hour);

        // When they are written to the changelog and read back, as after a restart
        RollupState restored = RollupState.CODEC.fromBytes(RollupState.CODEC.toBytes(state));
        RollupState.Sum restoredSent = RollupState.MINUTE_CODEC.fromBytes(RollupState.MINUTE_CODEC.toBytes(sent));
        RollupState.Sum restoredPending = RollupState.MINUTE_CODEC.fromBytes(
                RollupState.MINUTE_CODEC.toBytes(pending));

        // Then the changed minute and the hour are still to be sent, and only they
        assertThat(restoredSent.unsent).isFalse();
        assertThat(restoredPending.unsent).isTrue();
        assertThat(restored.hours.get(at(0).toEpochMilli()).unsent).isTrue();
    }

    @Test
    void shouldSendATasksProgressHeldBackToItsWorkReportsWhileTheyCome() {
        // Given the engine live at 12:10, a GPU charged every minute from 12:00, and one report of its job at 12:01
        Instant noon = Instant.parse("2026-03-01T12:00:00Z");
        try (CostDriver cost = new CostDriver("task-progress", noon.plus(Duration.ofMinutes(10)))) {
            TestOutputTopic<String, RollupInput> sent = cost.driver.createOutputTopic(
                    "task-progress-rollup-partials-repartition", Serdes.String().deserializer(),
                    new CodecSerde<>(RollupInput.CODEC).deserializer());
            cost.report(new JobProgress("llm", "research", "node-a", "i-node-a", List.of("GPU-a"),
                    noon.plusSeconds(60), 60, 1000, "tokens", 10, null, null, null, null));
            for (int minute = 1; minute <= 5; minute++) {
                cost.send(sample(noon.plus(MINUTE.multipliedBy(minute))));
            }

            // Then its progress stops two minutes (the grace) before the report's middle, 12:00:30:
            // every minute ending by 11:58 is closed; the samples alone would close to 12:02
            assertThat(lastProgress(sent).closedUntil())
                    .isEqualTo(Instant.parse("2026-03-01T11:58:00Z").toEpochMilli());

            // When no report comes for 30 s of updates, while the samples go on to 12:10
            for (int minute = 6; minute <= 10; minute++) {
                cost.send(sample(noon.plus(MINUTE.multipliedBy(minute))));
            }

            // Then the samples alone hold it: their latest middle, 12:09:30, less the grace is in 12:07
            SourceProgress progress = lastProgress(sent);
            assertThat(progress.closedUntil()).isEqualTo(Instant.parse("2026-03-01T12:07:00Z").toEpochMilli());
            assertThat(progress.idle()).isFalse();
        }
    }

    private static SourceProgress lastProgress(TestOutputTopic<String, RollupInput> sent) {
        SourceProgress last = null;
        for (RollupInput input : sent.readValuesToList()) {
            if (input instanceof SourceProgress progress) {
                last = progress;
            }
        }
        assertThat(last).as("progress sent").isNotNull();
        return last;
    }

    private static TelemetrySample sample(Instant end) {
        return TelemetrySample.builder().gpuUuid("GPU-a").gpuModel("A100-40GB")
                .placement(new Placement("node-a", "i-node-a", "p4d.24xlarge", "aws", "us-east-1",
                        Lifecycle.ON_DEMAND))
                .jobId("llm").team("research").time(end).intervalSeconds(60).smActive(0.6).build();
    }

    /**
     * What a task of the GPU windows sends at a commit while it works off a backlog: its partials
     * of minutes {@code from} to {@code to} (exclusive), then its progress; then an update goes by.
     */
    private void sendChunks(int source, int from, int to) {
        for (int minute = from; minute < to; minute++) {
            RollupPartial partial = new RollupPartial(Dimension.POOL, POOL, at(minute).toEpochMilli(), "USD",
                    source + 1, source + 1, minuteOf(source + 1, at(minute)), WorkTotals.NONE);
            partials.pipeInput(partial.rollupKey(), partial, at(minute));
        }
        SourceProgress progress = new SourceProgress(source, at(to).toEpochMilli(), false);
        partials.pipeInput(progress.key(), progress, WALL_CLOCK);
        update();
    }

    /** {@code gpus} GPUs each charged one sample of a whole minute. */
    private static UsageTotals minuteOf(int gpus, Instant start) {
        UsageTotals totals = UsageTotals.ZERO;
        for (int gpu = 0; gpu < gpus; gpu++) {
            TelemetrySample sample = TelemetrySample.builder().gpuUuid("GPU-" + gpu).gpuModel("A100-40GB")
                    .placement(new Placement("node-" + gpu, "i-" + gpu, "p4d.24xlarge", "aws", "us-east-1",
                            Lifecycle.SPOT))
                    .time(start.plus(MINUTE)).intervalSeconds(60).smActive(0.5).build();
            totals = totals.add(sample, PER_GPU_HOUR);
        }
        return totals;
    }

    private static Instant at(int minute) {
        return DAY.plus(MINUTE.multipliedBy(minute));
    }

    private void update() {
        driver.advanceWallClockTime(CostSettings.DEFAULT_UPDATE_INTERVAL);
        for (UsageRollup rollup : rollups.readValuesToList()) {
            latest.put(rollup.key() + "@" + rollup.windowStart() + "/"
                    + Duration.between(rollup.windowStart(), rollup.windowEnd()), rollup);
        }
    }

    /** Enough updates without a partial for the roll-ups to send whatever they held back. */
    private void quietUpdates() {
        for (int i = 0; i < 6; i++) {
            update();
        }
    }

    private double rollupsLate() {
        return driver.metrics().entrySet().stream()
                .filter(e -> e.getKey().name().equals("dead-letters-total")
                        && "rollup-late".equals(e.getKey().tags().get("gpuledger-id")))
                .mapToDouble(e -> ((Number) e.getValue().metricValue()).doubleValue())
                .sum();
    }
}
