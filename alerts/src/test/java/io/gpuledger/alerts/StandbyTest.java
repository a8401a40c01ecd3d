package io.gpuledger.alerts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A replica that never gets the lease (its cluster is not there) stands by: it opens no stage, and the API
 * answers that the service has not started, even though asking built the stages' beans.
 */
@QuarkusTest
@TestProfile(StandbyTest.NoLease.class)
class StandbyTest {

    /** The lease on, and a cluster address nothing listens on: the lease is never given. */
    public static class NoLease implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("gpuledger.replica.lease", "true", "gpuledger.topics.create", "false",
                    "kafka.bootstrap.servers", "127.0.0.1:1");
        }
    }

    @Inject
    AlertService service;

    /** Every stage bean, built here if nothing asked for it before. */
    @Inject
    Instance<Stage> stages;

    @Test
    void shouldOpenNoStageAndAnswerNotStartedYet() {
        // When the API is asked for what each stage shows, then it answers that the service has not started
        for (String path : new String[] {"/api/recommendations", "/api/fleet", "/api/anomalies"}) {
            ApiClients.reader().get(path).then().statusCode(503).body(containsString("not started yet"));
        }
        ApiClients.reader().queryParam("name[]", "gpuledger_gpu_cost_per_hour").queryParam("gpu[]", "GPU-1")
                .get("/api/metrics").then().statusCode(503).body(containsString("not started yet"));

        // And no stage was opened, though every one was built
        assertThat(service.started()).isFalse();
        assertThat(service.openedStages()).isEmpty();
        assertThat(stages.stream().map(Stage::isOpen)).hasSize(8).containsOnly(false);
    }
}
