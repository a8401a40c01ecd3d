package io.gpuledger.cli.backtest;

import java.io.PrintStream;
import java.util.List;
import java.util.Locale;

/** The backtest's table, one row per kind of recommendation, and its last line for scripts. */
final class BacktestReport {

    private BacktestReport() {
    }

    /** Each followed decision: when, what, its monthly claim, its claim for the rest of the run, what it saved. */
    static void printDecisions(Ledger ledger, PrintStream out) {
        for (Ledger.Decision decision : ledger.decisions()) {
            out.printf(Locale.ROOT, "%s %-20s %-58s claimed %10.2f/month %10.2f run, realized %10.2f%n", decision.at,
                    decision.kind, decision.what, decision.claimedMonthlyUsd, ledger.claimedOverRun(decision),
                    decision.realizedUsd());
        }
    }

    static void print(List<Ledger.Row> rows, PrintStream out) {
        out.printf(Locale.ROOT, "%-22s %6s %9s %15s %17s %15s %9s%n", "kind", "made", "followed", "claimed/month",
                "claimed, run", "realized, run", "ratio");
        for (Ledger.Row row : rows) {
            out.printf(Locale.ROOT, "%-22s %6d %9d %15.2f %17.2f %15.2f %9s%n", row.kind(), row.made(), row.followed(),
                    row.claimedMonthlyUsd(), row.claimedOverRunUsd(), row.realizedUsd(), ratio(row.ratio()));
        }
        out.println("amounts in USD; claimed, run: each followed claim for the hours from its decision to the end");
        out.println(lastLine(rows));
    }

    /**
     * {@code backtest: N recommendations, realized/claimed MIN..MAX by kind, K kinds with a negative
     * realized saving}, the ratios over the kinds that were followed.
     */
    static String lastLine(List<Ledger.Row> rows) {
        int made = rows.stream().mapToInt(Ledger.Row::made).sum();
        double[] ratios = rows.stream().filter(row -> row.followed() > 0).mapToDouble(Ledger.Row::ratio)
                .filter(ratio -> !Double.isNaN(ratio)).toArray();
        String range = ratios.length == 0 ? "n/a"
                : ratio(java.util.Arrays.stream(ratios).min().orElseThrow()) + ".."
                        + ratio(java.util.Arrays.stream(ratios).max().orElseThrow());
        long negative = rows.stream().filter(row -> row.realizedUsd() < 0).count();
        return String.format(Locale.ROOT,
                "backtest: %d recommendations, realized/claimed %s by kind, %d kinds with a negative realized saving",
                made, range, negative);
    }

    private static String ratio(double ratio) {
        return Double.isNaN(ratio) ? "n/a" : String.format(Locale.ROOT, "%.2f", ratio);
    }
}
