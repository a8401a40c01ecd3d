package io.gpuledger.bench;

import io.gpuledger.cli.UsageException;
import java.util.Arrays;

/**
 * {@code gpu-ledger bench NAME [OPTIONS]}: benchmarks that print their numbers. The {@code gpu-ledger}
 * script runs this class, with this module on the class path, for its {@code bench} command.
 */
public final class BenchCommand {

    static final String USAGE = """
            usage: gpu-ledger bench NAME [OPTIONS]

            benchmarks that print numbers (docs/benchmarks.md):
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
                        --shared F   part of the GPUs time-sliced among several jobs (default 0)
              focus   seconds of gpu-ledger export focus over a day of a fleet's GPU hours (those the
                      engine would send, written to an embedded broker), to CSV and to Parquet
                        --gpus G     GPUs (default 10000)  --hours H  hours (default 24)
                        --shared F   part of the GPUs shared by three jobs (default 0.0625)
                        --runs N     exports of each format (default 3)
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
            """;

    private BenchCommand() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && (args[0].equals("help") || args[0].equals("--help") || args[0].equals("-h"))) {
            System.out.print(USAGE);
            return;
        }
        try {
            System.exit(run(args));
        } catch (UsageException e) {
            System.err.println("gpu-ledger bench: " + e.getMessage());
            System.err.print(USAGE);
            System.exit(2);
        }
    }

    static int run(String[] args) throws Exception {
        if (args.length == 0) {
            throw new UsageException(
                    "bench needs a benchmark name: agent, backtest, engine, focus, footprint, latency, rebalance,"
                            + " throughput");
        }
        String[] options = Arrays.copyOfRange(args, 1, args.length);
        return switch (args[0]) {
            case "agent" -> AgentFootprintBench.run(options, System.out);
            case "backtest" -> BacktestBench.run(options, System.out);
            case "engine" -> EngineThroughputBench.run(options, System.out);
            case "focus" -> FocusExportBench.run(options, System.out);
            case "footprint" -> FootprintBench.run(options, System.out);
            case "latency" -> LatencyBench.run(options, System.out);
            case "rebalance" -> RebalanceBench.run(options, System.out);
            case "throughput" -> PipelineThroughputBench.run(options, System.out);
            default -> throw new UsageException("unknown benchmark '" + args[0]
                    + "'; known: agent, backtest, engine, focus, footprint, latency, rebalance, throughput");
        };
    }
}
