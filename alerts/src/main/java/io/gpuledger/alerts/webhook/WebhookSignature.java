package io.gpuledger.alerts.webhook;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.StringJoiner;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The signature of a webhook delivery, in the Standard Webhooks scheme: HMAC-SHA256 over the
 * delivery id, a dot, the unix timestamp, a dot and the body bytes exactly as sent, written
 * {@code v1,<base64>}. Signing the id lets a receiver trust the id it de-duplicates on; signing
 * the timestamp lets it refuse a captured request replayed later. A delivery is signed with every
 * configured secret, so that a receiver keeps verifying while its secret is rotated. See
 * docs/webhooks.md.
 */
public final class WebhookSignature {

    /** The delivery id: the same on every retry of a delivery, for a receiver to drop repeats. */
    public static final String ID_HEADER = "webhook-id";
    /** When this try was sent, in unix seconds. */
    public static final String TIMESTAMP_HEADER = "webhook-timestamp";
    /** One {@code v1,<base64>} per secret, separated by spaces. */
    public static final String SIGNATURE_HEADER = "webhook-signature";

    /** @deprecated the scheme of the previous release, sent for one more; use {@link #SIGNATURE_HEADER} */
    @Deprecated
    public static final String LEGACY_SIGNATURE_HEADER = "X-GpuLedger-Signature";
    /** @deprecated use {@link #TIMESTAMP_HEADER} */
    @Deprecated
    public static final String LEGACY_TIMESTAMP_HEADER = "X-GpuLedger-Timestamp";
    /** @deprecated use {@link #ID_HEADER} */
    @Deprecated
    public static final String LEGACY_DELIVERY_HEADER = "X-GpuLedger-Delivery";
    /** @deprecated the body's {@code event} field says the same */
    @Deprecated
    public static final String LEGACY_EVENT_HEADER = "X-GpuLedger-Event";

    /** A secret {@code whsec_<base64>} is the base64 of its key bytes. */
    public static final String SECRET_PREFIX = "whsec_";

    private static final String VERSION = "v1,";
    private static final String LEGACY_SCHEME = "sha256=";
    private static final String ALGORITHM = "HmacSHA256";

    private WebhookSignature() {
    }

    /**
     * The secrets of a {@code secret} setting: one or more, separated by commas or spaces, the
     * newest first.
     */
    public static List<String> secrets(String configured) {
        List<String> secrets = new ArrayList<>();
        for (String secret : (configured == null ? "" : configured).split("[,\\s]+")) {
            if (!secret.isEmpty()) {
                secrets.add(secret);
            }
        }
        return List.copyOf(secrets);
    }

    /**
     * The HMAC key of one secret: the decoded bytes of {@code whsec_<base64>}; the UTF-8 bytes of
     * any other text (a secret of the previous release, kept working).
     *
     * @throws IllegalArgumentException for an empty secret or a {@code whsec_} one that is not base64;
     *                                  the message does not repeat the secret
     */
    public static byte[] key(String secret) {
        if (secret == null || secret.isEmpty()) {
            throw new IllegalArgumentException("a signature needs a non-empty secret");
        }
        if (!secret.startsWith(SECRET_PREFIX)) {
            return secret.getBytes(StandardCharsets.UTF_8);
        }
        byte[] key;
        try {
            key = Base64.getDecoder().decode(secret.substring(SECRET_PREFIX.length()));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("a " + SECRET_PREFIX + " secret must go on in base64: "
                    + e.getMessage());
        }
        if (key.length == 0) {
            throw new IllegalArgumentException("a " + SECRET_PREFIX + " secret must go on with its key in base64");
        }
        return key;
    }

    /** The {@value #SIGNATURE_HEADER} value: one {@code v1,<base64>} per secret, in their order. */
    public static String sign(List<String> secrets, String id, long timestamp, byte[] body) {
        if (secrets.isEmpty()) {
            throw new IllegalArgumentException("a signature needs a non-empty secret");
        }
        StringJoiner header = new StringJoiner(" ");
        for (String secret : secrets) {
            header.add(VERSION + Base64.getEncoder()
                    .encodeToString(mac(key(secret), id, Long.toString(timestamp), body)));
        }
        return header.toString();
    }

    /**
     * Whether a request is an authentic, fresh delivery.
     *
     * @param id              the {@value #ID_HEADER} header as received
     * @param timestamp       the {@value #TIMESTAMP_HEADER} header as received
     * @param signatureHeader the {@value #SIGNATURE_HEADER} header as received
     * @param tolerance       how far the timestamp may lie from {@code now}, either way
     * @return true when one of the signatures is the one {@code secret} gives; false for a missing
     *         or malformed header, a timestamp outside the tolerance, or no match. Each comparison
     *         takes the same time wherever the signatures differ
     */
    public static boolean verify(String secret, String id, String timestamp, byte[] body, String signatureHeader,
            Instant now, Duration tolerance) {
        if (secret == null || secret.isEmpty() || id == null || body == null || signatureHeader == null
                || !fresh(timestamp, now, tolerance)) {
            return false;
        }
        byte[] expected;
        try {
            expected = Base64.getEncoder().encode(mac(key(secret), id, timestamp, body));
        } catch (IllegalArgumentException e) {
            return false;
        }
        boolean match = false;
        for (String signature : signatureHeader.strip().split(" +")) {
            if (signature.startsWith(VERSION)) {
                byte[] given = signature.substring(VERSION.length()).getBytes(StandardCharsets.US_ASCII);
                match |= MessageDigest.isEqual(expected, given);
            }
        }
        return match;
    }

    /**
     * The {@value #LEGACY_SIGNATURE_HEADER} value: {@code sha256=} and the hex HMAC over the
     * timestamp, a dot and the body, keyed with the UTF-8 bytes of the secret as configured.
     *
     * @deprecated sent for one more release beside {@link #sign}
     */
    @Deprecated
    public static String legacySign(String secret, long timestamp, byte[] body) {
        if (secret == null || secret.isEmpty()) {
            throw new IllegalArgumentException("a signature needs a non-empty secret");
        }
        return LEGACY_SCHEME + HexFormat.of().formatHex(
                mac(secret.getBytes(StandardCharsets.UTF_8), null, Long.toString(timestamp), body));
    }

    /**
     * Whether {@link #legacySign} gives {@code signatureHeader}, within the tolerance.
     *
     * @deprecated use {@link #verify}
     */
    @Deprecated
    public static boolean legacyVerify(String secret, String timestamp, byte[] body, String signatureHeader,
            Instant now, Duration tolerance) {
        if (secret == null || secret.isEmpty() || body == null || signatureHeader == null
                || !fresh(timestamp, now, tolerance)) {
            return false;
        }
        String received = signatureHeader.strip();
        if (!received.startsWith(LEGACY_SCHEME)) {
            return false;
        }
        // Over the header as received, as a receiver in any language would compute it.
        byte[] expected = HexFormat.of().formatHex(mac(secret.getBytes(StandardCharsets.UTF_8), null, timestamp, body))
                .getBytes(StandardCharsets.US_ASCII);
        byte[] given = received.substring(LEGACY_SCHEME.length()).getBytes(StandardCharsets.US_ASCII);
        return MessageDigest.isEqual(expected, given);
    }

    private static boolean fresh(String timestamp, Instant now, Duration tolerance) {
        if (timestamp == null) {
            return false;
        }
        try {
            return Math.abs(now.getEpochSecond() - Long.parseLong(timestamp)) <= tolerance.toSeconds();
        } catch (NumberFormatException e) {
            return false;
        }
    }

    /** HMAC-SHA256 over {@code id.timestamp.body}, or {@code timestamp.body} without an id. */
    private static byte[] mac(byte[] key, String id, String timestamp, byte[] body) {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(new SecretKeySpec(key, ALGORITHM));
            if (id != null) {
                mac.update(id.getBytes(StandardCharsets.UTF_8));
                mac.update((byte) '.');
            }
            mac.update(timestamp.getBytes(StandardCharsets.US_ASCII));
            mac.update((byte) '.');
            return mac.doFinal(body);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(ALGORITHM + " is not available in this JVM", e);
        }
    }
}
