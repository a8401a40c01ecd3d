package io.gpuledger.processes;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class LocalPortsTest {

    @Test
    void shouldNeverHandOutAPortTwiceNorAPairThatOverlapsOneHandedOut() throws IOException {
        // Given ports asked for one after the other, none bound yet, as two services started in turn ask for theirs
        Set<Integer> given = new HashSet<>();
        List<Integer> pairs = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            int pair = LocalPorts.freePair();
            pairs.add(pair);
            assertThat(given.add(pair)).as("port %d handed out before", pair).isTrue();
            assertThat(given.add(pair + 1)).as("port %d handed out before", pair + 1).isTrue();
            int single = LocalPorts.free();
            assertThat(given.add(single)).as("port %d handed out before", single).isTrue();
        }

        // Then each pair's two ports can be bound now
        for (int pair : pairs.subList(0, 5)) {
            try (ServerSocket api = new ServerSocket(pair, 1, InetAddress.getLoopbackAddress());
                    ServerSocket management = new ServerSocket(pair + 1, 1, InetAddress.getLoopbackAddress())) {
                assertThat(management.getLocalPort()).isEqualTo(api.getLocalPort() + 1);
            }
        }
    }
}
