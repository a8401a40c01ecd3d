package io.gpuledger.alerts.anomaly;

import io.gpuledger.alerts.AlertSettings;
import io.gpuledger.alerts.anomaly.Anomalies.Finding;
import io.gpuledger.model.AnomalyKind;
import io.gpuledger.model.CostAnomaly;
import io.gpuledger.model.CostAnomaly.Severity;
import io.gpuledger.model.JobEconomics;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * COST_PER_THROUGHPUT: a job whose cost per 1M units of work (tokens, samples, …) is worse than
 * its own {@link RobustBaseline} by at least {@code thresholdPercent} for
 * {@code consecutiveMinutes} adjacent minutes: one slow minute (a checkpoint, an evaluation pass)
 * is not a regression. Each unit a job reports is a series of its own.
 *
 * <p>Only minutes with reported throughput and a cost per 1M of the unit are judged: a job that
 * reports no work has an unknown cost per unit, not a bad one. A minute that does not follow
 * the previous one directly breaks a run of bad minutes.
 *
 * <p>The anomaly compares the minute that completes the run with the baseline as it was when the
 * run began, since the baseline has already started to adopt the new level (clamped, see
 * {@link RobustBaseline}) during the run. CRITICAL from twice the threshold. Episodes as in
 * {@link SpendRateDetector}: once per episode, again on escalation; a new one after
 * {@code recoveryMinutes} minutes within the threshold. Not thread-safe.
 */
public final class CostPerThroughputDetector {

    public static final String DIMENSION = "job";

    private record SeriesKey(String jobId, String unit, String currency) {
    }

    private final class Series {
        final RobustBaseline baseline = new RobustBaseline(settings.baseline(), settings.minSpreadPerMillionUnits());
        final Episode episode = new Episode(settings.recoveryMinutes());
        int run;
        Instant runStart;
        double usualAtRunStart;
        final MinuteOrder order = new MinuteOrder();
        Instant lastEnd;
    }

    private final AlertSettings.CostPerThroughput settings;
    private final Map<SeriesKey, Series> series;
    private long staleMinutes;

    /**
     * @param settings how much worse than the baseline a minute must be, for how many adjacent minutes, the minutes
     *                 within the threshold that end an episode, how many series are followed, and each one's
     *                 baseline of cost per 1M units
     */
    public CostPerThroughputDetector(AlertSettings.CostPerThroughput settings) {
        if (!(settings.thresholdPercent() > 0) || settings.consecutiveMinutes() <= 0) {
            throw new IllegalArgumentException("thresholdPercent and consecutiveMinutes must be positive, were "
                    + settings.thresholdPercent() + " and " + settings.consecutiveMinutes());
        }
        RobustBaseline.check(settings.baseline(), settings.minSpreadPerMillionUnits());
        this.settings = settings;
        this.series = new BoundedMap<>(settings.maxSeries());
    }

    /**
     * Judges one closed minute of a job, unit by unit, then learns from it. Returns the anomalies
     * to deliver (at most one per unit), in the order of the units' names.
     */
    public List<CostAnomaly> observe(JobEconomics minute, Instant detectedAt) {
        if (!minute.throughputReported() || minute.costPerMillionUnits().isEmpty()) {
            return List.of();
        }
        List<CostAnomaly> found = new ArrayList<>();
        new TreeMap<>(minute.costPerMillionUnits()).forEach((unit, value) -> {
            Series one = series.computeIfAbsent(new SeriesKey(minute.jobId(), unit, minute.currency()),
                    key -> new Series());
            if (!one.order.advance(minute.windowStart())) {
                staleMinutes++;
                return;
            }
            if (!minute.windowStart().equals(one.lastEnd)) {
                one.run = 0;
            }
            one.lastEnd = minute.windowEnd();
            judge(one, minute, unit, value, detectedAt).ifPresent(found::add);
            one.baseline.observe(value);
        });
        return found;
    }

    /** Unit minutes ignored because their series had already seen that minute or a later one. */
    public long staleMinutes() {
        return staleMinutes;
    }

    private Optional<CostAnomaly> judge(Series one, JobEconomics minute, String unit, double value,
            Instant detectedAt) {
        RobustBaseline baseline = one.baseline;
        if (!baseline.ready()) {
            return Optional.empty();
        }
        Double worse = CostAnomaly.percentAbove(baseline.expected(), value);
        if (worse == null || worse < settings.thresholdPercent()) {
            one.run = 0;
            one.episode.normal();
            return Optional.empty();
        }
        if (one.run++ == 0) {
            one.runStart = minute.windowStart();
            one.usualAtRunStart = baseline.expected();
        }
        if (!one.episode.open() && one.run < settings.consecutiveMinutes()) {
            return Optional.empty();
        }
        double usual = one.usualAtRunStart;
        Severity severity = CostAnomaly.percentAbove(usual, value) >= 2 * settings.thresholdPercent()
                ? Severity.CRITICAL : Severity.WARNING;
        if (!one.episode.anomalous(one.runStart, severity)) {
            return Optional.empty();
        }
        Finding finding = Finding.of(AnomalyKind.COST_PER_THROUGHPUT).dimension(DIMENSION)
                .subject(minute.jobId()).severity(severity).measure("cost per 1M " + unit).expected(usual).actual(value)
                .currency(minute.currency()).windowStart(one.episode.start()).windowEnd(minute.windowEnd());
        Map<String, Object> evidence = new LinkedHashMap<>();
        evidence.put("unit", unit);
        evidence.put("expected", usual);
        evidence.put("baselineNow", baseline.expected());
        evidence.put("spread", baseline.spread());
        evidence.put("score", baseline.score(value));
        evidence.put("minutesObserved", baseline.observed());
        evidence.put("consecutiveMinutes", one.run);
        evidence.put("thresholdPercent", settings.thresholdPercent());
        return Optional.of(finding.toAnomaly(detectedAt, null, summary(finding, unit, one.run), evidence));
    }

    private static String summary(Finding finding, String unit, int minutes) {
        String currency = " " + finding.currency();
        return "job " + finding.subject() + " costs " + Anomalies.money(finding.actual()) + currency + " per 1M "
                + unit + ", " + Anomalies.above(finding.expected(), finding.actual()) + " its usual "
                + Anomalies.money(finding.expected()) + currency + ", for " + minutes + " minutes in a row";
    }
}
