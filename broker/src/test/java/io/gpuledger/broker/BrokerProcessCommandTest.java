package io.gpuledger.broker;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The broker's own JVM ends on its first OutOfMemoryError, as every JVM the project starts. */
class BrokerProcessCommandTest {

    @Test
    void shouldEndTheBrokersJvmOnItsFirstOutOfMemoryError() {
        List<String> command = BrokerProcess.command("classes", Path.of("data"), 9092, ClusterNode.single(9093));

        assertThat(command).contains("-XX:+ExitOnOutOfMemoryError");
        // a JVM option: before the main class
        assertThat(command.indexOf("-XX:+ExitOnOutOfMemoryError"))
                .isLessThan(command.indexOf(BrokerMain.class.getName()));
    }
}
