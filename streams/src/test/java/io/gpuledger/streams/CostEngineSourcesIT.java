package io.gpuledger.streams;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuledger.broker.EmbeddedKafka;
import io.gpuledger.model.TopicAdmin;
import io.gpuledger.model.Topics;
import org.junit.jupiter.api.Test;

/**
 * What the engine learns of its inputs: how many tasks its roll-ups wait for (one per partition,
 * when it can tell), which inputs are missing, and which the broker dates.
 */
class CostEngineSourcesIT {

    @Test
    void shouldCountThePartitionsOfTheInputsOrNoneBeforeTheyExist() {
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            // Given a broker without the contract's topics: nothing to count, the roll-ups learn the tasks
            EngineInputs before = EngineInputs.describe(kafka.bootstrapServers());
            assertThat(before.partitions()).isZero();
            assertThat(before.known()).isTrue();
            assertThat(before.missing()).containsExactlyInAnyOrder(Topics.TELEMETRY.name(),
                    Topics.JOB_PROGRESS.name(), Topics.CAPACITY_EVENTS.name(), Topics.PRICES.name());

            // When the topics are created with three partitions each
            TopicAdmin.ensureTopics(kafka.bootstrapServers(), 3);

            // Then three tasks send partials
            EngineInputs after = EngineInputs.describe(kafka.bootstrapServers());
            assertThat(after.partitions()).isEqualTo(3);
            assertThat(after.missing()).isEmpty();
            // and the two whose times drive the engine's clock are dated by the broker
            assertThat(after.brokerStamped()).containsExactlyInAnyOrder(Topics.TELEMETRY.name(),
                    Topics.JOB_PROGRESS.name());
        }
    }
}
