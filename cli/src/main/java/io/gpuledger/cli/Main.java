package io.gpuledger.cli;

import io.gpuledger.ingest.agent.TokenCommand;
import io.gpuledger.streams.CostEngineMain;
import java.time.Clock;
import java.util.Arrays;

/** {@code gpu-ledger COMMAND [OPTIONS]}: the entry point of the {@code gpu-ledger} script. */
public final class Main {

    static final String USAGE = """
            usage: gpu-ledger COMMAND [OPTIONS]

            commands:
              demo     run the whole pipeline on this machine: embedded Kafka (or the cluster in
                       KAFKA_BOOTSTRAP_SERVERS), simulated fleet, price feed, cost engine, alert service
                         --gpus N            simulated GPUs (default 48)
                         --interval SECONDS  seconds between samples of one GPU (default 5)
                         --http-port PORT    port of the alert service (default 8080)
                         --catalog FILE      price catalog, CSV or JSON (default: the shipped catalog)
                         --spot-interruptions RATE  notices per spot instance-hour (default 1)
                         --price-changes RATE       moves of each spot price per hour (default 4)
                         --grace SECONDS     the cost engine's wait for late samples (default 120)
                         --history on|off    send the past week of one pool first, for the reserve
                                             rule's week of clock hours (default on)
                       GPULEDGER_* variables configure the alert service (budgets, webhooks, token)
              simulate the demo's simulated fleet alone, publishing to the cluster in
                       KAFKA_BOOTSTRAP_SERVERS until stopped (with the catalog's prices first)
                         --gpus, --interval, --catalog, --spot-interruptions, --price-changes as for demo
              engine   the cost engine as a process of its own (gpu-ledger engine --help)
              agent    the node agent: collectors, cloud notices, work reports (gpu-ledger agent --help)
              prices   publish price quotes to pricing.quotes.v1 (Kafka in KAFKA_BOOTSTRAP_SERVERS),
                       only those that changed since the topic last heard of them
                         --catalog FILE|URL        price catalog, CSV or JSON (default, when no source
                                                   is named: the shipped catalog)
                         --aws-spot FILE|URL       AWS DescribeSpotPriceHistory JSON
                         --azure FILE|URL          Azure Retail Prices API page (a URL: every page)
                         --skypilot PROVIDER=FILE|URL  SkyPilot catalog (vms.csv) of that provider
                         --instance-types FILE     provider,instance_type,gpu_model,gpu_count of types
                                                   the AWS and Azure feeds name (beyond the shipped table)
                         --reserved-term 1y|3y     Azure reservation term to publish (default 1y)
                         --watch                   keep running; read the sources again every interval
                         --interval SECONDS        between readings with --watch (default 300)
                         --confirm-every SECONDS   publish the price in force of each offer read again,
                                                   as confirmed, once its last confirmation is this old
                                                   (default 600), so that the cost engine can tell an
                                                   unchanged price from a feed that stopped
                         --dry-run                 print the quotes, one JSON object per line; publish nothing
                       each source option may be given more than once
              bench    benchmarks that print numbers (docs/benchmarks.md):
                         agent   CPU and memory of the node agent on 8 GPUs
                                   --seconds N  measured (default 120)  --warmup N  before (default 60)
                         backtest  follows every recommendation over a simulated month of a mixed fleet,
                                 one world per seed, the rules in this JVM, and prints per kind the
                                 saving claimed against the saving the decisions realized
                                   --days N     simulated days (default 30)  --seeds N  runs (default 20)
                                   --seed S     the first seed (default 1)
                                   --decisions true  also list every decision followed
                         engine  samples per second of the cost engine (its own process, exactly-once)
                                 against a plain consumer-to-producer copy on the same embedded broker
                                   --samples N  telemetry samples preloaded (default 6000000)
                                   --gpus G     simulated GPUs they come from (default 10000)
                                   --interval S seconds between two samples of a GPU (default 1)
                                   --warmup W   first records left out of the warm figure (default 2000000)
                                   --threads T  the engine's stream threads (default 1, its own default)
                                   --commit-interval S  the engine's longest time between commits
                                                (default 8, its own default)
                         footprint  CPU and resident memory of agent, simulated fleet, cost engine and alert
                                 service following a live fleet, each in its own process; then the demo stack
                                   --gpus G,G,...  fleets, a sample a second per GPU (default 1000,10000,100000)
                                   --warmup S   seconds before measuring (default 300)
                                   --seconds S  seconds measured (default 120)
                                   --demo-gpus D  the demo stack's fleet (default 10000; 0: no demo)
                         latency a spot notice to its EVACUATE, and a sample to its gauge, on the demo
                                 stack under a simulated fleet sampled every second
                                   --gpus G     the background fleet (default 10000)
                                   --notices N  notices sent (default 300)  --rate R  per second (default 5)
                                   --probe-minutes M  minutes of probe samples for the gauge (default 3)
                         throughput  samples per second through engine and alert service, each in its
                                 own process, against a plain copy on the same embedded broker
                                   --gpus G,G,...  fleets, a sample a second per GPU (default 1000,10000,100000)
                                   --minutes M  simulated minutes of each fleet (default 10, or enough for
                                                12 million samples: 200 at 1000 GPUs, 20 at 10000)
                                   --warmup S   first seconds of samples left out of the warm figure
                                                (default half the run: 600 of 20 minutes)
                                   --threads T  the engine's stream threads (default 3, one a partition)
                                   --commit-interval S  the engine's longest time between commits
                                                (default 8, its own default)
              hook     an example automation hook: follows gpu.recommendations.v1 (Kafka in
                       KAFKA_BOOTSTRAP_SERVERS) and prints what it would do with each recommendation
                         --ack URL   acknowledge each one it acts on at the alert service at URL
                                     (token in GPULEDGER_API_TOKEN)
              token    the tokens jobs present at the agents of their nodes (docs/security.md)
                         keygen --private FILE   a new issuer key; prints the public key for the agents
                         issue --key FILE --node NODE... (--job JOB | --stopping) [--ttl 24h]
              help     show this text
            """;

    private Main() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 0 || args[0].equals("help") || args[0].equals("--help") || args[0].equals("-h")) {
            System.out.print(USAGE);
            return;
        }
        String[] options = Arrays.copyOfRange(args, 1, args.length);
        try {
            switch (args[0]) {
                case "demo" -> Demo.run(DemoOptions.parse(options, System.getenv()));
                case "simulate" -> System.exit(SimulateCommand.run(options));
                case "engine" -> CostEngineMain.main(options);
                case "agent" -> System.exit(AgentCommand.run(options));
                case "prices" -> System.exit(PricesCommand.run(options));
                case "bench" -> System.exit(BenchCommand.run(options));
                case "hook" -> System.exit(ExampleHook.run(options));
                case "token" -> System.exit(TokenCommand.run(options, Clock.systemUTC(), System.out, System.err));
                default -> throw new UsageException("unknown command '" + args[0] + "'");
            }
        } catch (UsageException e) {
            System.err.println("gpu-ledger: " + e.getMessage());
            System.err.print(USAGE);
            System.exit(2);
        }
    }
}
