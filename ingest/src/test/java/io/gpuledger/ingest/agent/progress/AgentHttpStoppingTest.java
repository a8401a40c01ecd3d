package io.gpuledger.ingest.agent.progress;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

/** Who may say that the instance stops: the node itself, not a pod reaching the agent's host port. */
class AgentHttpStoppingTest {

    @Test
    void shouldLetOnlyTheNodesOwnLoopbackAddressSayThatItsInstanceStops() throws Exception {
        assertThat(AgentHttp.maySayStopping(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 40000))).isTrue();
        assertThat(AgentHttp.maySayStopping(new InetSocketAddress(InetAddress.getByName("::1"), 40000))).isTrue();
        // a pod of the node, through the host port, or another node
        assertThat(AgentHttp.maySayStopping(new InetSocketAddress(InetAddress.getByName("10.244.3.17"), 40000)))
                .isFalse();
        assertThat(AgentHttp.maySayStopping(new InetSocketAddress(InetAddress.getByName("192.168.1.20"), 40000)))
                .isFalse();
    }
}
