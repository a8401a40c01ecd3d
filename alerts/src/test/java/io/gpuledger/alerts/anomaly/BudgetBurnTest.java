package io.gpuledger.alerts.anomaly;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gpuledger.alerts.anomaly.BudgetBurn.Budget;
import io.gpuledger.model.AnomalyKind;
import io.gpuledger.model.CostAnomaly;
import io.gpuledger.model.CostAnomaly.Severity;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class BudgetBurnTest {

    private static final double TOLERANCE = 1e-6;
    /** The forecasts below are made at the end of the minute ending here: 21 days (504 h) of November are left. */
    private static final Instant PINNED = Instant.parse("2026-11-10T00:00:00Z");
    private static final BudgetBurn.Settings QUICK = new BudgetBurn.Settings(Duration.ofHours(2), 3);

    @ParameterizedTest(name = "budget {0}, half-life {1} min, minutes {2}")
    @CsvSource({
            // budget,  half-life, costs,   forecast, warned; forecast = month-to-date + rate per hour × 504
            "30000,     120,       '1 1 1', 30243,    true",    // 3 + 60 × 504
            "30243,     120,       '1 1 1', 30243,    false",   // exactly on budget is not over it
            "20000,     1,         '1 3 5', 105849,   true",    // rate per minute 1, 2, 3.5 (alpha 0.5): 9 + 210 × 504
            "200000,    1,         '1 3 5', 105849,   false",
            "100,       120,       '1 1',   30242,    false",   // two minutes: not warm yet
    })
    void shouldForecastMonthEndFromMonthToDateAndTheRecentRate(double amount, int halfLifeMinutes, String costs,
                                                               double forecast, boolean warned) {
        // Given a budget and a detector that judges forecasts after three minutes
        BudgetBurn burn = new BudgetBurn(List.of(new Budget("team", "research", amount, "USD")),
                new BudgetBurn.Settings(Duration.ofMinutes(halfLifeMinutes), 3));

        // When the team's last minutes before the pinned instant arrive
        List<CostAnomaly> found = feed(burn, PINNED, costs);

        // Then the month-end forecast is flagged exactly when it exceeds the budget
        assertThat(found).hasSize(warned ? 1 : 0);
        found.forEach(anomaly -> {
            assertThat(anomaly.kind()).isEqualTo(AnomalyKind.BUDGET_BURN);
            assertThat(anomaly.severity()).isEqualTo(Severity.WARNING);
            assertThat(anomaly.measure()).isEqualTo("month-end spend");
            assertThat(anomaly.expected()).isCloseTo(amount, within(TOLERANCE));
            assertThat(anomaly.actual()).isCloseTo(forecast, within(TOLERANCE));
            assertThat(anomaly.impact()).isCloseTo(forecast - amount, within(TOLERANCE));
            assertThat(anomaly.windowStart()).isEqualTo(Instant.parse("2026-11-01T00:00:00Z"));
            assertThat(anomaly.windowEnd()).isEqualTo(PINNED);
            assertThat(anomaly.id()).isEqualTo("budget_burn:team:research:2026-11-01T00:00:00Z:warning");
            assertThat((double) anomaly.evidence().get("hoursLeft")).isCloseTo(504, within(TOLERANCE));
            assertThat(anomaly.summary()).startsWith("team research is on course to spend "
                    + Anomalies.money(forecast) + " USD this month");
        });
    }

    @Test
    void shouldWarnOfTheForecastOnceAndOfTheOverspendOnce() {
        // Given a 1000 USD budget and a team spending 100 USD a minute
        BudgetBurn burn = new BudgetBurn(List.of(new Budget("team", "research", 1000, "USD")), QUICK);

        // When twenty minutes arrive
        List<CostAnomaly> found = feed(burn, PINNED, "100 ".repeat(20));

        // Then the forecast is flagged once it is warm (third minute), the overspend once past 1000
        assertThat(found).extracting(CostAnomaly::severity).containsExactly(Severity.WARNING, Severity.CRITICAL);
        CostAnomaly critical = found.get(1);
        assertThat(critical.measure()).isEqualTo("month-to-date spend");
        assertThat(critical.expected()).isCloseTo(1000, within(TOLERANCE));
        assertThat(critical.actual()).isCloseTo(1100, within(TOLERANCE));
        assertThat(critical.impact()).isCloseTo(100, within(TOLERANCE));
        assertThat(critical.id()).isEqualTo("budget_burn:team:research:2026-11-01T00:00:00Z:critical");
        assertThat(critical.summary())
                .isEqualTo("team research has spent 1100.00 USD this month, 10% over its budget of 1000.00 USD");
    }

    @Test
    void shouldStartTheMonthToDateAgainAtTheMonthChange() {
        // Given an 800 USD budget, a team at 100 USD a minute warned and over budget in the last minutes of November
        BudgetBurn burn = new BudgetBurn(List.of(new Budget("team", "research", 800, "USD")), QUICK);
        List<CostAnomaly> november = feed(burn, Instant.parse("2026-12-01T00:00:00Z"), "100 ".repeat(10));

        // When the first minutes of December arrive
        List<CostAnomaly> december = feed(burn, Instant.parse("2026-12-01T00:05:00Z"), "100 100 100 100 100");

        // Then December is warned of afresh at its first minute (the recent rate carries over, being a
        // rate), with its own window and a month-to-date of December alone
        assertThat(november).extracting(CostAnomaly::severity).containsExactly(Severity.WARNING, Severity.CRITICAL);
        assertThat(december).hasSize(1);
        CostAnomaly anomaly = december.get(0);
        assertThat(anomaly.severity()).isEqualTo(Severity.WARNING);
        assertThat(anomaly.windowStart()).isEqualTo(Instant.parse("2026-12-01T00:00:00Z"));
        assertThat(anomaly.windowEnd()).isEqualTo(Instant.parse("2026-12-01T00:01:00Z"));
        assertThat(anomaly.id()).isEqualTo("budget_burn:team:research:2026-12-01T00:00:00Z:warning");
        assertThat((double) anomaly.evidence().get("monthToDate")).isCloseTo(100, within(TOLERANCE));
    }

    @Test
    void shouldCountAndIgnoreMinutesInAnotherCurrency() {
        // Given a budget in EUR
        BudgetBurn burn = new BudgetBurn(List.of(new Budget("project", "llm", 100, "EUR")), QUICK);

        // When the project's minutes arrive in USD, far over the amount
        List<CostAnomaly> found = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            SpendMinute minute = SpendMinute.of("project", "llm", PINNED.plusSeconds(60L * i), 500, "USD");
            burn.observe(minute, minute.minuteEnd()).ifPresent(found::add);
        }

        // Then nothing is compared, and every minute is counted
        assertThat(found).isEmpty();
        assertThat(burn.foreignCurrencyMinutes()).isEqualTo(5);
    }

    @Test
    void shouldNotCountAMinuteTwice() {
        // Given a 250 USD budget and two minutes of 100 USD
        BudgetBurn burn = new BudgetBurn(List.of(new Budget("team", "research", 250, "USD")),
                new BudgetBurn.Settings(Duration.ofHours(2), 1_000));
        feed(burn, PINNED, "100 100");

        // When the second minute is delivered again
        List<CostAnomaly> again = feed(burn, PINNED, "100");

        // Then it is not added to the month-to-date (200 stays under the budget) and it is counted
        assertThat(again).isEmpty();
        assertThat(burn.staleMinutes()).isEqualTo(1);
    }

    /** Feeds one minute per cost, the last one ending at {@code end}; returns what was flagged. */
    private static List<CostAnomaly> feed(BudgetBurn burn, Instant end, String costs) {
        double[] amounts = Arrays.stream(costs.trim().split("\\s+")).mapToDouble(Double::parseDouble).toArray();
        List<CostAnomaly> found = new ArrayList<>();
        for (int i = 0; i < amounts.length; i++) {
            Instant start = end.minusSeconds(60L * (amounts.length - i));
            SpendMinute minute = SpendMinute.of("team", "research", start, amounts[i], "USD");
            burn.observe(minute, minute.minuteEnd()).ifPresent(found::add);
        }
        return found;
    }
}
