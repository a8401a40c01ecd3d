package io.gpuledger.ingest.agent.progress;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The agent's token file: several tokens for a rotation, read again when it changes. */
class AccessTokenTest {

    private static final String OLD = "old-token-0123456789";
    private static final String NEW = "new-token-9876543210";

    @TempDir
    Path dir;

    private final List<String> problems = new ArrayList<>();

    @Test
    void shouldAdmitEachTokenOfTheFileAndFollowItsRotation() throws Exception {
        // Given a file with the old token
        Path file = write("# the agent's token\n" + OLD + "\n", 0);
        AccessToken token = AccessToken.fromFile(file, problems::add);
        assertThat(token.admits("Bearer " + OLD)).isTrue();
        assertThat(token.admits("Bearer " + NEW)).isFalse();

        // When the new one is added beside it, then the old one removed
        write(OLD + "\n\n" + NEW + "\n", 10);
        boolean bothOld = token.admits("Bearer " + OLD);
        boolean bothNew = token.admits("bearer " + NEW);
        write(NEW + "\n", 20);

        // Then both were admitted while both were there, and only the new one now
        assertThat(bothOld).isTrue();
        assertThat(bothNew).isTrue();
        assertThat(token.admits("Bearer " + OLD)).isFalse();
        assertThat(token.admits("Bearer " + NEW)).isTrue();
        assertThat(problems).isEmpty();
    }

    @Test
    void shouldRefuseWhatIsNotABearerTokenOfTheFile() throws Exception {
        AccessToken token = AccessToken.fromFile(write(OLD + "\n", 0), problems::add);

        assertThat(token.admits(null)).isFalse();
        assertThat(token.admits("")).isFalse();
        assertThat(token.admits(OLD)).as("no scheme").isFalse();
        assertThat(token.admits("Basic " + OLD)).isFalse();
        assertThat(token.admits("Bearer " + OLD.substring(1))).isFalse();
        assertThat(token.admits("Bearer " + OLD + OLD)).isFalse();
        assertThat(token.admits("Bearer " + OLD + "  ")).as("surrounding blanks are not part of it").isTrue();
    }

    @Test
    void shouldKeepTheTokensItHadWhenTheFileBecomesUnusableAndSaySoOnce() throws Exception {
        Path file = write(OLD + "\n", 0);
        AccessToken token = AccessToken.fromFile(file, problems::add);

        // When the file is emptied (a botched rotation), and asked twice
        write("\n", 10);
        boolean first = token.admits("Bearer " + OLD);
        boolean second = token.admits("Bearer " + OLD);

        // Then the old token stays, and the problem is said once
        assertThat(first).isTrue();
        assertThat(second).isTrue();
        assertThat(problems).singleElement().asString().contains("holds no token");
    }

    @Test
    void shouldRefuseAFileWithoutAUsableToken() throws Exception {
        assertThatThrownBy(() -> AccessToken.fromFile(write("# nothing yet\n", 0), problems::add))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("holds no token");
        assertThatThrownBy(() -> AccessToken.fromFile(write("short\n", 0), problems::add))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("16 characters");
        assertThatThrownBy(() -> AccessToken.fromFile(dir.resolve("missing"), problems::add))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("progress.token-file");
    }

    /** Writes the file with a modification time {@code seconds} after a fixed instant, as a rotation moves it on. */
    private Path write(String text, int seconds) throws Exception {
        Path file = dir.resolve("token");
        Files.writeString(file, text);
        Files.setLastModifiedTime(file, FileTime.from(Instant.parse("2026-03-01T12:00:00Z").plusSeconds(seconds)));
        return file;
    }
}
