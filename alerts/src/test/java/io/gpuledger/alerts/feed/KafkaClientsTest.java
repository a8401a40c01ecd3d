package io.gpuledger.alerts.feed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/** A static member's instance id, checked before Kafka would refuse it. */
class KafkaClientsTest {

    private static final String GROUP = "membership-test";

    @Test
    void anIdKafkaWouldNotTakeIsRefusedByName() {
        assertThatThrownBy(() -> KafkaClients.consumer("127.0.0.1:9092", GROUP, Optional.of("alerts/0")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'alerts/0'");
        assertThatThrownBy(() -> KafkaClients.checkedInstanceId(""))
                .isInstanceOf(IllegalArgumentException.class);
        String podName = "gpu-ledger-alerts-5d8f7.x_1";
        assertThat(KafkaClients.checkedInstanceId(podName)).isEqualTo(podName);
    }
}
