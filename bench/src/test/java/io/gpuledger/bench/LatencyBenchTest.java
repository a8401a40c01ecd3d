package io.gpuledger.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.OutputStream;
import java.io.PrintStream;
import java.util.List;
import org.junit.jupiter.api.Test;

class LatencyBenchTest {

    @Test
    void shouldRankPercentilesByTheNearestRank() {
        List<Double> hundred = new java.util.ArrayList<>();
        for (int i = 100; i >= 1; i--) {
            hundred.add((double) i);
        }

        assertThat(LatencyBench.percentile(hundred, 0.5)).isEqualTo(50);
        assertThat(LatencyBench.percentile(hundred, 0.99)).isEqualTo(99);
        assertThat(LatencyBench.percentile(hundred, 1.0)).isEqualTo(100);
        assertThat(LatencyBench.percentile(List.of(7.0), 0.99)).isEqualTo(7);
        assertThat(LatencyBench.percentile(List.of(), 0.5)).isNaN();
    }

    @Test
    void shouldRefuseAnUnknownOption() {
        PrintStream quiet = new PrintStream(OutputStream.nullOutputStream());
        assertThatThrownBy(() -> LatencyBench.run(new String[] {"--colour", "red"}, quiet))
                .hasMessageContaining("unknown option '--colour'");
        assertThatThrownBy(() -> LatencyBench.run(new String[] {"--notices"}, quiet))
                .hasMessageContaining("--notices needs a value");
    }
}
