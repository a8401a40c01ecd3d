package io.gpuledger.alerts.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class WebhookSenderTest {

    @Test
    void shouldRetryTimeoutsThrottlingAndServerErrorsAndRefuseTheRest() {
        assertThat(WebhookSender.classify(204, Optional.empty()).result()).isEqualTo(WebhookSender.Result.DELIVERED);
        for (int status : new int[] {408, 429, 500, 502, 503}) {
            assertThat(WebhookSender.classify(status, Optional.empty()).result())
                    .as("HTTP %d", status).isEqualTo(WebhookSender.Result.RETRY);
        }
        for (int status : new int[] {301, 400, 401, 404, 410, 422}) {
            assertThat(WebhookSender.classify(status, Optional.empty()).result())
                    .as("HTTP %d", status).isEqualTo(WebhookSender.Result.REFUSED);
        }
        assertThat(WebhookSender.classify(429, Optional.of(" 12 ")).retryAfter()).isEqualTo(Duration.ofSeconds(12));
        assertThat(WebhookSender.classify(503, Optional.of("Wed, 21 Oct 2015 07:28:00 GMT")).retryAfter()).isNull();
    }

    @Test
    void shouldPercentEncodeWhatCannotGoInAHeader() {
        assertThat(WebhookSender.headerSafe("spend_rate:team:ml:2024-05-01T10:00:00Z"))
                .isEqualTo("spend_rate:team:ml:2024-05-01T10:00:00Z");
        assertThat(WebhookSender.headerSafe("team:données 1%")).isEqualTo("team:donn%C3%A9es%201%25");
    }
}
