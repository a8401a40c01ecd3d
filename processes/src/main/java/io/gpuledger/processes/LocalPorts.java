package io.gpuledger.processes;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.HashSet;
import java.util.Set;

/**
 * Ports on 127.0.0.1 that nothing listens on, for the servers a test or a benchmark starts. A port is free when
 * asked for, not when its server binds it later: one handed out is never handed out again by this JVM, so that two
 * servers started one after the other (the second asked for before the first has bound) do not get the same one.
 */
public final class LocalPorts {

    private static final int ATTEMPTS = 50;
    private static final Set<Integer> HANDED_OUT = new HashSet<>();

    private LocalPorts() {
    }

    public static synchronized int free() {
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            int port = unbound();
            if (HANDED_OUT.add(port)) {
                return port;
            }
        }
        throw new IllegalStateException("no free port on the loopback interface that was not handed out before");
    }

    /** A free port whose next one is free too: an alert service's API and its management port. */
    public static synchronized int freePair() {
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            int port = unbound();
            if (HANDED_OUT.contains(port) || HANDED_OUT.contains(port + 1)) {
                continue;
            }
            try (ServerSocket next = new ServerSocket(port + 1, 1, InetAddress.getLoopbackAddress())) {
                HANDED_OUT.add(port);
                HANDED_OUT.add(port + 1);
                return port;
            } catch (IOException e) {
                // taken: try another
            }
        }
        throw new IllegalStateException("no two free neighbouring ports on the loopback interface");
    }

    private static int unbound() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
