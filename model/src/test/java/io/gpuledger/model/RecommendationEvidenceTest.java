package io.gpuledger.model;

import static io.gpuledger.model.ContractFixtures.T0;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The evidence of the paths the v0.1.0 documents do not show: a period and a cap added around a
 * rule's figures, a peer observed with egress not known, a reservation carried on once bought.
 */
class RecommendationEvidenceTest {

    private static final RecommendationEvidence.Period PERIOD = new RecommendationEvidence.Period(
            T0.minusSeconds(3600), T0, 60, T0.minusSeconds(86_400), T0, 1.0);

    @Test
    void shouldWriteThePeriodFirstAndTheCapLastAroundTheFiguresOfAJob() throws Exception {
        // Given a switch to a peer's pool in another region, whose storage traffic the job does not say
        var observed = new RecommendationEvidence.SwitchInstanceType(null, "observed", "tokens", null, false, 1e6,
                720, 10, 2.5, 1.5, 1, 0.4, 0.15, 0.1, null, 0.8, null, 1, "USD",
                new RecommendationEvidence.SwitchInstanceType.Candidate(
                        new RecommendationEvidence.SwitchInstanceType.Observed("peer", null, T0, 1.5), null,
                        RecommendationEvidence.SwitchInstanceType.Egress.unknown("region", "aws|us-east-1",
                                "aws|us-west-2"), null),
                null);

        // When the rules add the period it was judged over and cut its claim to the job's bill
        RecommendationEvidence.Capped judged = observed.over(PERIOD)
                .capped(new RecommendationEvidence.Cap(7200, 5000, 1000));
        Recommendation recommendation = Recommendation.builder()
                .open(RecommendationKind.SWITCH_INSTANCE_TYPE, Recommendation.Target.job("job-1"), T0)
                .summary("switch").estimatedMonthlySaving(4000).currency("USD").confidence(0.8)
                .expiresAt(T0.plusSeconds(600)).evidence(judged).build();
        String written = Json.writeString(recommendation);

        // Then the keys are the period's, the rule's, and the cap's, in that order; unknown egress is null
        List<String> keys = keys(Json.MAPPER.readTree(written).path("evidence"));
        assertThat(keys.subList(0, 6)).containsExactly("periodStart", "periodEnd", "periodMinutes", "lookbackStart",
                "lookbackEnd", "runningShare");
        assertThat(keys.subList(keys.size() - 3, keys.size())).containsExactly("uncappedMonthlySaving",
                "jobBillPerMonth", "claimedByOtherRecommendations");
        assertThat(keys).doesNotContain("workload", "comparedWorkload", "egressGbPerMonth", "workloadClass",
                "headroom");
        assertThat(written).contains("\"egressCostPerMonth\":null,\"egressKnown\":false");
        // And it reads back as it was
        assertThat(Json.MAPPER.readValue(written, Recommendation.class).evidence()).isEqualTo(judged);
    }

    @Test
    void shouldCarryOnTheCommitmentOfAReservationBoughtAfterWhatMoreWouldPay() throws Exception {
        // Given a reservation recommended, then bought
        var pool = new RecommendationEvidence.ReserveCapacity(168, 0, 32.77, 21.3, "USD", "USD", 1.0, 0.35, 0.65,
                0.1, 3, 0, List.of(1.0, 1.0, 1.0), 3, null, null, null, null, null);
        var commitment = new RecommendationEvidence.ReserveCapacity.Commitment(3, 12, "price", 8760, "no-upfront",
                559_777.14, 168);
        var recommended = pool.committing(commitment);
        var bought = pool.bought(3, 0, recommended.commitment());

        // When each is written
        List<String> recommendedKeys = keys(Json.MAPPER.valueToTree(recommended));
        List<String> boughtKeys = keys(Json.MAPPER.valueToTree(bought));

        // Then a new one says how much of the term its history covers; a bought one what more would pay
        assertThat(recommended.historyShareOfTerm()).isEqualTo(168.0 / 8760);
        assertThat(recommended.historyShortfallHours()).isEqualTo(8592);
        assertThat(recommendedKeys.subList(14, recommendedKeys.size())).containsExactly("instancesToReserve",
                "termMonths", "termSource", "termHours", "paymentOption", "totalCommitment", "historyHours",
                "historyShareOfTerm", "historyShortfallHours");
        assertThat(boughtKeys.subList(14, boughtKeys.size())).containsExactly("reservedOnAdvice",
                "moreWorthReserving", "instancesToReserve", "termMonths", "termSource", "termHours", "paymentOption",
                "totalCommitment", "historyHours");
        assertThat(Json.MAPPER.treeToValue(Json.MAPPER.valueToTree(bought),
                RecommendationEvidence.ReserveCapacity.class)).isEqualTo(bought);
    }

    @Test
    void shouldRefuseAPartOfEvidenceStatedInPart() {
        String halfAPeriod = """
                {"schemaVersion":1,"id":"move_to_spot:job:j","kind":"MOVE_TO_SPOT","target":{"type":"job","id":"j"},\
                "summary":"s","estimatedMonthlySaving":1,"confidence":0.5,"createdAt":"2026-03-01T12:00:00Z",\
                "expiresAt":"2026-03-01T12:10:00Z","evidence":{"periodStart":"2026-03-01T11:00:00Z"}}""";

        assertThatThrownBy(() -> Json.MAPPER.readValue(halfAPeriod, Recommendation.class))
                .hasMessageContaining("evidence");
    }

    private static List<String> keys(JsonNode object) {
        List<String> keys = new ArrayList<>();
        object.fieldNames().forEachRemaining(keys::add);
        return keys;
    }
}
