package io.gpuledger.http;

import io.gpuledger.http.ComparedServers.Kind;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Measures the agent's service on each of {@link ComparedServers}, each in a JVM of its own with
 * the agent's JVM options: its resident memory and threads, and whether it keeps the bounds the
 * agent needs. Prints one Markdown row per server and round (docs/benchmarks.md says how to run it).
 *
 * <p>Arguments: the rounds (3), then the servers by {@link Kind} name (all). It runs from the
 * repository's root, where it reads {@code deploy/agent/jvm.options}.
 */
public final class ServerComparison {

    static final int SEQUENTIAL = 10_000;
    static final Path JVM_OPTIONS = Path.of("deploy/agent/jvm.options");
    /** How long the slow clients trickle: past a second batch's deadline, where one batch waited for the first. */
    static final long SLOW_MILLIS = 22_000;
    private static final long DEADLINE_MILLIS = ComparedServers.AGENT.requestDeadline().toMillis();
    private static final byte[] REPORT = ("{\"jobId\":\"train-42\",\"node\":\"gpu-node-7\",\"gpuUuids\":[\"GPU-0a1b\"],"
            + "\"workDone\":1200,\"workUnit\":\"steps\",\"intervalSeconds\":30}").getBytes(StandardCharsets.UTF_8);

    /** A bound, kept or not, with what was seen. */
    record Bound(boolean held, String seen) {
        @Override
        public String toString() {
            return (held ? "pass: " : "FAIL: ") + seen;
        }
    }

    /** What the server's process held, from /proc. */
    record Footprint(long rssKib, int threads) {
        @Override
        public String toString() {
            return String.format("%.1f MiB, %d threads", rssKib / 1024.0, threads);
        }
    }

    /**
     * A status line's code (-1 where none came, and why), the milliseconds until it came and until
     * the server closed the connection (-1: still open when the client gave up).
     */
    record Answer(int status, long millis, long closedMillis, String failure) {
        boolean closedWithin(long limit) {
            return closedMillis >= 0 && closedMillis <= limit;
        }
    }

    private ServerComparison() {
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 3;
        List<Kind> kinds = args.length > 1 ? Arrays.stream(args, 1, args.length).map(Kind::valueOf).toList()
                : List.of(Kind.values());
        List<String> options = Files.readAllLines(JVM_OPTIONS).stream().map(String::strip)
                .filter(line -> !line.isEmpty() && !line.startsWith("#")).toList();
        System.out.println("# " + LocalDate.now() + ", JVM options of " + JVM_OPTIONS + ": "
                + String.join(" ", options));
        System.out.println("| round | server | after start | after " + SEQUENTIAL + " requests | those requests"
                + " | slow clients | 64 KiB of headers | Content-Length 1 MiB | chunked past the cap | busy |");
        System.out.println("|---|---|---|---|---|---|---|---|---|---|");
        for (int round = 1; round <= rounds; round++) {
            for (Kind kind : kinds) {
                List<String> row = measure(kind, options);
                System.out.println("| " + round + " | " + kind.title + " | " + String.join(" | ", row) + " |");
            }
        }
    }

    /** One server in a process of its own: memory first, then each bound, the slow clients last. */
    static List<String> measure(Kind kind, List<String> options) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(options);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), ComparedServers.class.getName(),
                kind.name()));
        Process server = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try (OutputStream commands = server.getOutputStream()) {
            String ready = new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.US_ASCII))
                    .readLine();
            if (ready == null || !ready.startsWith("port ")) {
                throw new IllegalStateException(kind + " did not start: " + ready);
            }
            int port = Integer.parseInt(ready.substring(5));
            Thread.sleep(1000);
            Footprint started = footprint(server.pid());
            long start = System.nanoTime();
            int failed = sequentialRequests(port);
            long took = millisSince(start);
            Thread.sleep(1000);
            Footprint served = footprint(server.pid());
            Bound headers = oversizedHeaders(port);
            Bound declared = declaredBodyTooLarge(port);
            Bound chunked = chunkedBodyTooLarge(port);
            Bound busy = busy(port, commands);
            awaitIdle(port);
            Bound slow = slowClients(port);
            return List.of(started.toString(), served.toString(),
                    String.format("%.1f s%s", took / 1000.0, failed == 0 ? "" : ", " + failed + " failed"),
                    slow.toString(), headers.toString(), declared.toString(), chunked.toString(), busy.toString());
        } finally {
            server.destroy();
            server.waitFor(10, TimeUnit.SECONDS);
        }
    }

    static Footprint footprint(long pid) throws IOException {
        long rss = -1;
        int threads = -1;
        for (String line : Files.readAllLines(Path.of("/proc", String.valueOf(pid), "status"))) {
            if (line.startsWith("VmRSS:")) {
                rss = Long.parseLong(line.substring(6).replace("kB", "").strip());
            } else if (line.startsWith("Threads:")) {
                threads = Integer.parseInt(line.substring(8).strip());
            }
        }
        return new Footprint(rss, threads);
    }

    /** Work reports and scrapes in turn, each on a connection of its own; how many were not answered 2xx. */
    static int sequentialRequests(int port) throws IOException {
        byte[] report = join(head("POST", "/v1/progress", "Content-Type: application/json\r\nContent-Length: "
                + REPORT.length + "\r\n"), REPORT);
        byte[] scrape = head("GET", "/metrics", "");
        int failed = 0;
        for (int i = 0; i < SEQUENTIAL; i++) {
            Answer answer = send(port, i % 2 == 0 ? report : scrape, 5_000);
            if (answer.status() / 100 != 2) {
                failed++;
            }
        }
        return failed;
    }

    /** 64 KiB of headers in 64 lines: refused with 431 or 400, and the connection closed. */
    static Bound oversizedHeaders(int port) throws IOException {
        StringBuilder headers = new StringBuilder();
        for (int i = 0; i < 64; i++) {
            headers.append("X-Padding-").append(i).append(": ").append("a".repeat(1000)).append("\r\n");
        }
        Answer answer = send(port, head("GET", "/metrics", headers.toString()), 5_000);
        boolean refused = answer.status() == 431 || answer.status() == 400;
        return new Bound(refused && answer.closedWithin(5_000), describe(answer));
    }

    /**
     * A body said to be 1 MiB of which 8 KiB is sent: 413 at once, and the connection closed within
     * 2 s rather than held for the rest (the client waits up to 15 s to see when it closes).
     */
    static Bound declaredBodyTooLarge(int port) throws IOException {
        byte[] request = join(head("POST", "/v1/progress", "Content-Type: application/json\r\nContent-Length: "
                + (1024 * 1024) + "\r\n"), new byte[8 * 1024]);
        Answer answer = send(port, request, 15_000);
        return new Bound(answer.status() == 413 && answer.closedWithin(2_000), describe(answer));
    }

    /** 128 KiB in chunks of 8 KiB and no last chunk: as above, 413 once the cap is passed, not a wait for the end. */
    static Bound chunkedBodyTooLarge(int port) throws IOException {
        ByteArrayOutputStream request = new ByteArrayOutputStream();
        request.writeBytes(head("POST", "/v1/progress", "Content-Type: application/json\r\n"
                + "Transfer-Encoding: chunked\r\n"));
        for (int i = 0; i < 16; i++) {
            request.writeBytes("2000\r\n".getBytes(StandardCharsets.US_ASCII));
            request.writeBytes(new byte[8 * 1024]);
            request.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
        }
        Answer answer = send(port, request.toByteArray(), 15_000);
        return new Bound(answer.status() == 413 && answer.closedWithin(2_000), describe(answer));
    }

    /**
     * Every thread held by a blocked handler and the queue full (four requests served and 16
     * waiting): the next request is answered 503, or its connection refused, within 1 s.
     */
    static Bound busy(int port, OutputStream commands) throws Exception {
        int holding = ComparedServers.AGENT.threads() + ComparedServers.AGENT.queueCapacity();
        List<Socket> held = new ArrayList<>();
        try {
            for (int i = 0; i < holding; i++) {
                Socket socket = new Socket();
                socket.connect(new InetSocketAddress("127.0.0.1", port), 2_000);
                socket.getOutputStream().write(head("GET", "/block", ""));
                held.add(socket);
                // One at a time: a burst can find the threads not yet off the queue, and be refused early.
                Thread.sleep(50);
            }
            Thread.sleep(1_000);
            int answeredEarly = 0;
            for (Socket socket : held) {
                socket.setSoTimeout(1);
                try {
                    socket.getInputStream().read();
                    answeredEarly++;
                } catch (SocketTimeoutException e) {
                    // Held, as it should be.
                }
            }
            Answer answer = send(port, head("GET", "/metrics", ""), 5_000);
            boolean refused = answer.status() == 503 || answer.status() < 0;
            String early = answeredEarly == 0 ? "" : " (" + answeredEarly + " of the " + holding + " answered before)";
            return new Bound(refused && answer.millis() <= 1_000, describe(answer) + early);
        } finally {
            commands.write("release\n".getBytes(StandardCharsets.US_ASCII));
            commands.flush();
            for (Socket socket : held) {
                socket.close();
            }
        }
    }

    /** Until the server answers at once again, after the busy test's queue has run out. */
    private static void awaitIdle(int port) throws Exception {
        for (int tries = 0; tries < 100; tries++) {
            if (send(port, head("GET", "/metrics", ""), 5_000).status() == 200) {
                return;
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException("the server stayed busy after the busy test");
    }

    /**
     * Twice as many clients as threads, each sending its request a byte a second: a fast client's
     * request is still answered within 2 s, and each slow one is cut within the deadline and a second
     * (from its connection), by an answer or a close.
     */
    static Bound slowClients(int port) throws Exception {
        int count = 2 * ComparedServers.AGENT.threads();
        byte[] trickle = ("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + "a".repeat(100))
                .getBytes(StandardCharsets.US_ASCII);
        Socket[] sockets = new Socket[count];
        long[] cutAt = new long[count];
        long start = System.nanoTime();
        for (int i = 0; i < count; i++) {
            sockets[i] = new Socket();
            sockets[i].connect(new InetSocketAddress("127.0.0.1", port), 2_000);
            sockets[i].setSoTimeout(1);
            cutAt[i] = -1;
        }
        CompletableFuture<Answer> fast = null;
        int sent = 0;
        byte[] one = new byte[256];
        try {
            for (long now = 0; now < SLOW_MILLIS; now = millisSince(start)) {
                boolean tick = now >= sent * 1_000L;
                for (int i = 0; i < count; i++) {
                    if (cutAt[i] >= 0) {
                        continue;
                    }
                    try {
                        if (tick) {
                            sockets[i].getOutputStream().write(trickle[sent % trickle.length]);
                        }
                        if (sockets[i].getInputStream().read(one) != 0) {
                            cutAt[i] = millisSince(start);
                        }
                    } catch (SocketTimeoutException e) {
                        // Still waiting for more of the request.
                    } catch (IOException e) {
                        cutAt[i] = millisSince(start);
                    }
                }
                sent += tick ? 1 : 0;
                if (fast == null && now >= 1_500) {
                    fast = CompletableFuture.supplyAsync(() -> sendQuietly(port, head("GET", "/metrics", ""),
                            (int) SLOW_MILLIS));
                }
                if (fast != null && fast.isDone() && Arrays.stream(cutAt).allMatch(cut -> cut >= 0)) {
                    break;
                }
                Thread.sleep(100);
            }
        } finally {
            for (Socket socket : sockets) {
                socket.close();
            }
        }
        Answer answer = fast == null ? null : fast.get(SLOW_MILLIS, TimeUnit.MILLISECONDS);
        long cut = Arrays.stream(cutAt).filter(at -> at >= 0).count();
        long first = Arrays.stream(cutAt).filter(at -> at >= 0).min().orElse(-1);
        long last = Arrays.stream(cutAt).filter(at -> at >= 0).max().orElse(-1);
        boolean fastHeld = answer != null && answer.status() / 100 == 2 && answer.millis() <= 2_000;
        boolean cutHeld = cut == count && last <= DEADLINE_MILLIS + 1_000;
        String cuts = cut == 0 ? "none cut in " + SLOW_MILLIS / 1000 + " s"
                : String.format("%d of %d cut at %.1f–%.1f s", cut, count, first / 1000.0, last / 1000.0);
        return new Bound(fastHeld && cutHeld, "fast " + (answer == null ? "not sent" : describe(answer)) + "; "
                + cuts);
    }

    private static long millisSince(long start) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    }

    private static byte[] head(String method, String path, String headers) {
        return (method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n" + headers + "\r\n")
                .getBytes(StandardCharsets.ISO_8859_1);
    }

    private static byte[] join(byte[] first, byte[] second) {
        byte[] both = Arrays.copyOf(first, first.length + second.length);
        System.arraycopy(second, 0, both, first.length, second.length);
        return both;
    }

    private static Answer sendQuietly(int port, byte[] request, int timeoutMillis) {
        try {
            return send(port, request, timeoutMillis);
        } catch (IOException e) {
            return new Answer(-1, -1, -1, e.getMessage());
        }
    }

    /**
     * Sends a request on a new connection and reads the answer's status line, then to the end of
     * the connection, each within {@code timeoutMillis}. A server may answer and close before it has
     * read all: a failed write is not the end, the answer may still be there to read.
     */
    static Answer send(int port, byte[] request, int timeoutMillis) throws IOException {
        long start = System.nanoTime();
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), timeoutMillis);
            socket.setSoTimeout(timeoutMillis);
            try {
                socket.getOutputStream().write(request);
            } catch (IOException e) {
                // Read what the server said before it stopped reading.
            }
            InputStream in = socket.getInputStream();
            ByteArrayOutputStream line = new ByteArrayOutputStream();
            int status = -1;
            String failure = null;
            try {
                for (int b = in.read(); b >= 0 && b != '\n'; b = in.read()) {
                    line.write(b);
                }
                String statusLine = line.toString(StandardCharsets.ISO_8859_1);
                if (statusLine.startsWith("HTTP/1.")) {
                    status = Integer.parseInt(statusLine.substring(9, 12));
                } else {
                    failure = statusLine.isEmpty() ? "closed without an answer" : "not HTTP: " + statusLine;
                }
            } catch (SocketTimeoutException e) {
                failure = "no answer in " + timeoutMillis + " ms";
            } catch (IOException e) {
                failure = e.getMessage();
            }
            long millis = millisSince(start);
            long closed = -1;
            try {
                byte[] rest = new byte[8192];
                while (in.read(rest) >= 0) {
                    // The rest of the answer.
                }
                closed = millisSince(start);
            } catch (SocketTimeoutException e) {
                // Left open.
            } catch (IOException e) {
                closed = millisSince(start);
            }
            return new Answer(status, millis, closed, failure);
        }
    }

    private static String describe(Answer answer) {
        String what = answer.status() >= 0 ? String.valueOf(answer.status()) : answer.failure();
        String closed = answer.closedMillis() < 0 ? ", left open"
                : answer.closedMillis() - answer.millis() > 200 ? ", closed at " + answer.closedMillis() + " ms" : "";
        return what + " in " + answer.millis() + " ms" + closed;
    }
}
