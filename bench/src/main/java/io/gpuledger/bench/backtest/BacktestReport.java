package io.gpuledger.bench.backtest;

import io.gpuledger.model.RecommendationKind;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The backtest's tables: each run's decisions when asked, then one row per kind over every run (the
 * median and the worst of the runs' realized/claimed), and a last line for scripts.
 */
final class BacktestReport {

    private BacktestReport() {
    }

    /** One kind over every run: its rows, one per run it was recommended or followed in. */
    record KindAcrossRuns(RecommendationKind kind, List<Ledger.Row> runs) {

        int made() {
            return runs.stream().mapToInt(Ledger.Row::made).sum();
        }

        int followed() {
            return runs.stream().mapToInt(Ledger.Row::followed).sum();
        }

        double claimedUsd() {
            return runs.stream().mapToDouble(Ledger.Row::claimedUsd).sum();
        }

        double realizedUsd() {
            return runs.stream().mapToDouble(Ledger.Row::realizedUsd).sum();
        }

        double delayHours() {
            return runs.stream().mapToDouble(Ledger.Row::delayHours).sum();
        }

        /** Realized over claimed of each run that claimed anything of the kind. */
        double[] ratios() {
            return runs.stream().mapToDouble(Ledger.Row::ratio).filter(ratio -> !Double.isNaN(ratio)).sorted()
                    .toArray();
        }

        double median() {
            double[] ratios = ratios();
            if (ratios.length == 0) {
                return Double.NaN;
            }
            int middle = ratios.length / 2;
            return ratios.length % 2 == 1 ? ratios[middle] : (ratios[middle - 1] + ratios[middle]) / 2;
        }

        double worst() {
            double[] ratios = ratios();
            return ratios.length == 0 ? Double.NaN : ratios[0];
        }

        /** Whether any run of the kind saved less than nothing. */
        boolean lostMoney() {
            return runs.stream().anyMatch(row -> row.realizedUsd() < 0);
        }
    }

    /** The runs' rows, gathered by kind, in the kinds' order. */
    static List<KindAcrossRuns> byKind(List<List<Ledger.Row>> runs) {
        Map<RecommendationKind, List<Ledger.Row>> rows = new EnumMap<>(RecommendationKind.class);
        for (List<Ledger.Row> run : runs) {
            for (Ledger.Row row : run) {
                rows.computeIfAbsent(row.kind(), kind -> new ArrayList<>()).add(row);
            }
        }
        List<KindAcrossRuns> kinds = new ArrayList<>();
        rows.forEach((kind, ofKind) -> kinds.add(new KindAcrossRuns(kind, ofKind)));
        return kinds;
    }

    /** Each followed decision: when, what, its claim for its span, what it saved. */
    static void printDecisions(Ledger ledger, PrintStream out) {
        for (Ledger.Decision decision : ledger.decisions()) {
            out.printf(Locale.ROOT, "%s %-20s %-62s claimed %10.2f, realized %10.2f%n", decision.at, decision.kind,
                    decision.what, decision.claimedUsd(), decision.realizedUsd());
        }
    }

    static void print(List<List<Ledger.Row>> runs, PrintStream out) {
        List<KindAcrossRuns> kinds = byKind(runs);
        out.printf(Locale.ROOT, "%-22s %6s %9s %15s %15s %8s %8s %12s%n", "kind", "made", "followed", "claimed",
                "realized", "median", "worst", "delay hours");
        for (KindAcrossRuns kind : kinds) {
            out.printf(Locale.ROOT, "%-22s %6d %9d %15.2f %15.2f %8s %8s %12.1f%n", kind.kind(), kind.made(),
                    kind.followed(), kind.claimedUsd(), kind.realizedUsd(), ratio(kind.median()), ratio(kind.worst()),
                    kind.delayHours());
        }
        out.println("amounts in USD over all runs; median and worst of the runs' realized/claimed; claimed: a monthly"
                + " claim for the time its decision stood, a reservation's for its term, an evacuation's work at risk");
        out.println(lastLine(kinds, runs.size()));
    }

    /**
     * {@code backtest: N recommendations over S seeds, F of 6 kinds followed, realized/claimed median
     * MIN..MAX, worst W, K kinds with a negative realized saving in any seed}: the medians' range and the
     * worst run over the kinds that were followed.
     */
    static String lastLine(List<KindAcrossRuns> kinds, int seeds) {
        int made = kinds.stream().mapToInt(KindAcrossRuns::made).sum();
        List<KindAcrossRuns> followed = kinds.stream().filter(kind -> kind.followed() > 0).toList();
        double[] medians = followed.stream().mapToDouble(KindAcrossRuns::median).filter(m -> !Double.isNaN(m))
                .toArray();
        double worst = followed.stream().mapToDouble(KindAcrossRuns::worst).filter(w -> !Double.isNaN(w)).min()
                .orElse(Double.NaN);
        String range = medians.length == 0 ? "n/a"
                : ratio(java.util.Arrays.stream(medians).min().orElseThrow()) + ".."
                        + ratio(java.util.Arrays.stream(medians).max().orElseThrow());
        long lost = kinds.stream().filter(KindAcrossRuns::lostMoney).count();
        return String.format(Locale.ROOT, "backtest: %d recommendations over %d seeds, %d of %d kinds followed,"
                + " realized/claimed median %s, worst %s, %d kinds with a negative realized saving in any seed", made,
                seeds, followed.size(), RecommendationKind.values().length, range, ratio(worst), lost);
    }

    private static String ratio(double ratio) {
        return Double.isNaN(ratio) ? "n/a" : String.format(Locale.ROOT, "%.2f", ratio);
    }
}
