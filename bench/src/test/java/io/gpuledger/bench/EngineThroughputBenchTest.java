package io.gpuledger.bench;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuledger.cli.UsageException;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The engine benchmark's options, refused before any broker starts. */
class EngineThroughputBenchTest {

    @Test
    void shouldRefuseASpanOfTelemetryTheTopicsWouldNotKeep() {
        // A million samples of ten GPUs every 10 s reach back 11 days; the topics keep 7.
        assertThatThrownBy(() -> EngineThroughputBench.run(new String[] {"--samples", "1000000", "--gpus", "10",
                "--interval", "10"},
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8)))
                .isInstanceOf(UsageException.class).hasMessageContaining("give more --gpus");
    }

    @Test
    void shouldRefuseASharedPartOfTheFleetThatIsNotAFraction() {
        for (String shared : new String[] {"1.5", "-0.1", "a quarter", "NaN"}) {
            assertThatThrownBy(() -> EngineThroughputBench.run(new String[] {"--shared", shared},
                    new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8)))
                    .isInstanceOf(UsageException.class)
                    .hasMessage("--shared takes a fraction from 0 to 1, not '" + shared + "'");
        }
    }
}
