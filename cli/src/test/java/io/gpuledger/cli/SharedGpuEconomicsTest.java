package io.gpuledger.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.withinPercentage;

import io.gpuledger.ingest.price.PriceCatalog;
import io.gpuledger.ingest.sim.Fleet;
import io.gpuledger.ingest.sim.FleetSimulation;
import io.gpuledger.ingest.sim.SharedTenant;
import io.gpuledger.ingest.sim.SimulationSettings;
import io.gpuledger.ingest.sim.SimulationStep;
import io.gpuledger.ingest.sim.Tally;
import io.gpuledger.ingest.sim.Work;
import io.gpuledger.ingest.sim.Workload;
import io.gpuledger.model.JobEconomics;
import io.gpuledger.model.JobProgress;
import io.gpuledger.model.Json;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.TelemetrySample;
import io.gpuledger.model.Topics;
import io.gpuledger.streams.CostEngineConfig;
import io.gpuledger.streams.cost.CostTopology;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;

/**
 * What a job on a shared GPU pays per million units of its work: its share of the GPU's cost over its own units.
 * A simulated fleet of which half the GPUs are time-sliced, whose inference replicas report their work, runs
 * through the cost engine's topology; each replica's {@code gpu.job-economics.v1} minutes must add up to the
 * simulator's ground truth.
 *
 * <p>The reference is the simulator's: each replica is charged the milliseconds its GPU's scheduler gave it out of
 * the demands it drew (at the price in force at the interval's middle), and its units are what it did in that time.
 * The engine sees neither: it reads the shares the samples carry and the reports the replicas send, and charges the
 * shares. The two agree because the simulated agent measures each process's time exactly, to the millisecond.
 */
class SharedGpuEconomicsTest {

    private static final String APPLICATION = "shared-gpu-economics";
    private static final Instant START = Instant.parse("2026-03-02T10:00:00Z");
    private static final Duration INTERVAL = Duration.ofSeconds(30);
    private static final Duration SPAN = Duration.ofHours(2);
    /** Beyond the span, so that the engine's clock passes the last minute's end and its grace: every minute closes. */
    private static final Duration AFTER = Duration.ofMinutes(5);
    private static final double PERCENT = 0.01;

    @Test
    void shouldChargeEachReplicaOnASharedGpuItsShareOfTheCostPerMillionOfItsOwnUnits() {
        // Given a fleet bought in US dollars, half of its GPUs time-sliced, whose spot prices move, and whose
        // replicas on the shared GPUs report the units they do
        List<PriceQuote> catalog = PriceCatalog.loadDefault().quotes().stream()
                .filter(quote -> quote.currency().equals("USD")).toList();
        FleetSimulation simulation = new FleetSimulation(Fleet.generate(24, catalog, 7, 0.5), catalog,
                SimulationSettings.defaults(INTERVAL).withSpotInterruptionsPerInstanceHour(0)
                        .withSpotPriceChangesPerOfferHour(6), 7, START);
        List<String> replicas = simulation.fleet().tenants().stream()
                .filter(tenant -> tenant.workload() == Workload.INFERENCE).map(SharedTenant::id).toList();
        assertThat(replicas).hasSizeGreaterThan(1);

        // When two hours of it run through the engine, and then a few minutes more, which close the last minutes
        Map<String, JobEconomics> minutes = new HashMap<>();
        Map<String, Tally> costs;
        Map<String, Work> work;
        Map<String, Tally> gpus;
        try (Engine engine = new Engine(catalog)) {
            Instant spanEnd = START.plus(SPAN);
            while (!simulation.nextEnd().isAfter(spanEnd)) {
                engine.send(simulation.next());
            }
            costs = new HashMap<>(simulation.groundTruth().byJob());
            work = new HashMap<>(simulation.groundTruth().workByJob());
            gpus = new HashMap<>(simulation.groundTruth().byGpu());
            simulation.run(AFTER, engine::send);
            engine.economics().forEach(minute -> {
                if (minute.windowStart().isBefore(spanEnd)) {
                    minutes.put(minute.jobId() + "|" + minute.windowStart(), minute);
                }
            });
        }

        // Then each replica's minutes hold its own units, and the cost per million units of each minute, weighted by
        // the minute's units, adds up to what the simulator charged it for the time it was given
        double worst = 0;
        for (String replica : replicas) {
            List<JobEconomics> own = minutes.values().stream().filter(minute -> minute.jobId().equals(replica))
                    .toList();
            Work truth = work.get(replica);
            assertThat(truth).as("work of %s", replica).isNotNull();
            assertThat(own).as(replica).isNotEmpty().allSatisfy(minute -> {
                assertThat(minute.throughputReported()).isTrue();
                assertThat(minute.costPerMillionUnits()).containsOnlyKeys(truth.unit());
                assertThat(minute.sharedGpuSeconds()).isPositive();
            });
            double units = own.stream().mapToDouble(minute -> minute.workUnits().get(truth.unit())).sum();
            double costOfUnits = own.stream().mapToDouble(minute -> minute.costPerMillionUnits().get(truth.unit())
                    * minute.workUnits().get(truth.unit()) / 1e6).sum();
            assertThat(units).as("units of %s", replica).isEqualTo(truth.units());
            assertThat(costOfUnits).as("cost of the units of %s", replica)
                    .isCloseTo(costs.get(replica).cost(), withinPercentage(PERCENT));
            double expected = truth.costPerMillionUnits(costs.get(replica));
            assertThat(costOfUnits / units * 1e6).as("cost per million units of %s", replica)
                    .isCloseTo(expected, withinPercentage(PERCENT));
            worst = Math.max(worst, Math.abs(costOfUnits / units * 1e6 - expected) / expected);
        }
        System.out.printf("shared GPU economics: %d replicas, %d job minutes; largest relative error of a replica's "
                + "cost per million units: %.2e%n", replicas.size(), minutes.size(), worst);

        // And what they paid is a share of their GPUs' cost, well below the whole of it: a replica charged its whole
        // GPU would be told apart
        double replicasCost = replicas.stream().mapToDouble(replica -> costs.get(replica).cost()).sum();
        assertThat(replicasCost).isLessThan(0.9 * sharedGpuCost(simulation, gpus));
    }

    /** What the fleet's shared GPUs cost over the span, whole. */
    private static double sharedGpuCost(FleetSimulation simulation, Map<String, Tally> gpus) {
        return simulation.fleet().gpus().stream().filter(gpu -> gpu.job().shared())
                .mapToDouble(gpu -> gpus.get(gpu.uuid()).cost()).sum();
    }

    /**
     * The engine's cost topology under {@link TopologyTestDriver}, fed a simulation's rounds as they end: its prices,
     * samples and work reports, the wall clock moving on by a round each time, as the simulator publishes them.
     */
    private static final class Engine implements AutoCloseable {
        private final TopologyTestDriver driver;
        private final TestInputTopic<String, PriceQuote> prices;
        private final TestInputTopic<String, byte[]> telemetry;
        private final TestInputTopic<String, byte[]> progress;
        private final TestOutputTopic<String, JobEconomics> economics;
        private final List<JobEconomics> sent = new ArrayList<>();

        Engine(List<PriceQuote> catalog) {
            CostEngineConfig config = CostEngineConfig.defaults("127.0.0.1:9", Path.of("unused"));
            Properties props = new Properties();
            props.put(StreamsConfig.APPLICATION_ID_CONFIG, APPLICATION);
            props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:9");
            driver = new TopologyTestDriver(CostTopology.build(config.costSettings()), props, START);
            prices = driver.createInputTopic(Topics.PRICES.name(), Topics.PRICES.keySerde().serializer(),
                    Topics.PRICES.valueSerde().serializer());
            telemetry = driver.createInputTopic(Topics.TELEMETRY.name(), Serdes.String().serializer(),
                    Serdes.ByteArray().serializer());
            progress = driver.createInputTopic(Topics.JOB_PROGRESS.name(), Serdes.String().serializer(),
                    Serdes.ByteArray().serializer());
            economics = driver.createOutputTopic(Topics.JOB_ECONOMICS.name(),
                    Topics.JOB_ECONOMICS.keySerde().deserializer(), Topics.JOB_ECONOMICS.valueSerde().deserializer());
            for (PriceQuote quote : catalog) {
                PriceQuote read = quote.readAt(START);
                prices.pipeInput(read.key(), read, START);
            }
        }

        void send(SimulationStep step) {
            driver.advanceWallClockTime(INTERVAL);
            List<PriceQuote> quotes = new ArrayList<>(step.priceChanges());
            quotes.addAll(step.priceConfirmations());
            quotes.forEach(quote -> prices.pipeInput(quote.key(), quote, quote.observedAt()));
            for (TelemetrySample sample : step.telemetry()) {
                telemetry.pipeInput(new TestRecord<>(sample.gpuUuid(), Json.write(sample), sample.time()));
            }
            for (JobProgress report : step.progress()) {
                progress.pipeInput(new TestRecord<>(report.jobId(), Json.write(report), report.time()));
            }
            sent.addAll(economics.readValuesToList());
        }

        /** Everything the engine sent on {@code gpu.job-economics.v1}, oldest first: a minute's latest is its own. */
        List<JobEconomics> economics() {
            driver.advanceWallClockTime(Duration.ofSeconds(15));
            sent.addAll(economics.readValuesToList());
            return List.copyOf(sent);
        }

        @Override
        public void close() {
            driver.close();
        }
    }
}
