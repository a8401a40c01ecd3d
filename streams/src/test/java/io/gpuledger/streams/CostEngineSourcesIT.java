package io.gpuledger.streams;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuledger.broker.EmbeddedKafka;
import io.gpuledger.model.TopicAdmin;
import org.junit.jupiter.api.Test;

/** How many tasks the engine's roll-ups wait for: one per partition of its inputs, when it can tell. */
class CostEngineSourcesIT {

    @Test
    void shouldCountThePartitionsOfTheInputsOrNoneBeforeTheyExist() {
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            // Given a broker without the contract's topics: nothing to count, the roll-ups learn the tasks
            assertThat(CostEngine.sourcePartitions(kafka.bootstrapServers())).isZero();

            // When the topics are created with three partitions each
            TopicAdmin.ensureTopics(kafka.bootstrapServers(), 3);

            // Then three tasks send partials
            assertThat(CostEngine.sourcePartitions(kafka.bootstrapServers())).isEqualTo(3);
        }
    }
}
