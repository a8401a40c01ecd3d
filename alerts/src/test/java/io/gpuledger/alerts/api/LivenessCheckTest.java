package io.gpuledger.alerts.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuledger.alerts.feed.TopicReader.Health;
import io.gpuledger.alerts.feed.TopicReader.State;
import java.util.List;
import java.util.Optional;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.junit.jupiter.api.Test;

/** Liveness as a probe reads it: DOWN while any reader is not running its loop, naming which and why. */
class LivenessCheckTest {

    private static final Health CAPACITY = new Health("alerts-capacity", State.RUNNING, true, true, 0,
            Optional.empty());
    private static final Health FLEET = new Health("alerts-fleet", State.RUNNING, true, true, 0, Optional.empty());

    @Test
    void shouldBeUpWhileEveryReaderRunsEvenWithoutItsPartitions() {
        // a reader that runs but holds no partition (the broker is away) is alive: a restart would not help
        Health waiting = new Health("alerts-fleet", State.RUNNING, true, false, 0, Optional.empty());

        HealthCheckResponse response = LivenessCheck.response(true, List.of(CAPACITY, waiting), Optional.of(true));

        assertThat(response.getStatus()).isEqualTo(HealthCheckResponse.Status.UP);
        assertThat(response.getData().orElseThrow()).containsEntry("alerts-fleet", "RUNNING, 0 restarts")
                .containsEntry("webhook-dispatcher", "RUNNING");
    }

    @Test
    void shouldBeDownWhileAReaderWaitsToReadAgainAndSayWhy() {
        Health restarting = new Health("alerts-fleet", State.RESTARTING, false, false, 1,
                Optional.of("org.apache.kafka.common.errors.TimeoutException: Timeout of 60000ms expired"));

        HealthCheckResponse response = LivenessCheck.response(true, List.of(CAPACITY, restarting), Optional.empty());

        assertThat(response.getStatus()).isEqualTo(HealthCheckResponse.Status.DOWN);
        assertThat(response.getData().orElseThrow()).containsEntry("alerts-fleet", "RESTARTING, 1 restarts,"
                + " last failure: org.apache.kafka.common.errors.TimeoutException: Timeout of 60000ms expired");
    }

    @Test
    void shouldBeDownForAStuckLoopAnEndedReaderOrDispatcherAndBeforeTheStart() {
        Health stuck = new Health("alerts-fleet", State.RUNNING, false, true, 0, Optional.empty());
        Health dead = new Health("alerts-fleet", State.DEAD, false, false, 0,
                Optional.of("java.lang.StackOverflowError"));

        assertThat(LivenessCheck.response(true, List.of(CAPACITY, stuck), Optional.empty()).getData().orElseThrow())
                .containsEntry("alerts-fleet", "STUCK, 0 restarts");
        for (HealthCheckResponse down : List.of(
                LivenessCheck.response(true, List.of(CAPACITY, stuck), Optional.empty()),
                LivenessCheck.response(true, List.of(CAPACITY, dead), Optional.empty()),
                LivenessCheck.response(true, List.of(CAPACITY, FLEET), Optional.of(false)),
                LivenessCheck.response(false, List.of(), Optional.empty()))) {
            assertThat(down.getStatus()).isEqualTo(HealthCheckResponse.Status.DOWN);
        }
    }
}
