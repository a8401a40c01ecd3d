package io.gpuledger.processes;

import java.io.BufferedReader;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Ports on 127.0.0.1 that nothing listens on, for the servers a test or a benchmark starts. A port is free when
 * asked for, not when its server binds it later, so two things keep it free until then:
 * <ul>
 * <li>it lies below the kernel's ephemeral range ({@code net.ipv4.ip_local_port_range}), which the kernel draws the
 * local port of every outgoing connection from: a client connecting anywhere (a Kafka consumer in a test running
 * beside this one) can never take it in the meantime, as it could a port the kernel handed out for port 0;</li>
 * <li>one handed out is never handed out again by this JVM, so that two servers started one after the other (the
 * second asked for before the first has bound) do not get the same one.</li>
 * </ul>
 * Where the ephemeral range leaves too few ports below it, the ports come from the kernel (port 0) as a last resort.
 */
public final class LocalPorts {

    private static final int ATTEMPTS = 200;
    /** Below this lie the ports that well-known services listen on. */
    private static final int LOWEST = 20_000;
    /** The Linux default lower end of the ephemeral range, where the kernel does not say. */
    private static final int DEFAULT_EPHEMERAL_LOW = 32_768;
    private static final Path EPHEMERAL_RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
    private static final Set<Integer> HANDED_OUT = new HashSet<>();

    private LocalPorts() {
    }

    public static synchronized int free() {
        return handOut(1);
    }

    /** A free port whose next one is free too: an alert service's API and its management port. */
    public static synchronized int freePair() {
        return handOut(2);
    }

    private static int handOut(int neighbours) {
        int below = ephemeralLow(EPHEMERAL_RANGE).orElse(DEFAULT_EPHEMERAL_LOW);
        boolean roomBelow = below - LOWEST >= 1_000;
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            int port = roomBelow ? ThreadLocalRandom.current().nextInt(LOWEST, below - neighbours + 1) : kernelPort();
            if (port > 0 && allFree(port, neighbours)) {
                for (int i = 0; i < neighbours; i++) {
                    HANDED_OUT.add(port + i);
                }
                return port;
            }
        }
        throw new IllegalStateException("no " + neighbours + " free neighbouring port(s) on the loopback interface");
    }

    private static boolean allFree(int port, int neighbours) {
        for (int i = 0; i < neighbours; i++) {
            if (HANDED_OUT.contains(port + i) || !bindable(port + i)) {
                return false;
            }
        }
        return true;
    }

    private static boolean bindable(int port) {
        try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            return true;
        } catch (IOException | IllegalArgumentException e) {
            return false;
        }
    }

    private static int kernelPort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            return -1;
        }
    }

    /**
     * The lower end of the ephemeral range the file names ("32768\t60999"), if it can be read. Read as a line: some
     * kernels report a size for the file that is shorter than what it holds, which a whole-file read trusts.
     */
    static Optional<Integer> ephemeralLow(Path rangeFile) {
        try (BufferedReader reader = Files.newBufferedReader(rangeFile)) {
            String[] bounds = reader.readLine().trim().split("\\s+");
            int low = Integer.parseInt(bounds[0]);
            int high = Integer.parseInt(bounds[1]);
            return high >= low ? Optional.of(low) : Optional.empty();
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }
}
