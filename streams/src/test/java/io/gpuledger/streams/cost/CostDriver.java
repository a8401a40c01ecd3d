package io.gpuledger.streams.cost;

import io.gpuledger.model.CurrencyRates;
import io.gpuledger.model.GpuHour;
import io.gpuledger.model.GpuUsage;
import io.gpuledger.model.JobEconomics;
import io.gpuledger.model.JobProgress;
import io.gpuledger.model.Json;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.TelemetrySample;
import io.gpuledger.model.Topics;
import io.gpuledger.model.UsageRollup;
import java.time.Duration;
import java.time.Instant;
import java.util.Properties;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;

/** The cost topology under {@link TopologyTestDriver}, its topics, and the wall clock the flow tests move. */
final class CostDriver implements AutoCloseable {

    static final Duration GRACE = Duration.ofMinutes(2);

    final TopologyTestDriver driver;
    final TestInputTopic<String, PriceQuote> prices;
    final TestInputTopic<String, byte[]> telemetry;
    final TestInputTopic<String, byte[]> progress;
    final TestOutputTopic<String, GpuUsage> usage;
    final TestOutputTopic<String, UsageRollup> rollups;
    final TestOutputTopic<String, JobEconomics> economics;
    final TestOutputTopic<String, GpuHour> hours;
    final TestOutputTopic<String, byte[]> telemetryDeadLetters;
    final TestOutputTopic<String, byte[]> progressDeadLetters;
    private final Instant start;
    /** The driver's wall clock: its start, moved on only through {@link #advance}. */
    private Instant wallClock;

    /** @param start the wall clock's start, at which prices are published */
    CostDriver(String application, Instant start) {
        this(application, start, CostSettings.of(GRACE, CurrencyRates.shipped("USD")));
    }

    /** @param start the wall clock's start, at which prices are published */
    CostDriver(String application, Instant start, CostSettings settings) {
        this.start = start;
        this.wallClock = start;
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, application);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:9");
        driver = new TopologyTestDriver(CostTopology.build(settings), props, start);
        prices = driver.createInputTopic(Topics.PRICES.name(), Topics.PRICES.keySerde().serializer(),
                Topics.PRICES.valueSerde().serializer());
        telemetry = driver.createInputTopic(Topics.TELEMETRY.name(), Serdes.String().serializer(),
                Serdes.ByteArray().serializer());
        progress = driver.createInputTopic(Topics.JOB_PROGRESS.name(), Serdes.String().serializer(),
                Serdes.ByteArray().serializer());
        usage = driver.createOutputTopic(Topics.USAGE.name(), Topics.USAGE.keySerde().deserializer(),
                Topics.USAGE.valueSerde().deserializer());
        rollups = driver.createOutputTopic(Topics.ROLLUPS.name(), Topics.ROLLUPS.keySerde().deserializer(),
                Topics.ROLLUPS.valueSerde().deserializer());
        economics = driver.createOutputTopic(Topics.JOB_ECONOMICS.name(), Topics.JOB_ECONOMICS.keySerde()
                .deserializer(),
                Topics.JOB_ECONOMICS.valueSerde().deserializer());
        hours = driver.createOutputTopic(Topics.HOURS.name(), Topics.HOURS.keySerde().deserializer(),
                Topics.HOURS.valueSerde().deserializer());
        telemetryDeadLetters = driver.createOutputTopic(Topics.TELEMETRY_DEAD_LETTERS.name(),
                Serdes.String().deserializer(), Serdes.ByteArray().deserializer());
        progressDeadLetters = driver.createOutputTopic(Topics.JOB_PROGRESS_DEAD_LETTERS.name(),
                Serdes.String().deserializer(), Serdes.ByteArray().deserializer());
    }

    void publish(PriceQuote quote) {
        prices.pipeInput(quote.key(), quote, start);
    }

    /**
     * Sends a sample as an agent whose clock is right does: the wall clock is moved on to the
     * sample's time first if it is behind, then the updates it causes come out.
     */
    void send(TelemetrySample sample) {
        Duration behind = Duration.between(wallClock, sample.time());
        if (!behind.isNegative() && !behind.isZero()) {
            advance(behind);
        }
        sendAsStamped(sample);
    }

    /**
     * Sends a sample whatever its time says of the wall clock (its agent's clock may be off), then
     * lets the updates come out.
     */
    void sendAsStamped(TelemetrySample sample) {
        telemetry.pipeInput(new TestRecord<>(sample.gpuUuid(), Json.write(sample), sample.time()));
        sendUpdates();
    }

    /**
     * Sends a sample as a broker that dates records (LogAppendTime) hands it on: its record
     * timestamp is when the broker took it, whatever the sample says; then lets the updates come out.
     */
    void sendTakenAt(TelemetrySample sample, Instant taken) {
        telemetry.pipeInput(new TestRecord<>(sample.gpuUuid(), Json.write(sample), taken));
        sendUpdates();
    }

    /** Sends a work report dated by the broker that took it at {@code taken}, as {@link #sendTakenAt}. */
    void reportTakenAt(JobProgress report, Instant taken) {
        progress.pipeInput(new TestRecord<>(report.jobId(), Json.write(report), taken));
        sendUpdates();
    }

    /** Sends a work report as an agent whose clock is right does: at its time at the earliest. */
    void report(JobProgress report) {
        Duration behind = Duration.between(wallClock, report.time());
        if (!behind.isNegative() && !behind.isZero()) {
            advance(behind);
        }
        reportAsStamped(report);
    }

    /** Sends a work report whatever its time says of the wall clock, then lets the updates come out. */
    void reportAsStamped(JobProgress report) {
        progress.pipeInput(new TestRecord<>(report.jobId(), Json.write(report), report.time()));
        sendUpdates();
    }

    /**
     * Open windows and roll-ups are sent once per update interval of wall-clock time: once for
     * the GPU windows to send their partials, once more for the roll-ups to send theirs.
     */
    void sendUpdates() {
        advance(CostSettings.DEFAULT_UPDATE_INTERVAL);
        advance(CostSettings.DEFAULT_UPDATE_INTERVAL);
    }

    /** Moves the wall clock on; every test moves it through here, so that {@link #send} knows where it stands. */
    void advance(Duration by) {
        driver.advanceWallClockTime(by);
        wallClock = wallClock.plus(by);
    }

    /** Where the driver's wall clock stands. */
    Instant now() {
        return wallClock;
    }

    /** What the engine counted as refused from {@code input} ({@code dead-letters-total}, tag {@code gpuledger-id}). */
    double deadLettersCounted(String input) {
        return driver.metrics().entrySet().stream()
                .filter(e -> e.getKey().name().equals("dead-letters-total")
                        && input.equals(e.getKey().tags().get("gpuledger-id")))
                .mapToDouble(e -> ((Number) e.getValue().metricValue()).doubleValue())
                .sum();
    }

    @Override
    public void close() {
        driver.close();
    }
}
