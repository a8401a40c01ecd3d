package io.gpuledger.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;

class RequiredToolTest {

    @Test
    void shouldSkipSayingWhatIsMissingWhenToolsAreNotRequired() {
        assertThatThrownBy(() -> RequiredTool.decide(false, "promtool is not installed", false))
                .isInstanceOf(TestAbortedException.class)
                .hasMessageStartingWith("promtool is not installed; skipped");
    }

    @Test
    void shouldFailSayingWhatIsMissingWhenToolsAreRequired() {
        assertThatThrownBy(() -> RequiredTool.decide(false, "promtool is not installed", true))
                .isInstanceOf(AssertionFailedError.class)
                .isNotInstanceOf(TestAbortedException.class)
                .hasMessageStartingWith("promtool is not installed; -Dgpuledger.requireTools=true");
    }

    @Test
    void shouldLetTheTestRunWhenTheToolIsThereRequiredOrNot() {
        assertThatCode(() -> RequiredTool.decide(true, "unused", false)).doesNotThrowAnyException();
        assertThatCode(() -> RequiredTool.decide(true, "unused", true)).doesNotThrowAnyException();
    }

    @Test
    void shouldRequireToolsOnlyWhenThePropertyIsTrue() {
        Properties none = new Properties();
        Properties on = new Properties();
        on.setProperty("gpuledger.requireTools", "true");
        Properties off = new Properties();
        off.setProperty("gpuledger.requireTools", "false");

        assertThat(RequiredTool.required(none)).isFalse();
        assertThat(RequiredTool.required(on)).isTrue();
        assertThat(RequiredTool.required(off)).isFalse();
    }

    @Test
    void shouldFindOnlyAnExecutableFileInTheSearchPath(@TempDir Path dir) throws Exception {
        // Given an empty directory and one with an executable "tool" and a plain file "data"
        Path empty = Files.createDirectory(dir.resolve("empty"));
        Path bin = Files.createDirectory(dir.resolve("bin"));
        Files.createFile(bin.resolve("tool"), PosixFilePermissions.asFileAttribute(
                PosixFilePermissions.fromString("rwxr-xr-x")));
        Files.createFile(bin.resolve("data"), PosixFilePermissions.asFileAttribute(
                PosixFilePermissions.fromString("rw-r--r--")));
        String searchPath = empty + File.pathSeparator + File.pathSeparator + bin;

        // Then the tool is found in the second directory, the plain file and an absent name are not
        assertThat(RequiredTool.find("tool", searchPath)).contains(bin.resolve("tool"));
        assertThat(RequiredTool.find("data", searchPath)).isEmpty();
        assertThat(RequiredTool.find("absent", searchPath)).isEmpty();
    }
}
