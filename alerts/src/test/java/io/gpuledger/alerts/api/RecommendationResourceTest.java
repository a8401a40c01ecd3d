package io.gpuledger.alerts.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;

import io.gpuledger.alerts.ApiClients;
import io.gpuledger.alerts.recommend.RecommendationDesk;
import io.gpuledger.model.Json;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Placement;
import io.gpuledger.model.Recommendation;
import io.gpuledger.model.RecommendationAction;
import io.gpuledger.model.RecommendationKind;
import io.gpuledger.model.RecommendationStatus;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import io.restassured.response.ValidatableResponse;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code /api/recommendations}: what the desk holds, as on the topic, and the decisions taken on it. */
@QuarkusTest
@WithTestResource(BareBroker.class)
class RecommendationResourceTest {

    @Inject
    RecommendationDesk desk;

    @Test
    void shouldAnswerARecommendationByTargetAndById() {
        // Given an open recommendation to release an idle instance
        Recommendation raised = desk.raise(idle("i-api-listed")).orElseThrow();

        // Then it is listed by its target, kind and status, and found by its id, as published
        assertThat(recommendations("/api/recommendations?target=i-api-listed&kind=reclaim_idle&status=open"))
                .containsExactly(raised);
        assertThat(recommendations("/api/recommendations?target=i-api-listed&status=dismissed")).isEmpty();
        assertThat(Json.read(ok(ApiClients.reader().get("/api/recommendations/" + raised.id())).extract()
                .asByteArray(), Recommendation.class)).isEqualTo(raised);
        ApiClients.reader().get("/api/recommendations/reclaim_idle:instance:i-api-unknown").then().statusCode(404)
                .body(containsString("no such recommendation"));
    }

    @Test
    void shouldAcknowledgeForTheActRole() {
        Recommendation raised = desk.raise(idle("i-api-acked")).orElseThrow();

        // When the act role acknowledges it
        Recommendation acknowledged = Json.read(ok(ApiClients.actor().post("/api/recommendations/" + raised.id()
                + "/ack")).extract().asByteArray(), Recommendation.class);

        // Then the answer is the record published, and the list shows it acknowledged
        assertThat(acknowledged.id()).isEqualTo(raised.id());
        assertThat(acknowledged.status()).isEqualTo(RecommendationStatus.ACKNOWLEDGED);
        assertThat(recommendations("/api/recommendations?target=i-api-acked&status=acknowledged"))
                .containsExactly(acknowledged);
    }

    @Test
    void shouldFindAndDecideARecommendationWhoseJobIdHoldsASlash() {
        // A job named after its pod with its namespace (the agent's kubernetes.job-ids=namespace/pod)
        Instant now = Instant.now();
        Recommendation raised = desk.raise(Recommendation.open(RecommendationKind.RECLAIM_IDLE,
                Recommendation.Target.job("alice/notebook-0"), "Shrink alice/notebook-0",
                RecommendationAction.ReclaimIdle.ofJob("alice/notebook-0", List.of("i-api-nb"), 0, List.of()), null,
                700, "USD", 0.9, now, now.plus(Duration.ofMinutes(10)), null)).orElseThrow();
        String path = "/api/recommendations/" + raised.id().replace("/", "%2F");

        // Then its id, the slash escaped as a client escapes it in a path, finds it and decides on it
        assertThat(Json.read(ok(ApiClients.reader().urlEncodingEnabled(false).get(path)).extract().asByteArray(),
                Recommendation.class)).isEqualTo(raised);
        Recommendation acknowledged = Json.read(ok(ApiClients.actor().urlEncodingEnabled(false).post(path + "/ack"))
                .extract().asByteArray(), Recommendation.class);
        assertThat(acknowledged.id()).isEqualTo("reclaim_idle:job:alice/notebook-0");
        assertThat(acknowledged.status()).isEqualTo(RecommendationStatus.ACKNOWLEDGED);
    }

    @Test
    void shouldRefuseAnUnknownKindOrStatus() {
        ApiClients.reader().get("/api/recommendations?kind=buy-more").then().statusCode(400)
                .body(containsString("unknown kind 'buy-more'"));
        ApiClients.reader().get("/api/recommendations?status=pending").then().statusCode(400)
                .body(containsString("unknown status 'pending'"));
    }

    private static List<Recommendation> recommendations(String path) {
        return List.of(Json.read(ok(ApiClients.reader().get(path)).extract().asByteArray(), Recommendation[].class));
    }

    private static ValidatableResponse ok(Response response) {
        return response.then().statusCode(200);
    }

    private static Recommendation idle(String instance) {
        Instant now = Instant.now();
        return Recommendation.open(RecommendationKind.RECLAIM_IDLE,
                Recommendation.Target.instance(new Placement("node-1", instance, "g5.xlarge", "aws", "us-east-1",
                        Lifecycle.ON_DEMAND)),
                "Release idle instance " + instance, RecommendationAction.ReclaimIdle.instance(instance, List.of()),
                null, 700, "USD", 0.9, now, now.plus(Duration.ofMinutes(10)), null);
    }
}
