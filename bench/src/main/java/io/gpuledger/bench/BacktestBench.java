package io.gpuledger.bench;

import io.gpuledger.bench.backtest.Backtests;
import io.gpuledger.cli.UsageException;
import java.io.PrintStream;

/**
 * {@code gpu-ledger bench backtest}: follows every recommendation over a simulated month of a mixed
 * fleet, in one world per seed, and prints, per kind, what the rules claimed against what the
 * decisions saved. In this JVM, without a broker.
 */
final class BacktestBench {

    private BacktestBench() {
    }

    static int run(String[] args, PrintStream out) {
        int[] days = {30};
        int[] seeds = {20};
        long[] seed = {1};
        boolean[] decisions = {false};
        OptionPairs.read(args, (option, value) -> {
            switch (option) {
                case "--days" -> days[0] = positive(option, value);
                case "--seeds" -> seeds[0] = positive(option, value);
                case "--seed" -> seed[0] = Long.parseLong(value);
                case "--decisions" -> decisions[0] = Boolean.parseBoolean(value);
                default -> throw new UsageException("unknown option " + option + " for bench backtest");
            }
        });
        Backtests.run(days[0], seeds[0], seed[0], decisions[0], out);
        return 0;
    }

    private static int positive(String option, String value) {
        try {
            int number = Integer.parseInt(value);
            if (number < 1) {
                throw new UsageException(option + " must be at least 1");
            }
            return number;
        } catch (NumberFormatException e) {
            throw new UsageException(option + " needs a whole number, not " + value);
        }
    }
}
