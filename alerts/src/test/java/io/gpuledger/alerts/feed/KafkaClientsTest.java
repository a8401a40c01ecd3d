package io.gpuledger.alerts.feed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Optional;
import java.util.Properties;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.junit.jupiter.api.Test;

/** A static member's instance id, checked before Kafka would refuse it; the service's producer settings. */
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

    @Test
    void theServicesProducerIsReliableAndCompressedAsEveryProgramsIs() {
        Properties producer = KafkaClients.producer("127.0.0.1:9092", "alerts-test");

        assertThat(producer).containsEntry(ProducerConfig.ACKS_CONFIG, "all")
                .containsEntry(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true)
                .containsEntry(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4")
                .containsEntry(ProducerConfig.CLIENT_ID_CONFIG, "alerts-test");
    }
}
