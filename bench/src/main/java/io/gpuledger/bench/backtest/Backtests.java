package io.gpuledger.bench.backtest;

import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The backtest as {@code bench backtest} runs it: the seed fleet and its prices, in one world per seed,
 * followed by the hook; the alert service restarts on the twelfth day of each run.
 */
public final class Backtests {

    /** A Monday at midnight UTC: the run's days start at midnight, so daily schedules line up. */
    static final Instant START = Instant.parse("2026-03-02T00:00:00Z");
    /** When the alert service restarts in each run, reading its records back. */
    static final Duration RESTART_AFTER = Duration.ofDays(12);

    private Backtests() {
    }

    /** One run: its seed, its ledger, its spot interruptions and how long it took. */
    private record Run(long seed, Ledger ledger, int interruptions, double seconds) {
    }

    public static void run(int days, int seeds, long firstSeed, boolean decisions, PrintStream out) {
        BacktestFleet fleet = BacktestFleet.seed();
        out.printf(Locale.ROOT, "backtest: %d days from %s, %d jobs and %d notebooks, seeds %d to %d%n", days, START,
                fleet.jobs().size(), fleet.notebooks().size(), firstSeed, firstSeed + seeds - 1);
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, Runtime.getRuntime().availableProcessors()));
        List<Future<Run>> runs = new ArrayList<>();
        for (long seed = firstSeed; seed < firstSeed + seeds; seed++) {
            long drawn = seed;
            runs.add(pool.submit(() -> run(days, drawn)));
        }
        List<List<Ledger.Row>> rows = new ArrayList<>();
        try {
            for (Future<Run> future : runs) {
                Run run = future.get();
                out.printf(Locale.ROOT, "seed %d: replayed in %.1f s; %d spot interruptions%n", run.seed(),
                        run.seconds(), run.interruptions());
                if (decisions) {
                    BacktestReport.printDecisions(run.ledger(), out);
                }
                rows.add(run.ledger().rows());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("a backtest run failed", e.getCause());
        } finally {
            pool.shutdownNow();
        }
        BacktestReport.print(rows, out);
    }

    private static Run run(int days, long seed) {
        long began = System.nanoTime();
        BacktestFleet fleet = BacktestFleet.seed();
        OfferPrices prices = OfferPrices.seed();
        Instant restart = days > RESTART_AFTER.toDays() ? START.plus(RESTART_AFTER) : null;
        Backtest backtest = new Backtest(fleet.jobs(), fleet.notebooks(), prices, new BacktestWorld(seed, prices),
                START, days, restart);
        Ledger ledger = backtest.run(new FollowingHook());
        return new Run(seed, ledger, backtest.interruptions(), (System.nanoTime() - began) / 1e9);
    }
}
