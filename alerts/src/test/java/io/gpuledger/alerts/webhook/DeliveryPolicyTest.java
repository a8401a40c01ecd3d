package io.gpuledger.alerts.webhook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class DeliveryPolicyTest {

    private final DeliveryPolicy policy = new DeliveryPolicy(Duration.ofSeconds(1), Duration.ofSeconds(2),
            Duration.ofSeconds(1), Duration.ofSeconds(30));

    @Test
    void shouldDoubleTheWaitUpToTheCapWithJitterOfHalf() {
        assertThat(policy.retryDelay(1, null, 0.0)).isEqualTo(Duration.ofMillis(500));
        assertThat(policy.retryDelay(1, null, 0.999_999)).isBetween(Duration.ofMillis(999), Duration.ofSeconds(1));
        assertThat(policy.retryDelay(3, null, 0.0)).isEqualTo(Duration.ofSeconds(2));
        assertThat(policy.retryDelay(6, null, 0.0)).isEqualTo(Duration.ofSeconds(15));
        assertThat(policy.retryDelay(1_000, null, 0.999_999)).isBetween(Duration.ofSeconds(29), Duration.ofSeconds(30));
    }

    @Test
    void shouldWaitAtLeastWhatTheReceiverAskedForUpToAnHour() {
        assertThat(policy.retryDelay(1, Duration.ofSeconds(7), 0.5)).isEqualTo(Duration.ofSeconds(7));
        assertThat(policy.retryDelay(6, Duration.ofSeconds(1), 0.0)).isEqualTo(Duration.ofSeconds(15));
        assertThat(policy.retryDelay(1, Duration.ofDays(2), 0.0)).isEqualTo(DeliveryPolicy.MAX_RETRY_AFTER);
    }

    @Test
    void shouldRefuseAMaximumBelowTheInitialWait() {
        assertThatThrownBy(() -> new DeliveryPolicy(Duration.ofSeconds(1), Duration.ofSeconds(1),
                Duration.ofSeconds(10), Duration.ofSeconds(5)))
                .hasMessageContaining("maxBackoff");
    }
}
