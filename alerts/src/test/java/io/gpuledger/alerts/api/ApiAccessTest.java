package io.gpuledger.alerts.api;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.matchesPattern;
import static org.hamcrest.Matchers.not;

import io.gpuledger.alerts.ApiClients;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.Test;

/**
 * The API's roles as a client meets them: {@code GET /api/*} needs a read or act token, ack and dismiss an act
 * token; metrics and health answer on the management port without any, and not on the API's port. A bare
 * broker: no cost engine, no records, so the service answers from what it holds (nothing), in the JSON of the
 * contract ({@link JsonBodies}). Seen to fail with {@code ApiAccessFilter} taking a read token for the act role.
 */
@QuarkusTest
@WithTestResource(BareBroker.class)
class ApiAccessTest {

    private static final String READ = "Bearer " + ApiClients.READ_TOKEN;
    private static final String ACT = "Bearer " + ApiClients.ACT_TOKEN;

    @Test
    void shouldAnswerReadsToTheReadAndActRolesOnly() {
        given().get("/api/anomalies").then().statusCode(401)
                .header("WWW-Authenticate", "Bearer realm=\"gpu-ledger\"")
                .body(containsString("read or act role"));
        given().header("Authorization", "Bearer not-a-token").get("/api/anomalies").then().statusCode(401);
        given().header("Authorization", READ).get("/api/anomalies").then().statusCode(200);
        given().header("Authorization", ACT).get("/api/anomalies").then().statusCode(200);
    }

    @Test
    void shouldLetOnlyTheActRoleAcknowledge() {
        given().header("Authorization", READ).post("/api/recommendations/no-such-id/ack").then().statusCode(403)
                .body(containsString("read role"));
        given().post("/api/recommendations/no-such-id/dismiss").then().statusCode(401);
        // Past the filter: the act role reaches the resource, which knows no such recommendation
        given().header("Authorization", ACT).post("/api/recommendations/no-such-id/ack").then().statusCode(404);
    }

    @Test
    void shouldAnswerEachResourceInTheContractsJson() {
        // Nothing read for these (the other API tests put their own in): empty lists, and the fleet as of now,
        // its instant as ISO text
        given().header("Authorization", READ).get("/api/recommendations?target=nothing-here").then()
                .statusCode(200).contentType(containsString("application/json")).body(equalTo("[]"));
        given().header("Authorization", READ).get("/api/anomalies?subject=nothing-here").then().statusCode(200)
                .body(equalTo("[]"));
        given().header("Authorization", READ).get("/api/fleet").then().statusCode(200)
                .contentType(containsString("application/json"))
                .body(matchesPattern("\\{\"asOf\":\"\\d{4}-\\d\\d-\\d\\dT[^\"]*Z\".*"));
    }

    @Test
    void shouldServeMetricsAndHealthOnTheManagementPortWithoutAToken() {
        given().get(ApiClients.management("/q/metrics")).then().statusCode(200).body(containsString("# TYPE"))
                .body(not(containsString("test-token")));
        given().get(ApiClients.management("/q/health/live")).then().statusCode(200);
        // and not on the API's port, where whoever reaches it would read them without a token
        given().get("/q/metrics").then().statusCode(404);
    }
}
