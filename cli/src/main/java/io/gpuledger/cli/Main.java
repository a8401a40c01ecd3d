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
                         --shared F          part of the GPUs time-sliced among several jobs (default 0.0625)
                         --grace SECONDS     the cost engine's wait for late samples (default 120)
                         --history on|off    send the past week of one pool first, for the reserve
                                             rule's week of clock hours (default on)
                       GPULEDGER_* variables configure the alert service (budgets, webhooks, token)
              simulate the demo's simulated fleet alone, publishing to the cluster in
                       KAFKA_BOOTSTRAP_SERVERS until stopped (with the catalog's prices first)
                         --gpus, --interval, --catalog, --spot-interruptions, --price-changes, --shared as for demo
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
              export   focus: the engine's GPU hours of a range (gpu.hours.v1, Kafka in
                       KAFKA_BOOTSTRAP_SERVERS) as a FOCUS 1.2 file for finance (docs/finance.md)
                         --from TIME --to TIME     a UTC date (2026-12-01) or instant; hours starting in [from, to)
                         --out FILE                .csv, .csv.gz or .parquet
                         --team TEAM, --job JOB    only that team's or job's rows
                         --billing-account ID, --billing-account-name NAME   (default gpu-ledger)
                         --currency CODE           the engine's reporting currency (default USD)
                         --read-to-end             read the hours to the topic's end: corrections of hours
                                                   sent again after the engine's state was reset
              reconcile  the engine's GPU hours of a range held against the provider's bill, per
                       instance-day and offer, with what explains each difference (docs/finance.md)
                         --bill FILE               a FOCUS export or a CUR 2.0 (CSV, .gz, Parquet); repeatable
                         --from TIME --to TIME     the range, as for export focus
                         --out FILE.csv            every instance-day, as CSV
                         --drift F                 list offers and days whose ratio is off by more (default 0.02)
                         --publish                 publish the learned effective prices as price versions,
                                                   drift anomalies and the ratios for the metrics
                         --watch FOLDER            instead of --bill/--from/--to: reconcile each new bill put in
                                                   the folder over its own days, every --interval (default 300 s)
                         --read-to-end             read the engine's hours to the topic's end, as export focus
              validate focus FILE  judge a FOCUS file (CSV, gzip, Parquet) by the FinOps Foundation's
                       FOCUS 1.2 rules; exit status 1 when one fails
                         --capabilities A,B,...    the provider capabilities to judge by (default: those
                                                   GPU Ledger's own files claim)
              bench    benchmarks that print numbers (docs/benchmarks.md), from the bench module:
                       engine, throughput, footprint, latency, rebalance, agent, backtest
                       (gpu-ledger bench help)
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
                case "bench" -> throw new UsageException(
                        "the benchmarks live in the bench module: run them through the gpu-ledger script");
                case "hook" -> System.exit(ExampleHook.run(options));
                case "export" -> System.exit(FocusCommand.export(Arrays.copyOfRange(args, 1, args.length),
                        System.getenv(), System.out, System.err));
                case "reconcile" -> System.exit(ReconcileCommand.run(Arrays.copyOfRange(args, 1, args.length),
                        System.getenv(), System.out, System.err, Clock.systemUTC()));
                case "validate" -> System.exit(FocusCommand.validate(Arrays.copyOfRange(args, 1, args.length),
                        System.out, System.err));
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
