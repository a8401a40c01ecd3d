package io.gpuledger.ingest.agent.progress;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.security.KeyPair;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The agent's issuer-keys file: several keys for a rotation, read again when it changes. */
class IssuerKeysTest {

    private static final KeyPair OLD = JobToken.newIssuerKey();
    private static final KeyPair NEW = JobToken.newIssuerKey();
    private static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");

    @TempDir
    Path dir;

    private final List<String> problems = new ArrayList<>();

    @Test
    void shouldAdmitTokensOfEachKeyOfTheFileAndFollowItsRotation() throws Exception {
        // Given a file with the old key
        Path file = write("# the issuer's key\n" + line(OLD) + "\n", 0);
        IssuerKeys keys = IssuerKeys.fromFile(file, problems::add);
        assertThat(admits(keys, OLD)).isTrue();
        assertThat(admits(keys, NEW)).isFalse();

        // When the new one is added beside it, then the old one removed
        write(line(OLD) + "\n\n" + line(NEW) + "\n", 10);
        boolean bothOld = admits(keys, OLD);
        boolean bothNew = admits(keys, NEW);
        write(line(NEW) + "\n", 20);

        // Then tokens of both were admitted while both were there, and only the new one's now
        assertThat(bothOld).isTrue();
        assertThat(bothNew).isTrue();
        assertThat(admits(keys, OLD)).isFalse();
        assertThat(admits(keys, NEW)).isTrue();
        assertThat(problems).isEmpty();
    }

    @Test
    void shouldKeepTheKeysItHadWhenTheFileBecomesUnusableAndSaySoOnce() throws Exception {
        Path file = write(line(OLD) + "\n", 0);
        IssuerKeys keys = IssuerKeys.fromFile(file, problems::add);

        // When the file is emptied (a botched rotation), and asked twice
        write("\n", 10);
        boolean first = admits(keys, OLD);
        boolean second = admits(keys, OLD);

        // Then the old key stays, and the problem is said once
        assertThat(first).isTrue();
        assertThat(second).isTrue();
        assertThat(problems).singleElement().asString().contains("holds no key");
    }

    @Test
    void shouldRefuseAFileWithoutAUsableKey() throws Exception {
        assertThatThrownBy(() -> IssuerKeys.fromFile(write("# nothing yet\n", 0), problems::add))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("holds no key");
        assertThatThrownBy(() -> IssuerKeys.fromFile(write(line(OLD) + "\n3f9c2a7e51d04b8c\n", 0), problems::add))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("line 2");
        assertThatThrownBy(() -> IssuerKeys.fromFile(dir.resolve("missing"), problems::add))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("progress.issuer-keys-file");
    }

    private static String line(KeyPair issuer) {
        return JobToken.publicKeyLine(issuer.getPublic());
    }

    private static boolean admits(IssuerKeys keys, KeyPair issuer) {
        String token = JobToken.issue(issuer.getPrivate(), JobToken.Grant.progress("job", List.of("x"),
                NOW.plusSeconds(60)));
        try {
            JobToken.admit(token, keys.current(), JobToken.Scope.PROGRESS, "x", NOW);
            return true;
        } catch (JobToken.Refused e) {
            return false;
        }
    }

    /** Writes the file with a modification time {@code seconds} after a fixed instant, as a rotation moves it on. */
    private Path write(String text, int seconds) throws Exception {
        Path file = dir.resolve("issuer-keys");
        Files.writeString(file, text);
        Files.setLastModifiedTime(file, FileTime.from(Instant.parse("2026-03-01T12:00:00Z").plusSeconds(seconds)));
        return file;
    }
}
