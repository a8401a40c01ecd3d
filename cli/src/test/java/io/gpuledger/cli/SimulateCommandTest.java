package io.gpuledger.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code gpu-ledger simulate}'s options and environment, read before any broker is reached. */
class SimulateCommandTest {

    @Test
    void shouldRefuseToRunWithoutAClusterOrWithAnAlertServicePort() {
        assertThatThrownBy(() -> SimulateCommand.parse(new String[0], Map.of()))
                .hasMessageContaining("set KAFKA_BOOTSTRAP_SERVERS");
        assertThatThrownBy(() -> SimulateCommand.parse(new String[] {"--http-port", "8081"},
                Map.of("KAFKA_BOOTSTRAP_SERVERS", "kafka:9092")))
                .hasMessageContaining("--http-port does not apply");
        assertThat(SimulateCommand.parse(new String[] {"--gpus", "96"}, Map.of("KAFKA_BOOTSTRAP_SERVERS", "kafka:9092"))
                .gpus()).isEqualTo(96);
    }
}
