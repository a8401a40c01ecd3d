package io.gpuledger.alerts.webhook;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The signature of a webhook delivery: HMAC-SHA256, keyed with the receiver's secret, over the
 * ASCII unix timestamp, a dot, and the body bytes exactly as sent. Signing the timestamp with the
 * body lets a receiver refuse a captured request replayed later; see docs/webhooks.md.
 */
public final class WebhookSignature {

    public static final String SIGNATURE_HEADER = "X-GpuLedger-Signature";
    public static final String TIMESTAMP_HEADER = "X-GpuLedger-Timestamp";
    /** The anomaly id: the same on every retry of a delivery, for a receiver to drop repeats. */
    public static final String DELIVERY_HEADER = "X-GpuLedger-Delivery";
    public static final String EVENT_HEADER = "X-GpuLedger-Event";

    private static final String SCHEME = "sha256=";
    private static final String ALGORITHM = "HmacSHA256";

    private WebhookSignature() {
    }

    /** The {@value #SIGNATURE_HEADER} value for {@code body} sent at {@code timestamp} (unix seconds). */
    public static String sign(String secret, long timestamp, byte[] body) {
        return SCHEME + HexFormat.of().formatHex(mac(secret, Long.toString(timestamp), body));
    }

    /**
     * Whether a request is an authentic, fresh delivery.
     *
     * @param timestamp       the {@value #TIMESTAMP_HEADER} header as received
     * @param signatureHeader the {@value #SIGNATURE_HEADER} header as received
     * @param tolerance       how far the timestamp may lie from {@code now}, either way
     * @return false for a missing or malformed header, a timestamp outside the tolerance, or a
     *         signature that does not match; the comparison takes the same time wherever the
     *         signatures differ
     */
    public static boolean verify(String secret, String timestamp, byte[] body, String signatureHeader,
            Instant now, Duration tolerance) {
        if (secret == null || secret.isEmpty() || timestamp == null || body == null || signatureHeader == null) {
            return false;
        }
        long sentAt;
        try {
            sentAt = Long.parseLong(timestamp);
        } catch (NumberFormatException e) {
            return false;
        }
        if (Math.abs(now.getEpochSecond() - sentAt) > tolerance.toSeconds()) {
            return false;
        }
        String received = signatureHeader.strip();
        if (!received.startsWith(SCHEME)) {
            return false;
        }
        // Over the header as received, as a receiver in any language would compute it.
        byte[] expected = HexFormat.of().formatHex(mac(secret, timestamp, body))
                .getBytes(StandardCharsets.US_ASCII);
        byte[] given = received.substring(SCHEME.length()).getBytes(StandardCharsets.US_ASCII);
        return MessageDigest.isEqual(expected, given);
    }

    private static byte[] mac(String secret, String timestamp, byte[] body) {
        if (secret == null || secret.isEmpty()) {
            throw new IllegalArgumentException("a signature needs a non-empty secret");
        }
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), ALGORITHM));
            mac.update(timestamp.getBytes(StandardCharsets.US_ASCII));
            mac.update((byte) '.');
            return mac.doFinal(body);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(ALGORITHM + " is not available in this JVM", e);
        }
    }
}
