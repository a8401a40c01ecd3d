package io.gpuledger.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** How many copies a new topic gets, and how many must hold a record before it is acknowledged. */
class TopicAdminTest {

    @Test
    void shouldKeepThreeCopiesTwoInSyncOnAClusterOfThreeOrMore() {
        assertThat(TopicAdmin.replicationFactor(3)).isEqualTo((short) 3);
        assertThat(TopicAdmin.replicationFactor(5)).isEqualTo((short) 3);
        assertThat(TopicAdmin.replicated(Map.of(), (short) 3)).containsEntry("min.insync.replicas", "2");
    }

    @Test
    void shouldStayWritableOnOneOrTwoBrokers() {
        assertThat(TopicAdmin.replicationFactor(1)).isEqualTo((short) 1);
        assertThat(TopicAdmin.replicationFactor(2)).isEqualTo((short) 2);
        assertThat(TopicAdmin.replicated(Map.of(), (short) 1)).containsEntry("min.insync.replicas", "1");
        assertThat(TopicAdmin.replicated(Map.of(), (short) 2)).containsEntry("min.insync.replicas", "1");
    }

    @Test
    void shouldKeepTheTopicsOwnSettings() {
        Map<String, String> config = TopicAdmin.replicated(Topics.PRICES.config(), (short) 3);

        assertThat(config).containsAllEntriesOf(Topics.PRICES.config()).containsEntry("min.insync.replicas", "2");
    }
}
