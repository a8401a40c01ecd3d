package io.gpuledger.ingest.sim;

import io.gpuledger.ingest.price.PriceCatalog;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.TelemetrySample;
import io.gpuledger.model.Topics;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.apache.kafka.common.serialization.Serializer;

/**
 * How fast the simulator produces a round, in simulated time and without Kafka: first the records
 * alone, then written as JSON with the contract's serdes, which is what publishing adds on the
 * simulator's thread. Prints numbers; asserts nothing.
 *
 * <pre>
 * ./mvnw -q -B -pl ingest -am test-compile dependency:build-classpath \
 *     -Dmdep.outputFile=target/classpath.txt -Dmdep.includeScope=test
 * java -cp "ingest/target/test-classes:ingest/target/classes:$(cat ingest/target/classpath.txt)" \
 *     io.gpuledger.ingest.sim.SimulationBenchmark [GPUS, default 10000] [ROUNDS, default 120]
 * </pre>
 *
 * <p>Each measured run is preceded by one just like it, so that the JIT has compiled the hot path.
 */
public final class SimulationBenchmark {

    private static final Instant START = Instant.parse("2026-03-01T00:00:00Z");

    private SimulationBenchmark() {
    }

    public static void main(String[] args) {
        int gpus = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 120;
        List<PriceQuote> catalog = PriceCatalog.loadDefault().quotes();

        long planStart = System.nanoTime();
        Fleet fleet = Fleet.generate(gpus, catalog, 42);
        double planSeconds = (System.nanoTime() - planStart) / 1e9;
        System.out.printf("fleet: %d GPUs on %d instances, %d jobs, laid out in %.3f s%n", fleet.gpus().size(),
                fleet.instances().size(), fleet.jobs().size(), planSeconds);
        System.out.println("GPUs by workload: " + fleet.gpusByWorkload());

        // Hourly rates well above the defaults, so that interruptions and price moves are part of the cost measured.
        SimulationSettings settings = SimulationSettings.defaults(Duration.ofSeconds(10))
                .withSpotInterruptionsPerInstanceHour(0.5).withSpotPriceChangesPerOfferHour(6);

        FleetSimulation warmUp = new FleetSimulation(fleet, catalog, settings, 42, START);
        for (int i = 0; i < rounds; i++) {
            warmUp.next();
        }

        FleetSimulation simulation = new FleetSimulation(fleet, catalog, settings, 42, START);
        long samples = 0;
        long records = 0;
        long started = System.nanoTime();
        for (int i = 0; i < rounds; i++) {
            SimulationStep step = simulation.next();
            samples += step.telemetry().size();
            records += step.records();
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        System.out.printf("generate: %d rounds, %d samples, %d records in %.3f s: %.0f samples/s, %.0f records/s, "
                + "%.1f ms per round%n", rounds, samples, records, seconds, samples / seconds, records / seconds,
                seconds * 1000 / rounds);

        Serializer<TelemetrySample> json = Topics.TELEMETRY.valueSerde().serializer();
        FleetSimulation written = new FleetSimulation(fleet, catalog, settings, 42, START);
        long bytes = 0;
        samples = 0;
        started = System.nanoTime();
        for (int i = 0; i < rounds; i++) {
            for (TelemetrySample sample : written.next().telemetry()) {
                bytes += json.serialize(Topics.TELEMETRY.name(), sample).length;
                samples++;
            }
        }
        seconds = (System.nanoTime() - started) / 1e9;
        System.out.printf("generate + JSON: %d samples, %.0f bytes each, in %.3f s: %.0f samples/s%n", samples,
                (double) bytes / samples, seconds, samples / seconds);
        System.out.printf("simulated %s: %d interruption notices, %d replacements; ground truth for %d GPUs, "
                + "%d jobs, %d pools; cost %s%n", Duration.between(START, simulation.now()),
                simulation.interruptions(), simulation.replacements(), simulation.groundTruth().byGpu().size(),
                simulation.groundTruth().byJob().size(), simulation.groundTruth().byPool().size(),
                simulation.groundTruth().costByCurrency());
    }
}
