package io.gpuledger.ingest.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuledger.ingest.agent.progress.JobToken;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code gpu-ledger token}: an issuer key kept private, and tokens an agent with its public key takes. */
class TokenCommandTest {

    private static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");
    private static final Clock CLOCK = Clock.fixed(NOW, ZoneOffset.UTC);

    @TempDir
    Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @Test
    void shouldIssueATokenTheAgentWithThePrintedKeyTakesForThatJobAndNode() throws Exception {
        // Given an issuer key made by keygen
        Path key = dir.resolve("issuer.key");
        assertThat(run("keygen", "--private", key.toString())).isZero();
        String publicLine = printed();
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(key))).isEqualTo("rw-------");

        // When a token is issued for job A on two nodes for 2 hours
        assertThat(run("issue", "--key", key.toString(), "--job", "job-a", "--node", "x", "--node", "y",
                "--ttl", "2h")).isZero();
        String token = printed();

        // Then an agent trusting the printed key takes it for job A on x and y until then
        JobToken.Grant grant = JobToken.admit(token, List.of(JobToken.publicKey(publicLine)),
                JobToken.Scope.PROGRESS, "y", NOW.plusSeconds(7199));
        assertThat(grant.job()).isEqualTo("job-a");
        assertThat(grant.nodes()).containsExactly("x", "y");
        assertThat(grant.expires()).isEqualTo(NOW.plusSeconds(7200));
        // and keygen never overwrites a key
        assertThat(run("keygen", "--private", key.toString())).isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("exists already");
    }

    @Test
    void shouldRefuseAnIssueWithoutNodeOrWithBothJobAndStopping() throws Exception {
        Path key = dir.resolve("issuer.key");
        run("keygen", "--private", key.toString());

        assertThat(run("issue", "--key", key.toString(), "--job", "job-a")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--node");
        assertThat(run("issue", "--key", key.toString(), "--node", "x", "--job", "a", "--stopping")).isEqualTo(2);
        assertThat(run("issue", "--key", key.toString(), "--node", "x", "--job", "a", "--ttl", "0h")).isEqualTo(2);
    }

    private int run(String... args) {
        out.reset();
        return TokenCommand.run(args, CLOCK, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private String printed() {
        return out.toString(StandardCharsets.UTF_8).strip();
    }
}
