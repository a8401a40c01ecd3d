package io.gpuledger.bench;

import static org.assertj.core.api.Assertions.assertThat;
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

    @Test
    void shouldSayAWarmPartThatBeganBeforeTheRollupsWentOut() {
        // The engine sends its first roll-ups 30 s after it runs, once the preload's missing work reports were quiet
        // (a warm part of 25 s that ends with the run began at the run's seconds less 25)
        Measure warm = new Measure(8_000_000, seconds(25));

        assertThat(run(new Measure(20_000_000, seconds(29 + 25)), warm).warmBeforeRollups()).isTrue();
        assertThat(run(new Measure(20_000_000, seconds(31 + 25)), warm).warmBeforeRollups()).isFalse();
        // no warm part: the whole run is the figure, nothing to say
        assertThat(run(new Measure(20_000_000, seconds(20)), null).warmBeforeRollups()).isFalse();
    }

    private static EngineThroughputBench.EngineRun run(Measure all, Measure warm) {
        return new EngineThroughputBench.EngineRun(1, all, warm, 80, 25, 10);
    }

    private static long seconds(double seconds) {
        return Math.round(seconds * 1e9);
    }
}
