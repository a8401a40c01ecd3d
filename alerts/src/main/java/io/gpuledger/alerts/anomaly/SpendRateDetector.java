package io.gpuledger.alerts.anomaly;

import io.gpuledger.alerts.AlertSettings;
import io.gpuledger.alerts.anomaly.Anomalies.Finding;
import io.gpuledger.model.AnomalyKind;
import io.gpuledger.model.CostAnomaly;
import io.gpuledger.model.CostAnomaly.Cause;
import io.gpuledger.model.CostAnomaly.Severity;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * SPEND_RATE: a team, job or pool whose spend per hour (a closed minute's cost × 60) lies at least
 * {@code k} scales above its own {@link RobustBaseline} and by at least a money floor per hour.
 *
 * <p>Only rises are flagged: a sudden drop in spend loses no money, and capacity left idle is
 * the idle-GPU rule's business. Each anomalous episode is delivered once, and once more if it
 * escalates to CRITICAL (see {@link Anomalies#id}); a new episode needs {@code recoveryMinutes}
 * normal minutes first. Minutes that never arrive are not observed: no zeros are invented for them.
 *
 * <p>The root cause is the part of the minute (a job of a team, a pool of a job, by the minute's
 * {@link SpendMinute#parts()}) whose spend rose most above its own baseline. Within an observed
 * minute, a known part that is missing from a dimension the minute does break down spent nothing.
 *
 * <p>Subjects are told apart by dimension, subject and currency. Not thread-safe.
 */
public final class SpendRateDetector {

    public static final String MEASURE = "spend per hour";

    private record SubjectKey(String dimension, String subject, String currency) {
    }

    private record Part(String dimension, String id) {
    }

    private final class Subject {
        final RobustBaseline rate = new RobustBaseline(settings.baseline(), settings.minSpreadPerHour());
        final Map<Part, RobustBaseline> parts = new BoundedMap<>(settings.maxPartsPerSubject());
        final Episode episode = new Episode(settings.recoveryMinutes());
        final MinuteOrder order = new MinuteOrder();
    }

    private final AlertSettings.SpendRate settings;
    private final Map<SubjectKey, Subject> subjects;
    private long staleMinutes;

    /**
     * @param settings {@code k} scales above the baseline (and at least {@code min-impact-per-hour} of excess spend)
     *                 that make a minute anomalous, normal minutes in a row that end an episode, how many subjects
     *                 and parts per subject are followed, and each one's baseline of spend per hour
     */
    public SpendRateDetector(AlertSettings.SpendRate settings) {
        if (settings.k() <= 0 || settings.minImpactPerHour() < 0) {
            throw new IllegalArgumentException("k must be positive and minImpactPerHour not negative, were "
                    + settings.k() + " and " + settings.minImpactPerHour());
        }
        RobustBaseline.check(settings.baseline(), settings.minSpreadPerHour());
        this.settings = settings;
        this.subjects = new BoundedMap<>(settings.maxSubjects());
    }

    /**
     * Judges one closed minute, then learns from it. Returns the anomaly to deliver, if this minute
     * opens an episode or escalates one.
     */
    public Optional<CostAnomaly> observe(SpendMinute minute, Instant detectedAt) {
        Subject subject = subjects.computeIfAbsent(
                new SubjectKey(minute.dimension(), minute.subject(), minute.currency()), key -> new Subject());
        if (!subject.order.advance(minute.minuteStart())) {
            staleMinutes++;
            return Optional.empty();
        }
        Optional<CostAnomaly> found = judge(subject, minute, detectedAt);
        subject.rate.observe(minute.perHour());
        learnParts(subject, minute);
        return found;
    }

    /** Minutes ignored because their subject had already seen that minute or a later one. */
    public long staleMinutes() {
        return staleMinutes;
    }

    private Optional<CostAnomaly> judge(Subject subject, SpendMinute minute, Instant detectedAt) {
        RobustBaseline rate = subject.rate;
        if (!rate.ready()) {
            return Optional.empty();
        }
        double expected = rate.expected();
        double actual = minute.perHour();
        double score = rate.score(actual);
        if (score < settings.k() || actual - expected < settings.minImpactPerHour()) {
            subject.episode.normal();
            return Optional.empty();
        }
        Double percent = CostAnomaly.percentAbove(expected, actual);
        Severity severity = score >= 2 * settings.k() || (percent != null && percent >= 100)
                ? Severity.CRITICAL : Severity.WARNING;
        if (!subject.episode.anomalous(minute.minuteStart(), severity)) {
            return Optional.empty();
        }
        Finding finding = Finding.of(AnomalyKind.SPEND_RATE).dimension(minute.dimension())
                .subject(minute.subject()).severity(severity).measure(MEASURE).expected(expected).actual(actual)
                .currency(minute.currency()).windowStart(subject.episode.start()).windowEnd(minute.minuteEnd());
        Cause cause = rootCause(subject, minute, finding.impact());
        Map<String, Object> evidence = new LinkedHashMap<>();
        evidence.put("expected", expected);
        evidence.put("spread", rate.spread());
        evidence.put("scale", rate.scale());
        evidence.put("score", score);
        evidence.put("k", settings.k());
        evidence.put("minutesObserved", rate.observed());
        evidence.put("minuteStart", minute.minuteStart().toString());
        return Optional.of(finding.toAnomaly(detectedAt, cause, summary(finding, cause), evidence));
    }

    /** The part whose spend per hour rose most above its own usual level; null when none rose. */
    private static Cause rootCause(Subject subject, SpendMinute minute, double impact) {
        Cause best = null;
        for (Map.Entry<String, Map<String, Double>> dimension : minute.parts().entrySet()) {
            for (Map.Entry<String, Double> part : dimension.getValue().entrySet()) {
                RobustBaseline usual = subject.parts.get(new Part(dimension.getKey(), part.getKey()));
                double increase = part.getValue() * 60 - (usual == null ? 0 : usual.expected());
                if (increase > 0 && (best == null || increase > best.impact())) {
                    // Other parts may have fallen meanwhile: a share beyond the whole impact reads as all of it.
                    best = new Cause(dimension.getKey(), part.getKey(), increase, Math.min(1, increase / impact));
                }
            }
        }
        return best;
    }

    private void learnParts(Subject subject, SpendMinute minute) {
        Map<String, Map<String, Double>> parts = minute.parts();
        for (Map.Entry<Part, RobustBaseline> known : subject.parts.entrySet()) {
            Map<String, Double> costs = parts.get(known.getKey().dimension());
            if (costs != null && !costs.containsKey(known.getKey().id())) {
                known.getValue().observe(0);
            }
        }
        parts.forEach((dimension, costs) -> costs.forEach((id, cost) -> subject.parts
                .computeIfAbsent(new Part(dimension, id),
                        part -> new RobustBaseline(settings.baseline(), settings.minSpreadPerHour()))
                .observe(cost * 60)));
    }

    private static String summary(Finding finding, Cause cause) {
        String currency = finding.currency();
        String text = finding.dimension() + " " + finding.subject() + " spends " + Anomalies.money(finding.actual())
                + " " + currency + "/h, " + Anomalies.above(finding.expected(), finding.actual()) + " its usual "
                        + Anomalies.money(finding.expected())
                + " " + currency + "/h";
        return cause == null ? text
                : text + "; " + cause.dimension() + " " + cause.id() + " accounts for "
                        + Anomalies.percent(cause.share() * 100);
    }
}
