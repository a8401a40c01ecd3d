package io.gpuledger.processes;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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

    @Test
    void shouldHandOutPortsBelowTheRangeTheKernelDrawsOutgoingConnectionsFrom() {
        // Given this machine's ephemeral range, where the kernel picks every client connection's local port
        int ephemeralLow = LocalPorts.ephemeralLow(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).orElse(32_768);

        // When ports are asked for, single and in pairs
        for (int i = 0; i < 20; i++) {
            int single = LocalPorts.free();
            int pair = LocalPorts.freePair();

            // Then none of them, nor a pair's second port, can be taken by a connection made in the meantime
            assertThat(single).isGreaterThanOrEqualTo(1024).isLessThan(ephemeralLow);
            assertThat(pair + 1).isGreaterThan(1024).isLessThan(ephemeralLow);
        }
    }

    @Test
    void shouldReadTheLowerEndOfTheEphemeralRangeAndNothingFromAFileItCannotRead(@TempDir Path dir)
            throws IOException {
        // Given the file as Linux writes it (two numbers, tab between, newline after), one garbled and none at all
        Path linux = Files.writeString(dir.resolve("range"), "40000\t60999\n");
        Path garbled = Files.writeString(dir.resolve("garbled"), "low high\n");

        // Then the first gives its lower end and the others nothing, so the default applies
        assertThat(LocalPorts.ephemeralLow(linux)).contains(40_000);
        assertThat(LocalPorts.ephemeralLow(garbled)).isEmpty();
        assertThat(LocalPorts.ephemeralLow(dir.resolve("absent"))).isEmpty();
    }
}
