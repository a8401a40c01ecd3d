package io.gpuledger.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuledger.processes.AlertServiceProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Every JVM this command line starts ends on its first OutOfMemoryError: the commands it runs in
 * JVMs of their own, the alert service, and the agent (whose options the benchmark reads from
 * {@code deploy/agent/jvm.options}, as the script and the image do).
 */
class ChildJvmOptionsTest {

    private static final String FLAG = "-XX:+ExitOnOutOfMemoryError";

    @Test
    void shouldEndACommandsJvmOnItsFirstOutOfMemoryError() {
        List<String> command = CliProcess.command(List.of("-Xmx1g"), "simulate");

        assertThat(command).contains(FLAG, "-Xmx1g");
        assertThat(command.indexOf(FLAG)).isLessThan(command.indexOf(Main.class.getName()));
    }

    @Test
    void shouldEndTheAlertServicesJvmOnItsFirstOutOfMemoryError() {
        List<String> command = AlertServiceProcess.command(Path.of("quarkus-run.jar"), List.of());

        assertThat(command).contains(FLAG, AlertServiceProcess.HEAP);
        assertThat(command.indexOf(FLAG)).isLessThan(command.indexOf("-jar"));
    }

    @Test
    void shouldEndTheAgentsJvmOnItsFirstOutOfMemoryError() throws Exception {
        assertThat(Files.readAllLines(Path.of("..", "deploy", "agent", "jvm.options"))).contains(FLAG);
    }
}
