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

    @Test
    void shouldServeNoMetricsUnlessToldToSoEnginesSideBySideDoNotClash() {
        List<String> untold = CostEngineProcess.command("classes", List.of(), List.of("--bootstrap-servers", "x"));
        List<String> told = CostEngineProcess.command("classes", List.of(),
                List.of("--bootstrap-servers", "x", "--metrics-port", "9500"));

        assertThat(untold).endsWith("--metrics-port", "0");
        assertThat(told).endsWith("--metrics-port", "9500").containsOnlyOnce("--metrics-port");
    }
}
