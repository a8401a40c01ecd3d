package io.gpuledger.streams;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The engine's own JVM ends on its first OutOfMemoryError, as every JVM the project starts. */
class CostEngineProcessCommandTest {

    @Test
    void shouldEndTheEnginesJvmOnItsFirstOutOfMemoryError() {
        List<String> command = CostEngineProcess.command("classes", List.of("-Xmx512m"), List.of("--bootstrap", "x"));

        assertThat(command).contains("-XX:+ExitOnOutOfMemoryError", "-Xmx512m");
        assertThat(command.indexOf("-XX:+ExitOnOutOfMemoryError"))
                .isLessThan(command.indexOf(CostEngineMain.class.getName()));
    }
}
