package io.gpuledger.alerts.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ApiAccessFilterTest {

    private static final String KEY = "gpuledger.api.token";

    @Test
    void shouldReadTheTokenFromItsFile(@TempDir Path dir) throws IOException {
        // A mounted Secret, with the newline `echo` leaves
        Path file = dir.resolve("token");
        Files.writeString(file, "# rotation: old, then new\ns3cr3t-token\n\nn3w-token\n");

        assertThat(ApiAccessFilter.tokens(KEY, Optional.empty(), Optional.of(file.toString())))
                .containsExactly("s3cr3t-token", "n3w-token");
        assertThat(ApiAccessFilter.tokens(KEY, Optional.of("given"), Optional.empty())).containsExactly("given");
        assertThat(ApiAccessFilter.tokens(KEY, Optional.of(" "), Optional.empty())).isEmpty();
    }

    @Test
    void shouldStopOnAFileItCannotReadOrATokenGivenTwice(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("token");
        Files.writeString(file, "s3cr3t-token");

        assertThatThrownBy(() ->
                ApiAccessFilter.tokens(KEY, Optional.empty(), Optional.of(dir.resolve("absent").toString())))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("gpuledger.api.token-file: cannot read");
        assertThatThrownBy(() -> ApiAccessFilter.tokens(KEY, Optional.of("given"), Optional.of(file.toString())))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("not both")
                .hasMessageNotContaining("s3cr3t");
    }
}
