package io.gpuledger.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

/** A node's place in a cluster, as its command line gives it and as its broker settings keep it. */
class ClusterNodeTest {

    private static final String CLUSTER_ID = Uuid.randomUuid().toString();
    private static final String VOTERS = "1@127.0.0.1:9101,2@127.0.0.1:9102,3@127.0.0.1:9103";

    @Test
    void shouldKeepEveryTopicInThreeCopiesTwoInSyncOnThreeNodes() {
        ClusterNode node = ClusterNode.parse(2, CLUSTER_ID, VOTERS);

        Properties config = EmbeddedKafka.brokerConfig(Path.of("data"), 9202, node);

        assertThat(config).containsEntry("node.id", "2").containsEntry("controller.quorum.voters", VOTERS)
                .containsEntry("listeners", "PLAINTEXT://127.0.0.1:9202,CONTROLLER://127.0.0.1:9102")
                .containsEntry("default.replication.factor", "3").containsEntry("min.insync.replicas", "2")
                .containsEntry("offsets.topic.replication.factor", "3")
                .containsEntry("transaction.state.log.replication.factor", "3")
                .containsEntry("transaction.state.log.min.isr", "2")
                .containsEntry("unclean.leader.election.enable", "false");
    }

    @Test
    void shouldKeepOneCopyOnANodeAlone() {
        Properties config = EmbeddedKafka.brokerConfig(Path.of("data"), 9202, ClusterNode.single(9102));

        assertThat(config).containsEntry("node.id", "1").containsEntry("controller.quorum.voters", "1@127.0.0.1:9102")
                .containsEntry("default.replication.factor", "1").containsEntry("min.insync.replicas", "1")
                .containsEntry("transaction.state.log.min.isr", "1");
    }

    @Test
    void shouldTakeANodeOfAClusterFromItsCommandLineAndGiveItBack() {
        ClusterNode node = new ClusterNode(3, CLUSTER_ID, new TreeMap<>(Map.of(1, 9101, 2, 9102, 3, 9103)));
        List<String> command = BrokerProcess.command("classes", Path.of("data"), 9203, node);
        String[] args = command.subList(command.indexOf(BrokerMain.class.getName()) + 1, command.size())
                .toArray(String[]::new);

        assertThat(BrokerMain.node(BrokerMain.parse(args))).isEqualTo(node);
        assertThat(command).containsSequence("--voters", VOTERS);
    }

    @Test
    void shouldGiveANodeAloneTheCommandLineItHadBefore() {
        List<String> command = BrokerProcess.command("classes", Path.of("data"), 9203, ClusterNode.single(9103));

        assertThat(command).doesNotContain("--node-id", "--cluster-id", "--voters");
        String[] args = command.subList(command.indexOf(BrokerMain.class.getName()) + 1, command.size())
                .toArray(String[]::new);
        assertThat(BrokerMain.node(BrokerMain.parse(args)).voters()).isEqualTo("1@127.0.0.1:9103");
    }

    @Test
    void shouldRefuseACommandLineThatContradictsItself() {
        assertThatThrownBy(() -> BrokerMain.node(BrokerMain.parse(new String[] {"--data-dir", "d", "--port", "9201",
            "--controller-port", "9109", "--node-id", "1", "--cluster-id", CLUSTER_ID, "--voters", VOTERS})))
                .hasMessageContaining("controller port 9101, --controller-port 9109");
        assertThatThrownBy(() -> BrokerMain.parse(new String[] {"--data-dir", "d", "--port", "9201",
            "--controller-port", "9101", "--node-id", "1"}))
                .hasMessageContaining("go together");
        assertThatThrownBy(() -> ClusterNode.parse(4, CLUSTER_ID, VOTERS))
                .hasMessageContaining("not one of the voters");
        assertThatThrownBy(() -> ClusterNode.parse(1, CLUSTER_ID, "1@10.0.0.1:9101"))
                .hasMessageContaining("id@127.0.0.1:port");
        assertThatThrownBy(() -> ClusterNode.parse(1, "cluster", "1@127.0.0.1:9101"))
                .hasMessageContaining("cluster id");
    }
}
