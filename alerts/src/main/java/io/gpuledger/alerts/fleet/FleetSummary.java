package io.gpuledger.alerts.fleet;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What the fleet spends now ({@code GET /api/fleet}): each GPU at the rate of its latest window,
 * added up in total and by pool, team and lifecycle. Amounts of different currencies are never
 * added together: each row has one. A GPU whose agent has gone quiet (its latest window ended more
 * than a minute before the fleet's newest) is still counted at the rate of its latest window, since
 * its instance is billed all the same, but that part is an estimate, and is shown apart too.
 *
 * @param asOf          when the summary was made
 * @param newestWindow  end of the newest window it includes; null when there is none
 */
public record FleetSummary(Instant asOf, Instant newestWindow, List<Row> total, List<Row> byPool, List<Row> byTeam,
        List<Row> byLifecycle) {

    /**
     * @param key          the pool ({@code provider|region|instanceType|lifecycle}), team or lifecycle; "all" in total
     * @param costPerHour  sum of the GPUs' spend rates
     * @param idleCostPerHour the part of it spent on idle GPU time
     * @param estimatedCostPerHour the part of it from GPUs not heard of in the fleet's latest minute,
     *                     at the rate of their latest window: estimated, not observed
     */
    public record Row(String key, String currency, long gpus, double costPerHour, double idleCostPerHour,
            double estimatedCostPerHour) {
    }

    /** One GPU's contribution, or a sum of them. */
    record Spend(long gpus, double costPerHour, double idleCostPerHour, double estimatedCostPerHour) {

        /** A GPU's spend; {@code quiet}: its agent has said nothing lately, so its rate is an estimate. */
        static Spend of(double costPerHour, double idleCostPerHour, boolean quiet) {
            return new Spend(1, costPerHour, idleCostPerHour, quiet ? costPerHour : 0);
        }

        /** The same spend, counting no GPU: a GPU's idle cost in a team that took no part of it. */
        Spend asNoGpu() {
            return new Spend(0, costPerHour, idleCostPerHour, estimatedCostPerHour);
        }

        Spend plus(Spend other) {
            return new Spend(gpus + other.gpus, costPerHour + other.costPerHour,
                    idleCostPerHour + other.idleCostPerHour, estimatedCostPerHour + other.estimatedCostPerHour);
        }
    }

    /** Rows from sums keyed {@code "<key> <currency>"} (or just the currency, for the total). */
    static List<Row> rows(Map<String, Spend> sums) {
        List<Row> rows = new ArrayList<>();
        sums.forEach((keyAndCurrency, spend) -> {
            int space = keyAndCurrency.lastIndexOf(' ');
            String key = space < 0 ? "all" : keyAndCurrency.substring(0, space);
            String currency = keyAndCurrency.substring(space + 1);
            rows.add(new Row(key, currency, spend.gpus(), spend.costPerHour(), spend.idleCostPerHour(),
                    spend.estimatedCostPerHour()));
        });
        rows.sort((a, b) -> Double.compare(b.costPerHour(), a.costPerHour()));
        return List.copyOf(rows);
    }
}
