package io.gpuledger.cli.backtest;

import java.io.PrintStream;
import java.time.Instant;
import java.util.Locale;

/** The backtest as {@code bench backtest} runs it: the seed fleet, its prices and true speeds, followed. */
public final class Backtests {

    /** A Monday at midnight UTC: the run's days start at midnight, so daily schedules line up. */
    static final Instant START = Instant.parse("2026-03-02T00:00:00Z");

    private Backtests() {
    }

    public static void month(int days, long seed, boolean decisions, PrintStream out) {
        BacktestFleet fleet = BacktestFleet.seed();
        out.printf(Locale.ROOT, "backtest: %d days from %s, %d jobs and %d notebooks, seed %d%n", days, START,
                fleet.jobs().size(), fleet.notebooks().size(), seed);
        long began = System.nanoTime();
        Backtest backtest = new Backtest(fleet.jobs(), fleet.notebooks(), OfferPrices.seed(), TrueSpeed.seed(), seed,
                Backtest.RANDOM_INTERRUPTIONS, START, days);
        Ledger ledger = backtest.run(new FollowingHook());
        out.printf(Locale.ROOT, "replayed in %.1f s; %d spot interruptions%n", (System.nanoTime() - began) / 1e9,
                backtest.interruptions());
        if (decisions) {
            BacktestReport.printDecisions(ledger, out);
        }
        BacktestReport.print(ledger.rows(), out);
    }
}
