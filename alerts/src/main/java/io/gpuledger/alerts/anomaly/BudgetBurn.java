package io.gpuledger.alerts.anomaly;

import io.gpuledger.alerts.anomaly.Anomalies.Finding;
import io.gpuledger.model.AnomalyKind;
import io.gpuledger.model.Check;
import io.gpuledger.model.CostAnomaly;
import io.gpuledger.model.CostAnomaly.Severity;
import java.time.Duration;
import java.time.Instant;
import java.time.YearMonth;
import java.time.ZoneOffset;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * BUDGET_BURN: a team or project on course to overspend its monthly budget (WARNING), or past it
 * already (CRITICAL). Months are UTC calendar months; month-to-date spend starts again with the
 * first minute of a new month.
 *
 * <p>The forecast is month-to-date spend + the recent spend rate × the hours left in the month
 * after the minute. The recent rate is an exponentially weighted mean of the observed minutes'
 * spend per hour, with a half-life of two hours by default (a plain average while it has seen
 * fewer minutes than that weighting implies); it carries over a month change, being a rate. A
 * minute that never arrives is not observed, so a subject that only spends part of the day is
 * forecast at its working rate: the warning errs early, never late.
 *
 * <p>Each severity is delivered at most once per subject and month, with the month's start as
 * window start (see {@link Anomalies#id}); a subject that goes past its budget before its
 * forecast was ever warned of is delivered the CRITICAL only. Amounts are compared in the
 * budget's currency alone: a minute in another currency is counted and ignored. Not thread-safe.
 */
public final class BudgetBurn {

    public static final String FORECAST_MEASURE = "month-end spend";
    public static final String SPENT_MEASURE = "month-to-date spend";

    /** What a team or project may spend in one calendar month. */
    public record Budget(String dimension, String subject, double amount, String currency) {
        public Budget {
            Check.identity("dimension", dimension);
            Check.present("subject", subject);
            Check.positive("amount", amount);
            Check.currency("currency", currency);
        }
    }

    /**
     * @param rateHalfLife  half-life of the recent spend rate, counted in observed minutes; default 2 hours
     * @param warmUpMinutes minutes of a subject observed before its forecast is judged; default 30
     *                      (the month-to-date needs none: it is a fact)
     */
    public record Settings(Duration rateHalfLife, int warmUpMinutes) {

        public static final Settings DEFAULTS = new Settings(Duration.ofHours(2), 30);

        public Settings {
            if (rateHalfLife == null || rateHalfLife.toSeconds() < 60 || warmUpMinutes < 0) {
                throw new IllegalArgumentException("rateHalfLife must be at least a minute and warmUpMinutes not "
                        + "negative, were " + rateHalfLife + " and " + warmUpMinutes);
            }
        }

        /** The weight of one minute in the recent rate. */
        double alpha() {
            return 1 - Math.pow(0.5, 60.0 / rateHalfLife.toSeconds());
        }
    }

    private record SubjectKey(String dimension, String subject) {
    }

    private static final class Burn {
        YearMonth month;
        double monthToDate;
        long monthMinutes;
        boolean warned;
        boolean exceeded;
        double ratePerHour;
        long rateMinutes;
        final MinuteOrder order = new MinuteOrder();
    }

    private final Settings settings;
    private final double alpha;
    private final Map<SubjectKey, Budget> budgets = new HashMap<>();
    private final Map<SubjectKey, Burn> burns = new HashMap<>();
    private long foreignCurrencyMinutes;
    private long staleMinutes;

    public BudgetBurn(Collection<Budget> budgets, Settings settings) {
        this.settings = settings;
        this.alpha = settings.alpha();
        for (Budget budget : budgets) {
            if (this.budgets.put(new SubjectKey(budget.dimension(), budget.subject()), budget) != null) {
                throw new IllegalArgumentException("two budgets for " + budget.dimension() + " " + budget.subject());
            }
        }
    }

    public BudgetBurn(Collection<Budget> budgets) {
        this(budgets, Settings.DEFAULTS);
    }

    /**
     * Adds one closed minute of a subject's spend. Returns the anomaly to deliver when the minute
     * first puts the forecast, or the month-to-date, over the budget this month.
     */
    public Optional<CostAnomaly> observe(SpendMinute minute, Instant detectedAt) {
        SubjectKey key = new SubjectKey(minute.dimension(), minute.subject());
        Budget budget = budgets.get(key);
        if (budget == null) {
            return Optional.empty();
        }
        if (!budget.currency().equals(minute.currency())) {
            foreignCurrencyMinutes++;
            return Optional.empty();
        }
        Burn burn = burns.computeIfAbsent(key, k -> new Burn());
        if (!burn.order.advance(minute.minuteStart())) {
            staleMinutes++;
            return Optional.empty();
        }
        add(burn, minute);
        Instant monthEnd = burn.month.plusMonths(1).atDay(1).atStartOfDay(ZoneOffset.UTC).toInstant();
        double hoursLeft = Math.max(0, Duration.between(minute.minuteEnd(), monthEnd).toSeconds() / 3600.0);
        double forecast = burn.monthToDate + burn.ratePerHour * hoursLeft;
        if (!burn.exceeded && burn.monthToDate > budget.amount()) {
            burn.exceeded = true;
            burn.warned = true;
            return Optional.of(anomaly(budget, burn, Severity.CRITICAL, burn.monthToDate, minute, hoursLeft,
                    detectedAt));
        }
        if (!burn.warned && burn.rateMinutes >= settings.warmUpMinutes() && forecast > budget.amount()) {
            burn.warned = true;
            return Optional.of(anomaly(budget, burn, Severity.WARNING, forecast, minute, hoursLeft, detectedAt));
        }
        return Optional.empty();
    }

    /** Minutes of a subject with a budget that were in another currency than the budget, and ignored. */
    public long foreignCurrencyMinutes() {
        return foreignCurrencyMinutes;
    }

    /** Minutes ignored because their subject had already seen that minute or a later one. */
    public long staleMinutes() {
        return staleMinutes;
    }

    private void add(Burn burn, SpendMinute minute) {
        YearMonth month = YearMonth.from(minute.minuteStart().atZone(ZoneOffset.UTC));
        if (!month.equals(burn.month)) {
            burn.month = month;
            burn.monthToDate = 0;
            burn.monthMinutes = 0;
            burn.warned = false;
            burn.exceeded = false;
        }
        burn.monthToDate += minute.cost();
        burn.monthMinutes++;
        burn.rateMinutes++;
        double weight = Math.max(alpha, 1.0 / burn.rateMinutes);
        burn.ratePerHour += weight * (minute.perHour() - burn.ratePerHour);
    }

    private CostAnomaly anomaly(Budget budget, Burn burn, Severity severity, double actual, SpendMinute minute,
                                double hoursLeft, Instant detectedAt) {
        Instant monthStart = burn.month.atDay(1).atStartOfDay(ZoneOffset.UTC).toInstant();
        boolean spent = severity == Severity.CRITICAL;
        Finding finding = Finding.of(AnomalyKind.BUDGET_BURN).dimension(budget.dimension())
                .subject(budget.subject()).severity(severity).measure(spent ? SPENT_MEASURE : FORECAST_MEASURE)
                .expected(budget.amount()).actual(actual).currency(budget.currency()).windowStart(monthStart)
                .windowEnd(minute.minuteEnd());
        Map<String, Object> evidence = new LinkedHashMap<>();
        evidence.put("budget", budget.amount());
        evidence.put("monthToDate", burn.monthToDate);
        evidence.put("recentPerHour", burn.ratePerHour);
        evidence.put("hoursLeft", hoursLeft);
        evidence.put("forecast", burn.monthToDate + burn.ratePerHour * hoursLeft);
        evidence.put("minutesObserved", burn.monthMinutes);
        evidence.put("rateHalfLifeMinutes", settings.rateHalfLife().toMinutes());
        return finding.toAnomaly(detectedAt, null, summary(finding, burn), evidence);
    }

    private static String summary(Finding finding, Burn burn) {
        String currency = " " + finding.currency();
        String over = Anomalies.percent(CostAnomaly.percentAbove(finding.expected(), finding.actual()))
                + " over its budget of " + Anomalies.money(finding.expected()) + currency;
        String who = finding.dimension() + " " + finding.subject();
        if (finding.severity() == Severity.CRITICAL) {
            return who + " has spent " + Anomalies.money(finding.actual()) + currency + " this month, " + over;
        }
        return who + " is on course to spend " + Anomalies.money(finding.actual()) + currency + " this month, "
                + over + " (" + Anomalies.money(burn.monthToDate) + currency + " so far, recently "
                + Anomalies.money(burn.ratePerHour) + currency + "/h)";
    }
}
