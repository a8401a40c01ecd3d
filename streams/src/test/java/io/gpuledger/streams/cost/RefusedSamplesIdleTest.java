package io.gpuledger.streams.cost;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Placement;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.TelemetrySample;
import io.gpuledger.streams.state.CodecSerde;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.apache.kafka.common.serialization.Serdes;
import org.junit.jupiter.api.Test;

/**
 * A task whose samples are all refused says it is idle to the roll-ups: otherwise its progress,
 * frozen at its last sample taken, would hold every roll-up minute of every other task back.
 */
class RefusedSamplesIdleTest {

    private static final Instant T0 = Instant.parse("2026-03-01T12:00:00Z");
    private static final String APPLICATION = "refused-samples-idle-test";

    @Test
    void shouldCountATaskWhoseSamplesAreAllFromTheFutureAsIdle() {
        try (CostDriver cost = new CostDriver(APPLICATION, T0)) {
            // Given a task that took one sample
            cost.publish(new PriceQuote("aws", "us-east-1", "p4d.24xlarge", Lifecycle.ON_DEMAND, "A100-40GB", 8, 32.77,
                    "USD", T0.minus(Duration.ofDays(1)), "test"));
            cost.send(sample("GPU-on-time", T0.plusSeconds(10)));

            // When for a minute it gets only samples of a node whose clock runs 5 minutes ahead
            for (int i = 0; i < 15; i++) {
                cost.sendAsStamped(sample("GPU-fast-clock", cost.now().plus(Duration.ofMinutes(5))));
            }

            // Then they were all refused, and the task's latest progress says it is idle
            assertThat(cost.deadLettersCounted("telemetry-future")).isEqualTo(15.0);
            List<SourceProgress> progress = cost.driver.createOutputTopic(APPLICATION + "-rollup-partials-repartition",
                    Serdes.String().deserializer(), new CodecSerde<>(RollupInput.CODEC).deserializer())
                    .readValuesToList().stream()
                    .filter(SourceProgress.class::isInstance).map(SourceProgress.class::cast).toList();
            assertThat(progress).isNotEmpty();
            assertThat(progress.get(progress.size() - 1).idle()).isTrue();
        }
    }

    private static TelemetrySample sample(String gpu, Instant end) {
        return TelemetrySample.builder().gpuUuid(gpu).gpuModel("A100-40GB")
                .placement(new Placement("node-" + gpu, "i-" + gpu, "p4d.24xlarge", "aws", "us-east-1",
                        Lifecycle.ON_DEMAND))
                .jobId("train").time(end).intervalSeconds(10).smActive(0.5).build();
    }
}
