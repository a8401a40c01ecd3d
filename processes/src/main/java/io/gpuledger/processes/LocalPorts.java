package io.gpuledger.processes;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/** Ports on 127.0.0.1 that nothing listens on, for the servers a test or a benchmark starts. */
public final class LocalPorts {

    private LocalPorts() {
    }

    public static int free() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A free port whose next one is free too: an alert service's API and its management port. */
    public static int freePair() {
        for (int attempt = 0; attempt < 50; attempt++) {
            int port = free();
            try (ServerSocket next = new ServerSocket(port + 1, 1, InetAddress.getLoopbackAddress())) {
                return port;
            } catch (IOException e) {
                // taken: try another
            }
        }
        throw new IllegalStateException("no two free neighbouring ports on the loopback interface");
    }
}
