package io.gpuledger.cli;

import io.gpuledger.ingest.kafka.Producers;
import io.gpuledger.ingest.price.PriceFeed;
import io.gpuledger.ingest.sim.Fleet;
import io.gpuledger.ingest.sim.FleetSimulation;
import io.gpuledger.ingest.sim.FleetSimulator;
import io.gpuledger.ingest.sim.SimulationSettings;
import io.gpuledger.ingest.sim.Workload;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.Topics;
import java.io.PrintStream;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;

/**
 * The simulated fleet of {@code gpu-ledger demo} and {@code gpu-ledger simulate}: its catalog's
 * prices, then, as the wall clock reaches the end of each round, the fleet's samples, work reports,
 * spot notices, spot price moves and, every ten minutes, confirmations of the prices in force, on
 * the topics node agents and the price feed write.
 */
public final class SimulatedFleet implements AutoCloseable {

    public static final long SEED = 42;

    private final Fleet fleet;
    private final KafkaProducer<byte[], byte[]> records;
    private final FleetSimulator simulator;

    private SimulatedFleet(Fleet fleet, KafkaProducer<byte[], byte[]> records, FleetSimulator simulator) {
        this.fleet = fleet;
        this.records = records;
        this.simulator = simulator;
    }

    /** Publishes every price version of the catalog, observed now as a feed reading it would; returns how many. */
    public static int publishPrices(List<PriceQuote> quotes, String bootstrap, String clientId) {
        Instant now = Clock.systemUTC().instant();
        try (KafkaProducer<String, PriceQuote> producer = Producers.forTopic(Topics.PRICES, bootstrap, clientId)) {
            return new PriceFeed(producer).publish(quotes.stream().map(quote -> quote.readAt(now)).toList());
        }
    }

    /** Starts publishing the fleet {@code options} describe, priced from {@code quotes}. */
    static SimulatedFleet start(DemoOptions options, List<PriceQuote> quotes, String bootstrap, String clientId) {
        return start(simulation(options, quotes, firstRoundStart(options)), bootstrap, clientId);
    }

    /** The first round covers the interval that ends now, so the fleet shows up at once. */
    static Instant firstRoundStart(DemoOptions options) {
        return Clock.systemUTC().instant().truncatedTo(ChronoUnit.SECONDS).minus(options.interval());
    }

    /** Starts publishing {@code simulation}: the rounds whose end has passed at once, then each as its end comes. */
    public static SimulatedFleet start(FleetSimulation simulation, String bootstrap, String clientId) {
        KafkaProducer<byte[], byte[]> records = Producers.forTopics(bootstrap, clientId);
        FleetSimulator simulator = new FleetSimulator(simulation, records, Clock.systemUTC());
        simulator.start();
        return new SimulatedFleet(simulation.fleet(), records, simulator);
    }

    /** The fleet {@code options} describe, priced from {@code quotes}, its first round beginning at {@code start}. */
    static FleetSimulation simulation(DemoOptions options, List<PriceQuote> quotes, Instant start) {
        Fleet fleet = Fleet.generate(options.gpus(), quotes, SEED, options.sharedFraction());
        SimulationSettings settings = SimulationSettings.defaults(options.interval())
                .withSpotInterruptionsPerInstanceHour(options.spotInterruptionsPerHour())
                .withSpotPriceChangesPerOfferHour(options.priceChangesPerHour());
        return new FleetSimulation(fleet, quotes, settings, SEED, start);
    }

    Fleet fleet() {
        return fleet;
    }

    FleetSimulator simulator() {
        return simulator;
    }

    /** What runs, in two lines: the fleet's mix, then where its records go. */
    void describe(DemoOptions options, PrintStream out) {
        Map<Workload, Integer> gpus = fleet.gpusByWorkload();
        out.println("Fleet          " + fleet.gpus().size() + " simulated GPUs on " + fleet.instances().size()
                + " instances: " + gpus.getOrDefault(Workload.DISTRIBUTED_TRAINING, 0) + " in multi-node training, "
                + gpus.getOrDefault(Workload.TRAINING, 0) + " in single-node training, "
                + gpus.getOrDefault(Workload.INFERENCE, 0) + " serving, "
                + gpus.getOrDefault(Workload.SHARED, 0) + " shared by " + fleet.tenants().size() + " jobs, "
                + (gpus.getOrDefault(Workload.NOTEBOOK, 0) + gpus.getOrDefault(Workload.UNALLOCATED, 0)) + " idle");
        out.println("               samples and work reports every " + options.interval().toSeconds() + " s to "
                + Topics.TELEMETRY.name() + " and " + Topics.JOB_PROGRESS.name() + ";");
        out.println("               spot interruptions (" + options.spotInterruptionsPerHour()
                + " per spot instance-hour) to "
                + Topics.CAPACITY_EVENTS.name() + ", spot price moves (" + options.priceChangesPerHour()
                + " per offer-hour) and confirmations of every price in force (every "
                + PriceQuote.CONFIRMATION_INTERVAL.toMinutes() + " minutes) to " + Topics.PRICES.name());
    }

    @Override
    public void close() {
        simulator.close();
        records.close();
    }
}
