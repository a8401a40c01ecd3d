package io.gpuledger.cli;

import io.gpuledger.alerts.ShippedSettings;
import io.gpuledger.alerts.fleet.FleetBoard;
import io.gpuledger.alerts.recommend.GpuCatalog;
import io.gpuledger.alerts.recommend.RecommendationBook;
import io.gpuledger.alerts.recommend.RecommendationDesk;
import io.gpuledger.alerts.recommend.RecommendationRules;
import io.gpuledger.ingest.sim.FleetSimulation;
import io.gpuledger.ingest.sim.SimulationStep;
import io.gpuledger.model.CapacityEvent;
import io.gpuledger.model.CloudEvent;
import io.gpuledger.model.CurrencyRates;
import io.gpuledger.model.GpuHour;
import io.gpuledger.model.GpuUsage;
import io.gpuledger.model.JobEconomics;
import io.gpuledger.model.JobProgress;
import io.gpuledger.model.Json;
import io.gpuledger.model.MovableClock;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.Recommendation;
import io.gpuledger.model.TelemetrySample;
import io.gpuledger.model.Topics;
import io.gpuledger.model.UsageRollup;
import io.gpuledger.streams.CostEngineConfig;
import io.gpuledger.streams.cost.CostTopology;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;

/**
 * What {@code gpu-ledger demo} runs, in this JVM on a simulated clock: its fleet's records through
 * the cost topology the demo's engine runs (its grace), under {@link TopologyTestDriver}, and the
 * engine's windows, roll-ups and economics, the prices, work reports and capacity notices into the
 * alert service's recommendation rules, configured as the demo configures the service. Records go
 * where the alert service takes them: a notice is joined with the GPUs last seen on its instance
 * and judged at once, the rest when the engine sends it.
 */
final class DemoPipeline implements AutoCloseable {

    private static final String APPLICATION = "demo-pipeline";
    /** The alert service's defaults (application.properties) that the demo does not set. */
    private static final Duration DISMISS_FOR = Duration.ofDays(7);
    private static final Duration STALE_AFTER = Duration.ofMinutes(5);
    private static final Duration PLACEMENT_MAX_AGE = Duration.ofMinutes(10);
    private static final Duration SWEEP_EVERY = Duration.ofSeconds(30);
    /** How often the driver's wall clock ticks: the engine's updates go out on it. */
    private static final Duration TICK = Duration.ofSeconds(1);
    /** Long enough without input for the engine to send what it held back while it worked off a backlog. */
    private static final Duration QUIET = Duration.ofSeconds(15);

    private final MovableClock clock;
    private final TopologyTestDriver engine;
    private final TestInputTopic<String, PriceQuote> prices;
    private final TestInputTopic<String, byte[]> telemetry;
    private final TestInputTopic<String, byte[]> progress;
    private final TestOutputTopic<String, GpuUsage> usage;
    private final TestOutputTopic<String, UsageRollup> rollups;
    private final TestOutputTopic<String, JobEconomics> economics;
    private final TestOutputTopic<String, GpuHour> hoursTopic;
    private final List<GpuHour> hours = new ArrayList<>();
    private final List<GpuUsage> closedWindows = new ArrayList<>();
    private final List<TestOutputTopic<byte[], byte[]>> changelogs;
    private final MockProducer<String, CloudEvent<Recommendation>> published;
    private final RecommendationRules rules;
    private final FleetBoard board = new FleetBoard(STALE_AFTER);
    private final List<Recommendation> news = new ArrayList<>();
    private Instant nextSweep;

    /**
     * @param catalog the prices the demo publishes before its fleet starts
     * @param start   the simulated wall clock at the start: where the fleet's first round ends
     */
    DemoPipeline(DemoOptions options, List<PriceQuote> catalog, Instant start) {
        clock = new MovableClock(start);
        CostEngineConfig config = CostEngineConfig.defaults("127.0.0.1:9", Path.of("unused"))
                .withGrace(options.grace());
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, APPLICATION);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:9");
        engine = new TopologyTestDriver(CostTopology.build(config.costSettings()), props, start);
        prices = engine.createInputTopic(Topics.PRICES.name(), Topics.PRICES.keySerde().serializer(),
                Topics.PRICES.valueSerde().serializer());
        telemetry = engine.createInputTopic(Topics.TELEMETRY.name(), Serdes.String().serializer(),
                Serdes.ByteArray().serializer());
        progress = engine.createInputTopic(Topics.JOB_PROGRESS.name(), Serdes.String().serializer(),
                Serdes.ByteArray().serializer());
        usage = engine.createOutputTopic(Topics.USAGE.name(), Topics.USAGE.keySerde().deserializer(),
                Topics.USAGE.valueSerde().deserializer());
        rollups = engine.createOutputTopic(Topics.ROLLUPS.name(), Topics.ROLLUPS.keySerde().deserializer(),
                Topics.ROLLUPS.valueSerde().deserializer());
        economics = engine.createOutputTopic(Topics.JOB_ECONOMICS.name(), Topics.JOB_ECONOMICS.keySerde()
                .deserializer(), Topics.JOB_ECONOMICS.valueSerde().deserializer());
        hoursTopic = engine.createOutputTopic(Topics.HOURS.name(), Topics.HOURS.keySerde().deserializer(),
                Topics.HOURS.valueSerde().deserializer());
        changelogs = engine.getAllStateStores().keySet().stream()
                .map(store -> engine.createOutputTopic(APPLICATION + "-" + store + "-changelog",
                        Serdes.ByteArray().deserializer(), Serdes.ByteArray().deserializer()))
                .toList();
        published = new MockProducer<>(true, null, new StringSerializer(),
                Topics.RECOMMENDATIONS.valueSerde().serializer());
        RecommendationDesk desk = new RecommendationDesk(new RecommendationBook(DISMISS_FOR), published,
                new SimpleMeterRegistry(), clock, "USD");
        // The rules' settings as the alert service reads them: the demo's environment over the shipped values
        rules = new RecommendationRules(desk, GpuCatalog.defaults(),
                ShippedSettings.fromEnvironment(options.alertSettings()), CurrencyRates.shipped("USD"));
        nextSweep = start.plus(SWEEP_EVERY);
        for (PriceQuote quote : catalog) {
            PriceQuote read = quote.readAt(start);
            prices.pipeInput(read.key(), read, start);
            rules.onPrice(read);
        }
    }

    /**
     * Runs {@code simulation} until its clock reaches {@code until}: each round is sent when the
     * simulated wall clock reaches its end, as the demo's simulator sends it, and the wall clock
     * then ticks on to the next round's end while the engine's updates are taken.
     */
    void run(FleetSimulation simulation, Instant until) {
        while (!simulation.nextEnd().isAfter(until)) {
            SimulationStep step = simulation.next();
            tickUntil(step.end());
            send(step);
        }
        tickUntil(until);
    }

    /**
     * Sends the samples and work reports of every round of {@code past} that ends by {@code until},
     * {@code pace} of it for each second of the wall clock, as the demo sends a pool's history
     * ({@link io.gpuledger.ingest.sim.FleetSimulator#backfill}), then lets the engine's updates out.
     */
    void backfill(FleetSimulation past, Instant until, Duration pace) {
        Instant began = clock.instant();
        Instant from = past.now();
        while (!past.nextEnd().isAfter(until)) {
            SimulationStep step = past.next();
            sendWork(step);
            tickUntil(began.plusMillis(Duration.between(from, step.end()).toMillis() * 1000 / pace.toMillis()));
        }
        tickUntil(clock.instant().plus(QUIET));
    }

    /** Everything the desk published so far, oldest first. */
    List<Recommendation> published() {
        return List.copyOf(news);
    }

    Instant now() {
        return clock.instant();
    }

    /** The GPU hours the engine sent so far, in order. */
    List<GpuHour> hours() {
        return List.copyOf(hours);
    }

    /** The closed minute windows the engine sent so far, in order. */
    List<GpuUsage> closedWindows() {
        return List.copyOf(closedWindows);
    }

    private void send(SimulationStep step) {
        for (CapacityEvent notice : step.capacityEvents()) {
            rules.onCapacityEvent(board.enrich(notice, PLACEMENT_MAX_AGE), clock.instant());
        }
        for (PriceQuote quote : concat(step.priceChanges(), step.priceConfirmations())) {
            prices.pipeInput(quote.key(), quote, quote.observedAt());
            rules.onPrice(quote);
        }
        sendWork(step);
        take();
    }

    private void sendWork(SimulationStep step) {
        for (TelemetrySample sample : step.telemetry()) {
            telemetry.pipeInput(new TestRecord<>(sample.gpuUuid(), Json.write(sample), sample.time()));
        }
        for (JobProgress report : step.progress()) {
            progress.pipeInput(new TestRecord<>(report.jobId(), Json.write(report), report.time()));
            rules.onProgress(report, clock.instant());
        }
    }

    private void tickUntil(Instant until) {
        while (clock.instant().isBefore(until)) {
            Duration step = Duration.between(clock.instant(), until);
            step = step.compareTo(TICK) < 0 ? step : TICK;
            engine.advanceWallClockTime(step);
            clock.set(clock.instant().plus(step));
            take();
            if (!clock.instant().isBefore(nextSweep)) {
                rules.sweep(clock.instant());
                board.sweep(clock.instant());
                nextSweep = nextSweep.plus(SWEEP_EVERY);
            }
        }
    }

    /** What the engine sent, to the rules as the alert service's reader hands it over. */
    private void take() {
        Instant now = clock.instant();
        hours.addAll(hoursTopic.readValuesToList());
        for (GpuUsage window : usage.readValuesToList()) {
            if (window.closed()) {
                closedWindows.add(window);
            }
            board.record(window, now);
            rules.onWindow(window, now);
        }
        for (UsageRollup rollup : rollups.readValuesToList()) {
            if (rollup.dimension() != UsageRollup.Dimension.GPU) {
                rules.onRollup(rollup, now);
            }
        }
        for (JobEconomics minute : economics.readValuesToList()) {
            rules.onEconomics(minute, now);
        }
        // The driver keeps every record the stores log; nothing here reads them back.
        changelogs.forEach(TestOutputTopic::readRecordsToList);
        published.history().stream().map(ProducerRecord::value).map(CloudEvent::data).forEach(news::add);
        published.clear();
    }

    private static <T> List<T> concat(List<T> first, List<T> second) {
        List<T> both = new ArrayList<>(first);
        both.addAll(second);
        return both;
    }

    @Override
    public void close() {
        engine.close();
    }
}
