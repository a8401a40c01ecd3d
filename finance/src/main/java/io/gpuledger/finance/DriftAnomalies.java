package io.gpuledger.finance;

import io.gpuledger.finance.Reconciliation.InstanceDay;
import io.gpuledger.finance.Reconciliation.OfferRate;
import io.gpuledger.model.AnomalyKind;
import io.gpuledger.model.CostAnomaly;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * The offers a reconciliation finds off by more than a threshold, as {@link AnomalyKind#BILL_DRIFT} anomalies for
 * finance: expected is the engine's estimate, actual the bill's effective cost, and the evidence names the
 * instances whose days differ most (the root cause the one that differs most).
 */
public final class DriftAnomalies {

    static final String DIMENSION = "offer";
    /** The most instances an anomaly names. */
    static final int INSTANCES = 10;
    static final String MEASURE = "effective cost on the bill against the engine's estimate";

    private DriftAnomalies() {
    }

    /** One anomaly per offer and account whose ratio is off by more than {@code threshold}. */
    public static List<CostAnomaly> of(Reconciliation.Report report, double threshold, Instant from, Instant to,
            Instant now) {
        List<CostAnomaly> anomalies = new ArrayList<>();
        for (OfferRate rate : report.offers()) {
            double off = Math.abs(rate.ratio() - 1);
            if (off <= threshold) {
                continue;
            }
            Map<String, BigDecimal> byInstance = new LinkedHashMap<>();
            String currency = report.currencyOf(rate);
            for (InstanceDay day : report.days()) {
                if (rate.offer().key().equals(day.offer()) && Objects.equals(rate.account(), day.account())) {
                    byInstance.merge(day.instanceId(), day.effective().subtract(day.estimated()), BigDecimal::add);
                }
            }
            List<Map.Entry<String, BigDecimal>> behind = byInstance.entrySet().stream()
                    .sorted(Comparator.comparing((Map.Entry<String, BigDecimal> e) -> e.getValue().abs()).reversed())
                    .limit(INSTANCES).toList();
            double expected = rate.estimated().doubleValue();
            double actual = rate.effective().doubleValue();
            double impact = actual - expected;
            CostAnomaly.Severity severity = off > 5 * threshold ? CostAnomaly.Severity.CRITICAL
                    : CostAnomaly.Severity.WARNING;
            String subject = rate.offer().key();
            Map<String, Object> evidence = new LinkedHashMap<>();
            evidence.put("billingAccountId", rate.account());
            evidence.put("ratio", rate.ratio());
            evidence.put("instances", behind.stream().map(Map.Entry::getKey).toList());
            CostAnomaly.Cause cause = behind.isEmpty() ? null : new CostAnomaly.Cause("instance",
                    behind.get(0).getKey(), behind.get(0).getValue().doubleValue(),
                    impact == 0 ? 0 : behind.get(0).getValue().doubleValue() / impact);
            String summary = String.format(Locale.ROOT, "The bill of account %s charged %s %.2f %s effective"
                    + " against an estimate of %.2f (%+.1f%%), from %s to %s; the instances behind it: %s",
                    rate.account(), subject, actual, currency, expected, (rate.ratio() - 1) * 100, from, to,
                    String.join(", ", behind.stream().map(Map.Entry::getKey).toList()));
            anomalies.add(new CostAnomaly(CostAnomaly.SCHEMA_VERSION,
                    // The severity in the id, as the alert service's anomalies have it: a receiver that took the
                    // warning still gets the critical finding of the same offer and period.
                    CostAnomaly.idFor(AnomalyKind.BILL_DRIFT, DIMENSION, subject + "|" + rate.account(), from) + ":"
                            + severity.name().toLowerCase(Locale.ROOT),
                    AnomalyKind.BILL_DRIFT, DIMENSION, subject, severity, MEASURE, expected, actual, impact,
                    CostAnomaly.percentAbove(expected, actual), currency, from, to, now, cause, summary, evidence));
        }
        return anomalies;
    }
}
