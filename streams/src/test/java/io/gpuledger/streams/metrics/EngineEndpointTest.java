package io.gpuledger.streams.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Which states of the engine its probes call live and ready; no engine runs. */
class EngineEndpointTest {

    @Test
    void shouldBeLiveUntilTheEngineFailsOrStopsAndReadyOnlyWhileItRuns() {
        assertThat(EngineEndpoint.live(org.apache.kafka.streams.KafkaStreams.State.REBALANCING)).isTrue();
        assertThat(EngineEndpoint.ready(org.apache.kafka.streams.KafkaStreams.State.REBALANCING)).isFalse();
        assertThat(EngineEndpoint.live(org.apache.kafka.streams.KafkaStreams.State.ERROR)).isFalse();
        assertThat(EngineEndpoint.live(org.apache.kafka.streams.KafkaStreams.State.PENDING_SHUTDOWN)).isFalse();
        assertThat(EngineEndpoint.ready(org.apache.kafka.streams.KafkaStreams.State.RUNNING)).isTrue();
    }
}
