package io.gpuledger.cli;

import java.util.Arrays;

/** {@code gpu-ledger bench NAME [OPTIONS]}: benchmarks that print their numbers. */
final class BenchCommand {

    private BenchCommand() {
    }

    static int run(String[] args) throws Exception {
        if (args.length == 0) {
            throw new UsageException(
                    "bench needs a benchmark name: agent, backtest, engine, footprint, latency, rebalance, throughput");
        }
        String[] options = Arrays.copyOfRange(args, 1, args.length);
        return switch (args[0]) {
            case "agent" -> AgentFootprintBench.run(options, System.out);
            case "backtest" -> BacktestBench.run(options, System.out);
            case "engine" -> EngineThroughputBench.run(options, System.out);
            case "footprint" -> FootprintBench.run(options, System.out);
            case "latency" -> LatencyBench.run(options, System.out);
            case "rebalance" -> RebalanceBench.run(options, System.out);
            case "throughput" -> PipelineThroughputBench.run(options, System.out);
            default -> throw new UsageException("unknown benchmark '" + args[0]
                    + "'; known: agent, backtest, engine, footprint, latency, rebalance, throughput");
        };
    }
}
