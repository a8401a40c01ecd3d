package io.gpuledger.ingest.agent.progress;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuledger.ingest.agent.progress.JobToken.Grant;
import io.gpuledger.ingest.agent.progress.JobToken.Refused;
import io.gpuledger.ingest.agent.progress.JobToken.Scope;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.PublicKey;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A token binds its job, its nodes, its scope and its expiry; nothing in it can be changed or replayed. Seen to
 * fail with the node comparison of {@code JobToken.admit} skipped.
 */
class JobTokenTest {

    private static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");
    private static final KeyPair ISSUER = JobToken.newIssuerKey();
    private static final List<PublicKey> TRUSTED = List.of(ISSUER.getPublic());

    @Test
    void shouldAdmitATokenForItsJobOnEachOfItsNodes() {
        String token = JobToken.issue(ISSUER.getPrivate(), Grant.progress("job-a", List.of("x", "y"),
                NOW.plusSeconds(60)));

        for (String node : List.of("x", "y")) {
            Grant grant = JobToken.admit(token, TRUSTED, Scope.PROGRESS, node, NOW);
            assertThat(grant.job()).isEqualTo("job-a");
            assertThat(grant.expires()).isEqualTo(NOW.plusSeconds(60));
        }
    }

    @Test
    void shouldRefuseTheTokenOfNodeXOnNodeY() {
        String tokenOfX = JobToken.issue(ISSUER.getPrivate(), Grant.progress("job-a", List.of("x"),
                NOW.plusSeconds(60)));

        assertThatThrownBy(() -> JobToken.admit(tokenOfX, TRUSTED, Scope.PROGRESS, "y", NOW))
                .isInstanceOfSatisfying(Refused.class, e -> assertThat(e.status()).isEqualTo(403))
                .hasMessageContaining("not for this node (y)");
    }

    @Test
    void shouldRefuseATokenChangedToNameAnotherJobOrNode() {
        // Given job A's token for node x, its claims rewritten to job B on node y, the signature kept
        String token = JobToken.issue(ISSUER.getPrivate(), Grant.progress("job-a", List.of("x"),
                NOW.plusSeconds(60)));
        String signature = token.substring(token.lastIndexOf('.'));
        String claims = "{\"scope\":\"progress\",\"job\":\"job-b\",\"nodes\":[\"y\"],\"exp\":"
                + NOW.plusSeconds(60).getEpochSecond() + "}";
        String rewritten = "gl1." + Base64.getUrlEncoder().withoutPadding()
                .encodeToString(claims.getBytes(StandardCharsets.UTF_8)) + signature;

        // Then it is refused as unsigned
        assertThatThrownBy(() -> JobToken.admit(rewritten, TRUSTED, Scope.PROGRESS, "y", NOW))
                .isInstanceOfSatisfying(Refused.class, e -> assertThat(e.status()).isEqualTo(401))
                .hasMessageContaining("not signed");
    }

    @Test
    void shouldRefuseAnExpiredTokenAnotherIssuersAndAnotherScopes() {
        String expired = JobToken.issue(ISSUER.getPrivate(), Grant.progress("job-a", List.of("x"), NOW));
        String foreign = JobToken.issue(JobToken.newIssuerKey().getPrivate(), Grant.progress("job-a", List.of("x"),
                NOW.plusSeconds(60)));
        String stopping = JobToken.issue(ISSUER.getPrivate(), Grant.stopping(List.of("x"), NOW.plusSeconds(60)));

        assertThatThrownBy(() -> JobToken.admit(expired, TRUSTED, Scope.PROGRESS, "x", NOW))
                .hasMessageContaining("expired");
        assertThatThrownBy(() -> JobToken.admit(foreign, TRUSTED, Scope.PROGRESS, "x", NOW))
                .hasMessageContaining("not signed");
        assertThatThrownBy(() -> JobToken.admit(stopping, TRUSTED, Scope.PROGRESS, "x", NOW))
                .isInstanceOfSatisfying(Refused.class, e -> assertThat(e.status()).isEqualTo(403));
        assertThat(JobToken.admit(stopping, TRUSTED, Scope.STOPPING, "x", NOW).job()).isNull();
    }

    @Test
    void shouldRefuseWhatIsNotATokenWithoutRepeatingIt() {
        for (String junk : List.of("", "3f9c2a7e51d04b8c", "gl1.x", "gl1.!!!.???", "gl1.e30.AAAA")) {
            assertThatThrownBy(() -> JobToken.admit(junk, TRUSTED, Scope.PROGRESS, "x", NOW))
                    .isInstanceOfSatisfying(Refused.class, e -> assertThat(e.status()).isEqualTo(401))
                    .satisfies(e -> assertThat(junk.isEmpty() || !e.getMessage().contains(junk)).isTrue());
        }
    }

    @Test
    void shouldReadBackTheKeysItWrites() {
        PublicKey read = JobToken.publicKey(JobToken.publicKeyLine(ISSUER.getPublic()) + "\n");
        String token = JobToken.issue(JobToken.privateKey(JobToken.privateKeyLine(ISSUER.getPrivate())),
                Grant.progress("job-a", List.of("x"), NOW.plusSeconds(60)));

        assertThat(JobToken.admit(token, List.of(read), Scope.PROGRESS, "x", NOW).job()).isEqualTo("job-a");
        assertThatThrownBy(() -> JobToken.publicKey("ssh-ed25519 AAAA")).hasMessageContaining("gl-issuer-ed25519");
    }
}
