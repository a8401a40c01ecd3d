package io.gpuledger.finance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gpuledger.model.AnomalyKind;
import io.gpuledger.model.CostAnomaly;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The test world's first week ({@link BillWorld}): which offers drift, how far, and who is behind it. */
class DriftAnomaliesTest {

    @TempDir
    Path folder;

    @Test
    void shouldRaiseAnAnomalyPerOfferOffByMoreThanTwoPercentNamingItsInstances() throws Exception {
        Instant weekTwo = BillWorld.START.plus(Duration.ofDays(7));
        try (Connection connection = DriverManager.getConnection("jdbc:duckdb:")) {
            BillWorld.loadInto(connection, folder);
            Reconciliation.Report report = Reconciliation.of(connection,
                    BillWorld.engineHours(0, 7, BillWorld::enginePrice), BillWorld.START, weekTwo);

            List<CostAnomaly> anomalies = DriftAnomalies.of(report, 0.02, BillWorld.START, weekTwo, weekTwo);

            // 7% off the p5.48xlarge, 37% off the Savings Plan's g6.12xlarge, 7% off the reservation; spot agrees
            assertThat(anomalies).extracting(CostAnomaly::subject).containsExactlyInAnyOrder(
                    "aws|us-east-1|p5.48xlarge|on-demand", "aws|us-east-1|g6.12xlarge|on-demand",
                    "aws|us-east-1|g5.48xlarge|reserved");
            assertThat(anomalies).allSatisfy(anomaly -> assertThat(anomaly.kind()).isEqualTo(AnomalyKind.BILL_DRIFT));
            CostAnomaly plan = anomalies.stream().filter(a -> a.subject().contains("g6.12xlarge")).findFirst()
                    .orElseThrow();
            assertThat(plan.severity()).isEqualTo(CostAnomaly.Severity.CRITICAL);
            // 7 days x 24 h at 4.60 estimated, at 2.90 effective
            assertThat(plan.expected()).isCloseTo(7 * 24 * 4.60, within(1e-6));
            assertThat(plan.actual()).isCloseTo(7 * 24 * 2.90, within(1e-6));
            assertThat(plan.evidence().get("instances")).isEqualTo(List.of(BillWorld.SAVINGS_PLAN.id()));
            assertThat(plan.rootCause().id()).isEqualTo(BillWorld.SAVINGS_PLAN.id());
            CostAnomaly onDemand = anomalies.stream().filter(a -> a.subject().contains("p5.48xlarge")).findFirst()
                    .orElseThrow();
            assertThat(onDemand.severity()).isEqualTo(CostAnomaly.Severity.WARNING);
            assertThat(onDemand.impactPercent()).isCloseTo(-7.0, within(1e-6));

            // And with a threshold five times tighter, the 7% off is CRITICAL: an escalation of the same offer and
            // period, under an id of its own (a receiver drops an id it has handled), while the same finding found
            // again has the same id
            CostAnomaly escalated = DriftAnomalies.of(report, 0.01, BillWorld.START, weekTwo, weekTwo).stream()
                    .filter(a -> a.subject().contains("p5.48xlarge")).findFirst().orElseThrow();
            assertThat(escalated.severity()).isEqualTo(CostAnomaly.Severity.CRITICAL);
            assertThat(escalated.id()).isNotEqualTo(onDemand.id());
            assertThat(DriftAnomalies.of(report, 0.02, BillWorld.START, weekTwo, weekTwo.plusSeconds(60)))
                    .extracting(CostAnomaly::id).contains(onDemand.id());
        }
    }
}
