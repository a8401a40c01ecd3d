package io.gpuledger.alerts.anomaly;

import io.gpuledger.model.InvalidRecordException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Monthly budgets as configured in one line, so that one environment variable holds them all
 * ({@code GPULEDGER_BUDGETS}): {@code team:research=5000 USD; team:infra=1200 EUR; job:train-llm=300 USD}.
 * A project is budgeted as the team its GPUs are tagged with.
 */
public final class Budgets {

    private static final Set<String> DIMENSIONS = Set.of("team", "job", "pool");

    private Budgets() {
    }

    /** @throws IllegalArgumentException naming the entry that is malformed and what is expected */
    public static List<BudgetBurn.Budget> parse(String text) {
        List<BudgetBurn.Budget> budgets = new ArrayList<>();
        if (text == null || text.isBlank()) {
            return budgets;
        }
        for (String entry : text.split(";")) {
            if (entry.isBlank()) {
                continue;
            }
            budgets.add(entry(entry.trim()));
        }
        return budgets;
    }

    private static BudgetBurn.Budget entry(String entry) {
        String expected = "expected <team|job|pool>:<subject>=<amount> <currency>, e.g. team:research=5000 USD";
        int colon = entry.indexOf(':');
        int equals = entry.lastIndexOf('=');
        if (colon < 1 || equals < colon + 2) {
            throw new IllegalArgumentException("budget '" + entry + "': " + expected);
        }
        String dimension = entry.substring(0, colon).trim();
        if (!DIMENSIONS.contains(dimension)) {
            throw new IllegalArgumentException("budget '" + entry + "': unknown dimension '" + dimension + "'; "
                    + expected);
        }
        String subject = entry.substring(colon + 1, equals).trim();
        String[] money = entry.substring(equals + 1).trim().split("\\s+");
        if (money.length != 2) {
            throw new IllegalArgumentException("budget '" + entry + "': " + expected);
        }
        try {
            return new BudgetBurn.Budget(dimension, subject, Double.parseDouble(money[0]), money[1]);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("budget '" + entry + "': '" + money[0] + "' is not an amount", e);
        } catch (InvalidRecordException e) {
            throw new IllegalArgumentException("budget '" + entry + "': " + e.getMessage(), e);
        }
    }
}
