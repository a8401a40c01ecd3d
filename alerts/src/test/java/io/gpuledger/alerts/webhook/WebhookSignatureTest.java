package io.gpuledger.alerts.webhook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class WebhookSignatureTest {

    /** The example of the Standard Webhooks specification: its secret, id, timestamp and body. */
    private static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    private static final String ID = "msg_p5jXN8AQM9LWM0D4loKWxJek";
    private static final long SENT_AT = 1_614_265_330L;
    private static final byte[] BODY = "{\"test\": 2432232314}".getBytes(StandardCharsets.UTF_8);
    private static final String OTHER_SECRET = "whsec_c2Vjb25kLXNlY3JldC1mb3Itcm90YXRpb24=";
    private static final Instant NOW = Instant.ofEpochSecond(SENT_AT + 30);
    private static final Duration TOLERANCE = Duration.ofMinutes(5);

    @Test
    void shouldSignIdDotTimestampDotBodyAsTheSpecificationsExample() {
        // The specification's own value, also what Python's hmac gives for base64-decoded key,
        // "msg_p5jXN8AQM9LWM0D4loKWxJek.1614265330.{\"test\": 2432232314}"
        assertThat(WebhookSignature.sign(List.of(SECRET), ID, SENT_AT, BODY))
                .isEqualTo("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
    }

    @Test
    void shouldSignWithEverySecretSoThatEitherVerifiesDuringARotation() {
        String header = WebhookSignature.sign(List.of(OTHER_SECRET, SECRET), ID, SENT_AT, BODY);

        assertThat(header.split(" ")).hasSize(2).allMatch(signature -> signature.startsWith("v1,"));
        assertThat(header.split(" ")[1]).isEqualTo("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
        assertThat(verify(SECRET, ID, Long.toString(SENT_AT), BODY, header)).isTrue();
        assertThat(verify(OTHER_SECRET, ID, Long.toString(SENT_AT), BODY, header)).isTrue();
        assertThat(verify("whsec_dGhpcmQtc2VjcmV0", ID, Long.toString(SENT_AT), BODY, header)).isFalse();
    }

    @Test
    void shouldRejectATamperedBodyIdOrTimestamp() {
        String header = WebhookSignature.sign(List.of(SECRET), ID, SENT_AT, BODY);
        byte[] tampered = "{\"test\": 2432232315}".getBytes(StandardCharsets.UTF_8);

        assertThat(verify(SECRET, ID, Long.toString(SENT_AT), tampered, header)).isFalse();
        // The id is signed: a captured delivery cannot pass as a new one to a receiver that drops repeats
        assertThat(verify(SECRET, ID + "x", Long.toString(SENT_AT), BODY, header)).isFalse();
        assertThat(verify(SECRET, ID, Long.toString(SENT_AT + 10), BODY, header)).isFalse();
    }

    @Test
    void shouldRejectAStaleOrFutureTimestamp() {
        String header = WebhookSignature.sign(List.of(SECRET), ID, SENT_AT, BODY);
        Instant muchLater = Instant.ofEpochSecond(SENT_AT).plus(TOLERANCE).plusSeconds(1);
        Instant muchEarlier = Instant.ofEpochSecond(SENT_AT).minus(TOLERANCE).minusSeconds(1);
        String ts = Long.toString(SENT_AT);

        assertThat(WebhookSignature.verify(SECRET, ID, ts, BODY, header, muchLater, TOLERANCE)).isFalse();
        assertThat(WebhookSignature.verify(SECRET, ID, ts, BODY, header, muchEarlier, TOLERANCE)).isFalse();
    }

    @Test
    void shouldRejectMalformedHeaders() {
        String header = WebhookSignature.sign(List.of(SECRET), ID, SENT_AT, BODY);
        String ts = Long.toString(SENT_AT);

        assertThat(verify(SECRET, ID, ts, BODY, header.substring("v1,".length()))).isFalse();
        assertThat(verify(SECRET, ID, ts, BODY, header.replace("v1,", "v2,"))).isFalse();
        assertThat(verify(SECRET, ID, ts, BODY, "v1,")).isFalse();
        assertThat(verify(SECRET, ID, "yesterday", BODY, header)).isFalse();
        assertThat(verify(SECRET, ID, null, BODY, header)).isFalse();
        assertThat(verify(SECRET, null, ts, BODY, header)).isFalse();
        assertThat(verify(SECRET, ID, ts, BODY, null)).isFalse();
        assertThat(verify("", ID, ts, BODY, header)).isFalse();
    }

    @Test
    void shouldReadTheKeyOfAWhsecSecretFromBase64AndOtherSecretsAsText() {
        // "whsec_" then base64 of the bytes 'k', 'e', 'y': "a2V5"
        assertThat(WebhookSignature.key("whsec_a2V5")).containsExactly('k', 'e', 'y');
        assertThat(WebhookSignature.key("plain")).containsExactly('p', 'l', 'a', 'i', 'n');
        assertThatThrownBy(() -> WebhookSignature.key("whsec_not base64!"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("base64")
                .hasMessageNotContaining("not base64!");
        assertThatThrownBy(() -> WebhookSignature.key("whsec_")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> WebhookSignature.key("")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldSplitSecretsOnCommasAndSpaces() {
        assertThat(WebhookSignature.secrets(" whsec_a2V5, whsec_b2xk  whsec_c2Vj "))
                .containsExactly("whsec_a2V5", "whsec_b2xk", "whsec_c2Vj");
        assertThat(WebhookSignature.secrets("")).isEmpty();
    }

    @Test
    @SuppressWarnings("deprecation")
    void shouldStillSignTheDeprecatedHeaderAsThePreviousRelease() {
        byte[] body = "{\"event\":\"cost.anomaly\"}".getBytes(StandardCharsets.UTF_8);
        // The previous release's check value (Python's hmac, key "whsec_test" as UTF-8, "1714557600." + body)
        String legacy = WebhookSignature.legacySign("whsec_test", 1_714_557_600L, body);

        assertThat(legacy).isEqualTo("sha256=3a62060ba91647f780e45088cc2e897c7ad164b72553a18453ad47ff39e9e941");
        assertThat(WebhookSignature.legacyVerify("whsec_test", "1714557600", body, legacy,
                Instant.ofEpochSecond(1_714_557_600L), TOLERANCE)).isTrue();
        assertThat(WebhookSignature.legacyVerify("another", "1714557600", body, legacy,
                Instant.ofEpochSecond(1_714_557_600L), TOLERANCE)).isFalse();
    }

    @Test
    void shouldRefuseToSignWithoutASecret() {
        assertThatThrownBy(() -> WebhookSignature.sign(List.of(), ID, SENT_AT, BODY))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("secret");
    }

    private static boolean verify(String secret, String id, String timestamp, byte[] body, String header) {
        return WebhookSignature.verify(secret, id, timestamp, body, header, NOW, TOLERANCE);
    }
}
