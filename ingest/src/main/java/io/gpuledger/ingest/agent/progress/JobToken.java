package io.gpuledger.ingest.agent.progress;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.gpuledger.model.Json;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.X509EncodedKeySpec;
import java.time.Instant;
import java.util.Base64;
import java.util.List;

/**
 * A token that lets its holder do one thing at the agents of named nodes until it expires: report the
 * work of one job ({@link Scope#PROGRESS}), or say that the instance stops ({@link Scope#STOPPING}).
 * It is {@code gl1.<claims>.<signature>}: the claims as JSON and an Ed25519 signature of
 * {@code gl1.<claims>} by the issuer's private key, both base64url without padding. The agent holds
 * the issuer's public key only ({@link IssuerKeys}) and checks a token against the report's job id and
 * its own node name: a token cannot be replayed for another job, another node, another scope, or after
 * it expires, and an agent taken over cannot make one.
 */
public final class JobToken {

    private static final String PREFIX = "gl1.";
    /** How a public key line in an issuer-keys file starts. */
    public static final String PUBLIC_KEY_PREFIX = "gl-issuer-ed25519 ";
    /** How the line of an issuer's private key file starts. */
    public static final String PRIVATE_KEY_PREFIX = "gl-issuer-ed25519-private ";
    private static final String ALGORITHM = "Ed25519";
    private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();

    /** What a token allows. */
    public enum Scope {
        /** {@code POST /v1/progress} for the token's job. */
        @JsonProperty("progress") PROGRESS,
        /** {@code POST /v1/instance/stopping}. */
        @JsonProperty("stopping") STOPPING
    }

    /**
     * What a token says: its scope, the job (for {@link Scope#PROGRESS} only), the nodes whose agents take
     * it, and when it stops being taken.
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Grant(
            @JsonProperty(required = true) Scope scope,
            String job,
            @JsonProperty(required = true) List<String> nodes,
            @JsonProperty(required = true) Long exp) {

        public Grant {
            if (scope == null || nodes == null || nodes.isEmpty() || exp == null) {
                throw new IllegalArgumentException("a grant needs a scope, at least one node and an expiry");
            }
            if ((scope == Scope.PROGRESS) == (job == null || job.isBlank())) {
                throw new IllegalArgumentException("a progress grant names its job; a stopping grant names none");
            }
            if (nodes.stream().anyMatch(node -> node == null || node.isBlank())) {
                throw new IllegalArgumentException("a node name is blank");
            }
            nodes = List.copyOf(nodes);
        }

        public static Grant progress(String job, List<String> nodes, Instant expires) {
            return new Grant(Scope.PROGRESS, job, nodes, expires.getEpochSecond());
        }

        public static Grant stopping(List<String> nodes, Instant expires) {
            return new Grant(Scope.STOPPING, null, nodes, expires.getEpochSecond());
        }

        public Instant expires() {
            return Instant.ofEpochSecond(exp);
        }
    }

    /** A token that is not taken here; {@link #status()} is 401 for an unusable token, 403 for one not for this. */
    public static final class Refused extends RuntimeException {
        private final int status;

        Refused(int status, String message) {
            super(message);
            this.status = status;
        }

        public int status() {
            return status;
        }
    }

    private JobToken() {
    }

    /** Signs {@code grant} with the issuer's private key. */
    public static String issue(PrivateKey issuer, Grant grant) {
        String signed = PREFIX + B64.encodeToString(Json.write(grant));
        return signed + "." + B64.encodeToString(sign(issuer, signed));
    }

    /**
     * The grant of a token whose signature one of {@code keys} checks, whatever it is for.
     *
     * @throws Refused with 401 when it is not a token or no key signed it; the message never repeats it
     */
    public static Grant verify(String token, List<PublicKey> keys) {
        int dot = token.lastIndexOf('.');
        if (!token.startsWith(PREFIX) || dot <= PREFIX.length()) {
            throw new Refused(401, "not a GPU Ledger token (gl1.<claims>.<signature>, from gpu-ledger token issue)");
        }
        byte[] signed = token.substring(0, dot).getBytes(StandardCharsets.US_ASCII);
        byte[] signature;
        byte[] claims;
        try {
            signature = Base64.getUrlDecoder().decode(token.substring(dot + 1));
            claims = Base64.getUrlDecoder().decode(token.substring(PREFIX.length(), dot));
        } catch (IllegalArgumentException e) {
            throw new Refused(401, "the token is not base64url");
        }
        boolean valid = false;
        for (PublicKey key : keys) {
            valid |= verifies(key, signed, signature);
        }
        if (!valid) {
            throw new Refused(401, "the token is not signed by an issuer key this agent trusts"
                    + " (progress.issuer-keys-file)");
        }
        try {
            return Json.readStrict(claims, Grant.class);
        } catch (RuntimeException e) {
            throw new Refused(401, "the token's claims are not a grant");
        }
    }

    /**
     * The grant of a token for {@code scope} at the agent of {@code node} at {@code now}.
     *
     * @throws Refused with 401 when it is no valid token or has expired, 403 when it is for another scope or
     *                 node
     */
    public static Grant admit(String token, List<PublicKey> keys, Scope scope, String node, Instant now) {
        Grant grant = verify(token, keys);
        if (!now.isBefore(grant.expires())) {
            throw new Refused(401, "the token expired at " + grant.expires() + "; ask its issuer for a new one");
        }
        if (grant.scope() != scope) {
            throw new Refused(403, "the token allows " + grant.scope().name().toLowerCase() + ", not "
                    + scope.name().toLowerCase());
        }
        if (!grant.nodes().contains(node)) {
            throw new Refused(403, "the token is not for this node (" + node + "): it names " + grant.nodes());
        }
        return grant;
    }

    /** A new issuer key pair. */
    public static KeyPair newIssuerKey() {
        try {
            return KeyPairGenerator.getInstance(ALGORITHM).generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("every Java runtime since 15 has Ed25519", e);
        }
    }

    /** The line of an issuer-keys file that holds {@code key}. */
    public static String publicKeyLine(PublicKey key) {
        return PUBLIC_KEY_PREFIX + Base64.getEncoder().encodeToString(key.getEncoded());
    }

    /** The line of a private key file that holds {@code key}. */
    public static String privateKeyLine(PrivateKey key) {
        return PRIVATE_KEY_PREFIX + Base64.getEncoder().encodeToString(key.getEncoded());
    }

    /** The public key of a line of an issuer-keys file. */
    public static PublicKey publicKey(String line) {
        byte[] encoded = decodeLine(line, PUBLIC_KEY_PREFIX);
        try {
            return KeyFactory.getInstance(ALGORITHM).generatePublic(new X509EncodedKeySpec(encoded));
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("not an Ed25519 public key", e);
        }
    }

    /** The private key of a private key file's line. */
    public static PrivateKey privateKey(String line) {
        byte[] encoded = decodeLine(line, PRIVATE_KEY_PREFIX);
        try {
            return KeyFactory.getInstance(ALGORITHM).generatePrivate(new PKCS8EncodedKeySpec(encoded));
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("not an Ed25519 private key", e);
        }
    }

    private static byte[] decodeLine(String line, String prefix) {
        String text = line.strip();
        if (!text.startsWith(prefix)) {
            throw new IllegalArgumentException("a key line starts with '" + prefix.strip() + "'");
        }
        try {
            return Base64.getDecoder().decode(text.substring(prefix.length()).strip());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("the key is not base64", e);
        }
    }

    private static byte[] sign(PrivateKey key, String text) {
        try {
            Signature signature = Signature.getInstance(ALGORITHM);
            signature.initSign(key);
            signature.update(text.getBytes(StandardCharsets.US_ASCII));
            return signature.sign();
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("cannot sign with this key: " + e.getMessage(), e);
        }
    }

    private static boolean verifies(PublicKey key, byte[] signed, byte[] signature) {
        try {
            Signature verifier = Signature.getInstance(ALGORITHM);
            verifier.initVerify(key);
            verifier.update(signed);
            return verifier.verify(signature);
        } catch (GeneralSecurityException e) {
            return false;
        }
    }
}
