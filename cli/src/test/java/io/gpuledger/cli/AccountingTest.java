package io.gpuledger.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.withinPercentage;

import io.gpuledger.broker.EmbeddedKafka;
import io.gpuledger.cli.UsageLedger.Window;
import io.gpuledger.ingest.kafka.Producers;
import io.gpuledger.ingest.price.PriceCatalog;
import io.gpuledger.ingest.price.PriceFeed;
import io.gpuledger.ingest.sim.Fleet;
import io.gpuledger.ingest.sim.FleetSimulation;
import io.gpuledger.ingest.sim.GroundTruth;
import io.gpuledger.ingest.sim.SimulatedJob;
import io.gpuledger.ingest.sim.SimulationSettings;
import io.gpuledger.ingest.sim.SimulationStep;
import io.gpuledger.ingest.sim.Tally;
import io.gpuledger.model.GpuUsage;
import io.gpuledger.model.Offer;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.TelemetrySample;
import io.gpuledger.model.TopicAdmin;
import io.gpuledger.model.Topics;
import io.gpuledger.streams.CostEngineProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.AnnotatedElementContext;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.io.TempDirFactory;

/**
 * Accounting through crashes: a simulated fleet with a known ground truth (price in force ×
 * time) over a simulated day, published to an embedded broker while the cost engine runs as its
 * own process and is killed (SIGKILL) twice mid-stream, restarted once on its own state and once
 * on an empty state directory. What a downstream reader keeps of {@code gpu.usage.v1} (committed
 * records, the last of each window) must add up, per GPU, job and pool, to the ground truth, and
 * no window may hold more than its own samples.
 */
class AccountingTest {

    private static final int GPUS = 96;
    private static final long SEED = 11;
    /**
     * The simulated day ends an hour or two before now. Kafka deletes records by their timestamps
     * (7 days on the topics, a day beyond the window on the engine's changelog), and refuses ones
     * more than an hour ahead of its clock: a fixed date would age out from under the test.
     */
    private static final Instant DAY = Instant.now().truncatedTo(ChronoUnit.HOURS).minus(Duration.ofHours(25));
    /** Two samples a window, so that a kill can fall between the halves of one window. */
    private static final Duration INTERVAL = Duration.ofSeconds(30);
    /**
     * One partition: replaying a day costs the engine a RocksDB segment per 90 s of event time
     * and partition (its window store keeps 3 minutes, in segments of half that), opened and
     * dropped on the stream thread, and again on every restore; see docs/benchmarks.md.
     */
    private static final int PARTITIONS = 1;
    private static final String APPLICATION = "accounting-engine";
    /** Restarted under one name, as a supervisor restarts a crashed instance: it takes its partitions back at once. */
    private static final String INSTANCE = "accounting-engine-0";
    /** The day goes out in slices a little apart, so that the engine dies while input still flows (and behind it). */
    private static final int SLICES = 60;
    private static final Duration SLICE_PAUSE = Duration.ofMillis(20);
    private static final double PERCENT = 0.01;

    @TempDir(factory = InMemoryWhereAvailable.class)
    Path dir;

    @Test
    void shouldChargeEachGpuJobAndPoolItsGroundTruthOnceThoughTheEngineIsKilledTwiceMidStream() throws Exception {
        // Given a simulated day of a fleet bought in US dollars, with spot interruptions and spot price moves
        List<PriceQuote> catalog = PriceCatalog.loadDefault().quotes().stream()
                .filter(quote -> quote.currency().equals("USD")).toList();
        SimulationSettings settings = SimulationSettings.defaults(INTERVAL)
                .withSpotInterruptionsPerInstanceHour(0.2).withSpotPriceChangesPerOfferHour(4);
        Fleet fleet = Fleet.generate(GPUS, catalog, SEED);
        FleetSimulation simulation = new FleetSimulation(fleet, catalog, settings, SEED, DAY);
        List<SimulationStep> day = new ArrayList<>();
        simulation.run(Duration.ofDays(1), day::add);
        List<PriceQuote> prices = new ArrayList<>(catalog);
        day.forEach(step -> prices.addAll(step.priceChanges()));
        assertThat(prices).hasSizeGreaterThan(catalog.size());
        assertThat(simulation.interruptions()).isPositive();

        Map<Window, Expected> expected = expectedWindows(day, prices);
        long samples = day.stream().mapToLong(step -> step.telemetry().size()).sum();
        UsageTotals charged;
        long lagAtFirstKill;
        long lagAtSecondKill;
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            String bootstrap = kafka.bootstrapServers();
            TopicAdmin.ensureTopics(bootstrap, PARTITIONS);
            // Every price version goes out before any sample: the engine's price table is a global
            // store read by its own thread, so a version sent just ahead of the samples it prices
            // could still be missed by them (see docs/architecture.md, limits).
            try (KafkaProducer<String, PriceQuote> producer =
                    Producers.forTopic(Topics.PRICES, bootstrap, "accounting-prices")) {
                new PriceFeed(producer).publish(prices);
            }

            List<CostEngineProcess> engines = new ArrayList<>();
            ExecutorService publishing = Executors.newSingleThreadExecutor();
            try (UsageLedger ledger = new UsageLedger(bootstrap);
                    GroupProgress progress = new GroupProgress(bootstrap)) {
                // When the engine runs as its own process while the day is published
                Path state = dir.resolve("state");
                engines.add(startEngine(bootstrap, state, "engine-1"));
                Future<?> publisher = publishing.submit(() -> {
                    publish(bootstrap, day);
                    return null;
                });

                // And it is killed once its committed input reaches a third of the day, and restarted on its state
                lagAtFirstKill = killWhenInputReaches(1.0 / 3, samples, engines.get(0), progress);
                engines.add(startEngine(bootstrap, state, "engine-2"));

                // And killed again at two thirds, and restarted on an empty state directory
                lagAtSecondKill = killWhenInputReaches(2.0 / 3, samples, engines.get(1), progress);
                engines.add(startEngine(bootstrap, dir.resolve("empty-state"), "engine-3"));

                // And the last engine reads the day to its end
                publisher.get(2, TimeUnit.MINUTES);
                awaitCaughtUp(progress, engines.get(2));
                // The windows still open at the day's end (its last minutes, within the grace
                // period) are sent at the engine's next update, a moment after its last commit.
                ledger.readUntil(windows -> windows.containsAll(expected.keySet()), Duration.ofSeconds(20));
                charged = new UsageTotals(ledger.windows(), ledger.records(),
                        progress.end(Topics.TELEMETRY_DEAD_LETTERS.name()));
            } finally {
                publishing.shutdownNow();
                for (CostEngineProcess engine : engines) {
                    engine.close();
                }
            }
        }
        System.out.printf("accounting: %d samples in %d windows, %d usage records read; lag when killed: %d, %d%n",
                samples, expected.size(),
                charged.records(), lagAtFirstKill, lagAtSecondKill);

        // Then each kill came mid-stream: the engine died with input it had not committed
        assertThat(lagAtFirstKill).isPositive();
        assertThat(lagAtSecondKill).isPositive();

        // And every sample landed in its window, none refused, and no window holds more than its own samples
        assertThat(charged.deadLetters()).isZero();
        assertThat(difference(expected.keySet(), charged.windows().keySet())).as("windows missing").isEmpty();
        assertThat(difference(charged.windows().keySet(), expected.keySet())).as("windows of no sample").isEmpty();
        assertThat(overcounted(charged.windows(), expected)).isEmpty();

        // And the totals per GPU, per job and per pool are the ground truth's, to 0.01%
        GroundTruth truth = simulation.groundTruth();
        assertSameCost("GPU", charged.costBy(GpuUsage::gpuUuid), truth.byGpu(), Function.identity());
        Map<String, SimulatedJob> jobs = fleet.jobs().stream()
                .collect(Collectors.toMap(SimulatedJob::id, Function.identity()));
        assertSameCost("job", charged.costBy(usage -> jobKey(usage.jobId(), usage.offer())), truth.byJob(),
                id -> jobKey(jobs.get(id).reportedJobId(), jobs.get(id).offer()));
        assertSameCost("pool", charged.costBy(usage -> usage.offer().key()), truth.byPool(), Function.identity());
    }

    private CostEngineProcess startEngine(String bootstrap, Path state, String name)
            throws IOException, InterruptedException {
        CostEngineProcess engine = CostEngineProcess.start(System.getProperty("java.class.path"), List.of("-Xmx384m"),
                List.of("--bootstrap-servers", bootstrap, "--application-id", APPLICATION,
                        "--state-dir", state.toString(), "--instance-id", INSTANCE),
                dir.resolve(name + ".log"));
        try {
            engine.awaitRunning(Duration.ofSeconds(90));
        } catch (RuntimeException e) {
            engine.close();
            throw e;
        }
        return engine;
    }

    /**
     * Kills the engine (SIGKILL) once its committed input reaches {@code share} of the day's
     * samples; returns the input it left uncommitted. Watching the input rather than the output:
     * the engine commits a second's work at a time, and reading its output back here is slower
     * than the engine writes it.
     */
    private static long killWhenInputReaches(double share, long samples, CostEngineProcess engine,
            GroupProgress progress) throws InterruptedException {
        long mark = (long) (share * samples);
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        while (progress.committed(APPLICATION, Topics.TELEMETRY.name()) < mark) {
            if (!engine.isAlive() || System.nanoTime() > deadline) {
                throw new AssertionError("the engine did not commit " + mark + " samples (it is at "
                        + progress.committed(APPLICATION, Topics.TELEMETRY.name()) + "); its log: " + engine.log()
                        + "\n" + engine.tail());
            }
            Thread.sleep(20);
        }
        engine.kill();
        return progress.lag(APPLICATION, Topics.TELEMETRY.name());
    }

    private static void awaitCaughtUp(GroupProgress progress, CostEngineProcess engine) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        while (progress.lag(APPLICATION, Topics.TELEMETRY.name()) > 0) {
            if (!engine.isAlive() || System.nanoTime() > deadline) {
                throw new AssertionError("the engine did not commit the whole day; its log: " + engine.log() + "\n"
                        + engine.tail());
            }
            Thread.sleep(200);
        }
    }

    /**
     * The day's samples in simulated-time order, as agents send them: a GPU's samples in the
     * order they were taken, so that no window closes before its samples are in.
     */
    private static void publish(String bootstrap, List<SimulationStep> day) throws InterruptedException {
        AtomicReference<Exception> failure = new AtomicReference<>();
        int roundsPerSlice = (day.size() + SLICES - 1) / SLICES;
        try (KafkaProducer<byte[], byte[]> producer = Producers.forTopics(bootstrap, "accounting-fleet")) {
            for (int round = 0; round < day.size(); round++) {
                for (TelemetrySample sample : day.get(round).telemetry()) {
                    producer.send(Producers.record(Topics.TELEMETRY, sample.time().toEpochMilli(), sample.gpuUuid(),
                            sample), (metadata, error) -> {
                                if (error != null) {
                                    failure.compareAndSet(null, error);
                                }
                            });
                }
                if ((round + 1) % roundsPerSlice == 0) {
                    producer.flush();
                    Thread.sleep(SLICE_PAUSE.toMillis());
                }
            }
            producer.flush();
        }
        if (failure.get() != null) {
            throw new IllegalStateException("a sample was not published", failure.get());
        }
    }

    /**
     * What each window must hold, worked out from the samples alone: a sample belongs to the
     * one-minute window (aligned to the epoch) that holds the middle of its interval, and can cost
     * at most its GPU-time at the dearest price its offer had that day.
     */
    private static Map<Window, Expected> expectedWindows(List<SimulationStep> day, List<PriceQuote> prices) {
        Map<String, Double> dearestPerGpuHour = new HashMap<>();
        prices.forEach(quote -> dearestPerGpuHour.merge(quote.offer().key(), quote.pricePerGpuHour(), Math::max));
        Map<Window, Expected> expected = new HashMap<>();
        for (SimulationStep step : day) {
            for (TelemetrySample sample : step.telemetry()) {
                Instant middle = sample.time().minusMillis(Math.round(sample.intervalSeconds() * 500));
                Window window = new Window(sample.gpuUuid(), middle.truncatedTo(ChronoUnit.MINUTES));
                double ceiling = dearestPerGpuHour.get(sample.offer().key()) * sample.chargedFraction()
                        * sample.intervalSeconds() / 3600;
                expected.merge(window, new Expected(1, sample.intervalSeconds(), ceiling), Expected::plus);
            }
        }
        return expected;
    }

    /** Windows whose total holds other samples, time or money than their own samples can account for. */
    private static List<String> overcounted(Map<Window, GpuUsage> windows, Map<Window, Expected> expected) {
        List<String> wrong = new ArrayList<>();
        windows.forEach((window, usage) -> {
            Expected own = expected.get(window);
            if (own == null) {
                return;
            }
            if (usage.samples() != own.samples() || Math.abs(usage.secondsObserved() - own.seconds()) > 1e-9
                    || usage.unpricedSeconds() != 0 || usage.cost() > own.ceiling() * (1 + 1e-12)) {
                wrong.add(window + ": " + usage.samples() + " samples, " + usage.secondsObserved() + " s, cost "
                        + usage.cost() + "; its samples: " + own);
            }
        });
        return wrong;
    }

    private static Set<Window> difference(Set<Window> these, Set<Window> those) {
        Set<Window> rest = new HashSet<>(these);
        rest.removeAll(those);
        return rest;
    }

    private static void assertSameCost(String what, Map<String, Double> charged, Map<String, Tally> truth,
            Function<String, String> key) {
        Map<String, Double> expected = new HashMap<>();
        truth.forEach((id, tally) -> expected.merge(key.apply(id), tally.cost(), Double::sum));
        assertThat(charged.keySet()).as("%s keys", what).containsExactlyInAnyOrderElementsOf(expected.keySet());
        expected.forEach((id, cost) -> assertThat(charged.get(id)).as("cost of %s %s", what, id)
                .isCloseTo(cost, withinPercentage(PERCENT)));
    }

    /**
     * A job as the usage topic can tell it: by its id, except that capacity running no job says
     * {@code unknown} on the wire, which is told apart by its pool.
     */
    private static String jobKey(String reportedJobId, Offer offer) {
        return reportedJobId == null || reportedJobId.equals(TelemetrySample.UNKNOWN_JOB)
                ? TelemetrySample.UNKNOWN_JOB + "|" + offer.key() : reportedJobId;
    }

    /**
     * The engine's state on tmpfs where the machine has one (Linux: /dev/shm). A process killed
     * loses nothing written there, so the crash is the same; but each RocksDB segment the
     * engine opens no longer waits for the disk, which made up half of this test's time.
     */
    static final class InMemoryWhereAvailable implements TempDirFactory {
        @Override
        public Path createTempDirectory(AnnotatedElementContext element, ExtensionContext extension)
                throws IOException {
            Path shm = Path.of("/dev/shm");
            return Files.isDirectory(shm) && Files.isWritable(shm)
                    ? Files.createTempDirectory(shm, "gpu-ledger-accounting-")
                    : Files.createTempDirectory("gpu-ledger-accounting-");
        }
    }

    private record Expected(long samples, double seconds, double ceiling) {
        Expected plus(Expected other) {
            return new Expected(samples + other.samples, seconds + other.seconds, ceiling + other.ceiling);
        }
    }

    private record UsageTotals(Map<Window, GpuUsage> windows, long records, long deadLetters) {
        Map<String, Double> costBy(Function<GpuUsage, String> key) {
            Map<String, Double> sums = new HashMap<>();
            windows.values().forEach(usage -> sums.merge(key.apply(usage), usage.cost(), Double::sum));
            return sums;
        }
    }
}
