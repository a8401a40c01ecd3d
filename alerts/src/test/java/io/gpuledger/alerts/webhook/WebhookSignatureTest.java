package io.gpuledger.alerts.webhook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class WebhookSignatureTest {

    private static final String SECRET = "whsec_test";
    private static final long SENT_AT = 1_714_557_600L;
    private static final Instant NOW = Instant.ofEpochSecond(SENT_AT + 30);
    private static final Duration TOLERANCE = Duration.ofMinutes(5);
    private static final byte[] BODY = "{\"event\":\"cost.anomaly\"}".getBytes(StandardCharsets.UTF_8);

    @Test
    void shouldSignTimestampDotBodyWithHmacSha256InLowercaseHex() {
        // The value Python's hmac module gives for the same secret, timestamp and body (docs/webhooks.md)
        assertThat(WebhookSignature.sign(SECRET, SENT_AT, BODY))
                .isEqualTo("sha256=3a62060ba91647f780e45088cc2e897c7ad164b72553a18453ad47ff39e9e941");
    }

    @Test
    void shouldAcceptWhatItSignedWithinTheTolerance() {
        String signature = WebhookSignature.sign(SECRET, SENT_AT, BODY);

        assertThat(WebhookSignature.verify(SECRET, Long.toString(SENT_AT), BODY, signature, NOW, TOLERANCE)).isTrue();
    }

    @Test
    void shouldRejectATamperedBody() {
        String signature = WebhookSignature.sign(SECRET, SENT_AT, BODY);
        byte[] tampered = "{\"event\":\"cost.anomalY\"}".getBytes(StandardCharsets.UTF_8);

        assertThat(WebhookSignature.verify(SECRET, Long.toString(SENT_AT), tampered, signature, NOW, TOLERANCE))
                .isFalse();
    }

    @Test
    void shouldRejectAStaleOrFutureTimestamp() {
        String signature = WebhookSignature.sign(SECRET, SENT_AT, BODY);
        Instant muchLater = Instant.ofEpochSecond(SENT_AT).plus(TOLERANCE).plusSeconds(1);
        Instant muchEarlier = Instant.ofEpochSecond(SENT_AT).minus(TOLERANCE).minusSeconds(1);

        assertThat(WebhookSignature.verify(SECRET, Long.toString(SENT_AT), BODY, signature, muchLater, TOLERANCE))
                .isFalse();
        assertThat(WebhookSignature.verify(SECRET, Long.toString(SENT_AT), BODY, signature, muchEarlier, TOLERANCE))
                .isFalse();
    }

    @Test
    void shouldRejectAReplayUnderAnotherTimestamp() {
        String signature = WebhookSignature.sign(SECRET, SENT_AT, BODY);

        assertThat(WebhookSignature.verify(SECRET, Long.toString(SENT_AT + 10), BODY, signature, NOW, TOLERANCE))
                .isFalse();
    }

    @Test
    void shouldRejectAnotherSecretAndMalformedHeaders() {
        String signature = WebhookSignature.sign(SECRET, SENT_AT, BODY);
        String ts = Long.toString(SENT_AT);

        assertThat(WebhookSignature.verify("another", ts, BODY, signature, NOW, TOLERANCE)).isFalse();
        assertThat(WebhookSignature.verify(SECRET, ts, BODY, signature.substring("sha256=".length()), NOW, TOLERANCE))
                .isFalse();
        assertThat(WebhookSignature.verify(SECRET, ts, BODY, signature.toUpperCase(), NOW, TOLERANCE)).isFalse();
        assertThat(WebhookSignature.verify(SECRET, ts, BODY, "sha256=", NOW, TOLERANCE)).isFalse();
        assertThat(WebhookSignature.verify(SECRET, "yesterday", BODY, signature, NOW, TOLERANCE)).isFalse();
        assertThat(WebhookSignature.verify(SECRET, null, BODY, signature, NOW, TOLERANCE)).isFalse();
        assertThat(WebhookSignature.verify(SECRET, ts, BODY, null, NOW, TOLERANCE)).isFalse();
        assertThat(WebhookSignature.verify("", ts, BODY, signature, NOW, TOLERANCE)).isFalse();
    }

    @Test
    void shouldRefuseToSignWithoutASecret() {
        assertThatThrownBy(() -> WebhookSignature.sign("", SENT_AT, BODY))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("secret");
    }
}
