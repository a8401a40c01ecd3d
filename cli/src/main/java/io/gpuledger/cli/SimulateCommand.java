package io.gpuledger.cli;

import io.gpuledger.ingest.price.PriceCatalog;
import io.gpuledger.model.TopicAdmin;
import io.gpuledger.model.Topics;
import java.io.PrintStream;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * {@code gpu-ledger simulate}: the demo's simulated fleet alone, publishing to the cluster named by
 * {@code KAFKA_BOOTSTRAP_SERVERS} until stopped, for a stack whose other stages run apart (the
 * docker-compose stack). Creates the topics that are missing, publishes the catalog's prices, then
 * a round of the fleet every interval.
 */
final class SimulateCommand {

    private SimulateCommand() {
    }

    static int run(String[] args) throws InterruptedException {
        DemoOptions options = parse(args, System.getenv());
        SimulatedFleet fleet;
        try {
            fleet = start(options, System.out);
        } catch (RuntimeException e) {
            System.err.println("gpu-ledger simulate: " + e.getMessage());
            return 1;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            fleet.close();
            stopped.countDown();
        }, "simulate-shutdown"));
        stopped.await();
        return 0;
    }

    /** The demo's options less {@code --http-port}, and a cluster is required. */
    static DemoOptions parse(String[] args, Map<String, String> env) {
        if (Arrays.asList(args).contains("--http-port")) {
            throw new UsageException("simulate runs no alert service: --http-port does not apply");
        }
        DemoOptions options = DemoOptions.parse(args, env);
        if (options.externalBootstrap().isEmpty()) {
            throw new UsageException("simulate publishes to a cluster: set KAFKA_BOOTSTRAP_SERVERS");
        }
        return options;
    }

    static SimulatedFleet start(DemoOptions options, PrintStream out) {
        String bootstrap = options.externalBootstrap().orElseThrow();
        TopicAdmin.ensureTopics(bootstrap, TopicAdmin.DEFAULT_PARTITIONS);
        PriceCatalog catalog = options.catalog().map(PriceCatalog::load).orElseGet(PriceCatalog::loadDefault);
        catalog.errors().forEach(error -> out.println("price catalog: skipped " + error));
        int published = SimulatedFleet.publishPrices(catalog.quotes(), bootstrap, "simulate-prices");
        out.println("Prices         " + published + " price versions published to " + Topics.PRICES.name());
        SimulatedFleet fleet = SimulatedFleet.start(options, catalog.quotes(), bootstrap, "simulate-fleet");
        fleet.describe(options, out);
        out.println("Kafka          " + bootstrap + "; Ctrl-C (SIGTERM) stops the fleet");
        out.flush();
        return fleet;
    }
}
