// Over 400 lines: the pool side of a request (body, deadline, answer, refusals); its bounds checked in one place.
package io.gpuledger.http;

import java.io.BufferedInputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.SequenceInputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * A plain HTTP/1.1 server for a program's few routes (the agent's endpoint, the cost engine's
 * metrics and health), bounded in every way a client could hold it: each request (line, headers and
 * body) must arrive within a deadline that runs from the accept and without long pauses, headers
 * and bodies have a size cap, and each connection carries one request. One thread ({@link HeadReader})
 * reads every request's line and headers without blocking, so clients trickling their heads hold
 * no handler thread and a fast request passes them; a complete head goes to a fixed pool of
 * threads, where its body is read and its route runs. A request that finds every thread busy and
 * the queue full is answered 503 at once.
 *
 * <p>The JDK's own server reads requests on its handler threads with no deadline unless a JVM-wide
 * system property says otherwise; a server of our own keeps the bounds in one place and in code.
 */
public final class BoundedHttpServer implements AutoCloseable {

    /** How much the server gives one client. */
    public record Limits(int threads, int queueCapacity, Duration idleRead, Duration requestDeadline,
            int maxHeaderBytes, int maxBodyBytes) {
    }

    /** What happened to requests the routes never saw, or saw cut short. */
    public enum Refusal {
        /** every thread busy and the queue full: 503 */
        BUSY,
        /** the request did not arrive within its deadline: 408 */
        TIMEOUT,
        /** headers too large, a malformed request line or framing: 4xx */
        MALFORMED
    }

    /** A request whose line and headers are read; its body is read when asked for, within the same deadline. */
    public static final class Request {
        private final String method;
        private final String path;
        private final Map<String, String> headers;
        private final InetSocketAddress remote;
        private final InputStream in;
        private final OutputStream out;
        private final int maxBodyBytes;
        private byte[] body;

        private Request(String method, String path, Map<String, String> headers, InetSocketAddress remote,
                InputStream in, OutputStream out, int maxBodyBytes) {
            this.method = method;
            this.path = path;
            this.headers = headers;
            this.remote = remote;
            this.in = in;
            this.out = out;
            this.maxBodyBytes = maxBodyBytes;
        }

        public String method() {
            return method;
        }

        /** Whether the request says it carries a body: a chunked one, or a Content-Length above 0. */
        public boolean hasBody() {
            String length = header("Content-Length");
            return header("Transfer-Encoding") != null || (length != null && !length.strip().equals("0"));
        }

        public String path() {
            return path;
        }

        /** A header by its name in any case, or null. */
        public String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }

        public InetSocketAddress remote() {
            return remote;
        }

        /**
         * The body, at most the server's cap. A client that asked to be told first ({@code Expect:
         * 100-continue}) is told now: a request refused before its body is read never sends it.
         *
         * @throws BodyTooLarge when the body is larger than the cap (only that much of it is read)
         */
        public byte[] body() throws IOException {
            if (body != null) {
                return body;
            }
            if ("100-continue".equalsIgnoreCase(header("Expect"))) {
                out.write("HTTP/1.1 100 Continue\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                out.flush();
            }
            String chunked = header("Transfer-Encoding");
            body = chunked != null ? readChunked() : readLength();
            return body;
        }

        private byte[] readLength() throws IOException {
            String length = header("Content-Length");
            if (length == null) {
                return new byte[0];
            }
            long declared = contentLength(length);
            if (declared > maxBodyBytes) {
                throw new BodyTooLarge(maxBodyBytes);
            }
            byte[] read = in.readNBytes((int) declared);
            if (read.length < declared) {
                throw new Malformed(400, "the body ended after " + read.length + " of its " + declared + " bytes");
            }
            return read;
        }

        private byte[] readChunked() throws IOException {
            ByteArrayOutputStream read = new ByteArrayOutputStream();
            while (true) {
                String sizeLine = readLine(in, 1024);
                int extension = sizeLine.indexOf(';');
                String hex = (extension < 0 ? sizeLine : sizeLine.substring(0, extension)).strip();
                long size;
                try {
                    size = Long.parseLong(hex, 16);
                } catch (NumberFormatException e) {
                    throw new Malformed(400, "malformed chunk size '" + abbreviated(hex) + "'");
                }
                if (size < 0 || read.size() + size > maxBodyBytes) {
                    throw new BodyTooLarge(maxBodyBytes);
                }
                if (size == 0) {
                    // Trailers, if any, up to the empty line that ends the request.
                    int trailerBytes = 0;
                    for (String trailer = readLine(in, 1024); !trailer.isEmpty(); trailer = readLine(in, 1024)) {
                        trailerBytes += trailer.length();
                        if (trailerBytes > 8 * 1024) {
                            throw new Malformed(431, "trailers larger than 8 KiB");
                        }
                    }
                    return read.toByteArray();
                }
                byte[] chunk = in.readNBytes((int) size);
                if (chunk.length < size) {
                    throw new Malformed(400, "the body ended inside a chunk");
                }
                read.write(chunk);
                if (!readLine(in, 2).isEmpty()) {
                    throw new Malformed(400, "a chunk longer than its size");
                }
            }
        }

        private static long contentLength(String value) {
            try {
                long length = Long.parseLong(value.strip());
                if (length < 0) {
                    throw new NumberFormatException();
                }
                return length;
            } catch (NumberFormatException e) {
                throw new Malformed(400, "malformed Content-Length '" + abbreviated(value) + "'");
            }
        }
    }

    /** What a route answers. */
    public record Response(int status, String contentType, byte[] body, Map<String, String> headers) {

        public static Response of(int status, String contentType, byte[] body) {
            return new Response(status, contentType, body, Map.of());
        }
    }

    /** Answers one request; an IOException means the client went away or ran out of time. */
    @FunctionalInterface
    public interface Handler {
        Response handle(Request request) throws IOException;
    }

    /** A body over the cap; the route answers 413. */
    public static final class BodyTooLarge extends IOException {
        BodyTooLarge(int maxBodyBytes) {
            super("body larger than " + maxBodyBytes + " bytes");
        }
    }

    /** A request that is not HTTP as the server reads it. */
    static final class Malformed extends RuntimeException {
        final int status;

        Malformed(int status, String message) {
            super(message);
            this.status = status;
        }
    }

    /** The request's deadline passed, or it paused longer than the idle limit. */
    private static final class Late extends IOException {
        Late(String message) {
            super(message);
        }
    }

    private static final Map<Integer, String> REASONS = Map.ofEntries(Map.entry(200, "OK"),
            Map.entry(202, "Accepted"), Map.entry(400, "Bad Request"), Map.entry(401, "Unauthorized"),
            Map.entry(403, "Forbidden"), Map.entry(404, "Not Found"), Map.entry(405, "Method Not Allowed"),
            Map.entry(408, "Request Timeout"), Map.entry(413, "Content Too Large"),
            Map.entry(429, "Too Many Requests"), Map.entry(431, "Request Header Fields Too Large"),
            Map.entry(500, "Internal Server Error"), Map.entry(501, "Not Implemented"),
            Map.entry(503, "Service Unavailable"), Map.entry(505, "HTTP Version Not Supported"));
    /** How long a closing connection is drained, so that the client reads its answer rather than a reset. */
    static final Duration LINGER = Duration.ofSeconds(1);

    private final String name;
    private final Limits limits;
    private final Handler handler;
    private final Consumer<Refusal> refused;
    private final Consumer<String> problems;
    private final HeadReader heads;
    private final ThreadPoolExecutor pool;
    private final Thread selector;
    /** Connections being served, closed by {@link #close()} so that no handler waits on its client. */
    private final Set<SocketChannel> openConnections = ConcurrentHashMap.newKeySet();

    /**
     * Binds {@code host:port} (0: any free port) and starts serving.
     *
     * @param name     what the endpoint is, as its threads and messages name it ({@code agent-http})
     * @param refused  told of each request answered by the server itself (busy, late, malformed)
     * @param problems told of a route that failed unexpectedly
     */
    public BoundedHttpServer(String name, String host, int port, Limits limits, Handler handler,
            Consumer<Refusal> refused, Consumer<String> problems) throws IOException {
        this.name = name;
        this.limits = limits;
        this.handler = handler;
        this.refused = refused;
        this.problems = problems;
        AtomicInteger threads = new AtomicInteger();
        pool = new ThreadPoolExecutor(limits.threads(), limits.threads(), 60, TimeUnit.SECONDS,
                new ArrayBlockingQueue<>(limits.queueCapacity()), runnable -> daemon(runnable,
                        name + "-" + threads.incrementAndGet()));
        pool.allowCoreThreadTimeOut(true);
        heads = new HeadReader(name, host, port, limits, this::take, refused, problems);
        selector = daemon(heads, name + "-select");
        selector.start();
    }

    public int port() {
        return heads.port();
    }

    /** A connection whose head is read, given to a thread of the pool; false when none is free and the queue full. */
    private boolean take(SocketChannel connection, RequestHead head, long deadline) {
        try {
            pool.execute(() -> {
                openConnections.add(connection);
                try {
                    serve(connection, head, deadline);
                } finally {
                    openConnections.remove(connection);
                }
            });
            return true;
        } catch (RejectedExecutionException e) {
            return false;
        }
    }

    private void serve(SocketChannel channel, RequestHead head, long deadline) {
        Socket connection = channel.socket();
        Response response;
        boolean readAll = false;
        try {
            // The body's first bytes came with the head; the rest is read here, within the same deadline.
            InputStream in = new SequenceInputStream(new ByteArrayInputStream(head.rest()),
                    new BufferedInputStream(new DeadlineInput(connection, limits.idleRead(), deadline), 8192));
            Request request = new Request(head.method(), head.path(), head.headers(),
                    (InetSocketAddress) connection.getRemoteSocketAddress(), in, connection.getOutputStream(),
                    limits.maxBodyBytes());
            try {
                response = handler.handle(request);
                readAll = request.body != null || !request.hasBody();
            } catch (RuntimeException e) {
                if (e instanceof Malformed) {
                    throw e;
                }
                problems.accept(name + ": " + request.method() + " " + request.path() + " failed: " + e);
                response = error(500, "failed to handle the request: " + e.getClass().getSimpleName());
            }
        } catch (Late e) {
            refused.accept(Refusal.TIMEOUT);
            response = error(408, e.getMessage());
        } catch (Malformed e) {
            refused.accept(Refusal.MALFORMED);
            response = error(e.status, e.getMessage());
        } catch (IOException e) {
            // The client went away: nobody to answer.
            close(connection);
            return;
        }
        answerAndClose(connection, response, !readAll);
    }

    /** A line up to CRLF (or a bare LF), without it. */
    private static String readLine(InputStream in, int maxBytes) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream(64);
        while (true) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("connection closed inside the request");
            }
            if (b == '\n') {
                byte[] bytes = line.toByteArray();
                int length = bytes.length > 0 && bytes[bytes.length - 1] == '\r' ? bytes.length - 1 : bytes.length;
                return new String(bytes, 0, length, StandardCharsets.ISO_8859_1);
            }
            if (line.size() >= maxBytes) {
                throw new Malformed(431, "a request line or header longer than " + maxBytes + " bytes");
            }
            line.write(b);
        }
    }

    static Response error(int status, String message) {
        StringBuilder json = new StringBuilder("{\"error\":\"");
        for (char c : message.toCharArray()) {
            if (c == '"' || c == '\\') {
                json.append('\\').append(c);
            } else if (c < 0x20) {
                json.append(String.format("\\u%04x", (int) c));
            } else {
                json.append(c);
            }
        }
        return Response.of(status, "application/json", json.append("\"}").toString().getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Writes the answer in one piece and closes. Where the request was not read to its end, what
     * the client still sends is drained for a moment first: closing on unread bytes resets the
     * connection, and the client would see the reset instead of the answer.
     */
    private static void answerAndClose(Socket connection, Response response, boolean drain) {
        try {
            OutputStream out = connection.getOutputStream();
            out.write(encoded(response));
            out.flush();
            connection.shutdownOutput();
            if (drain) {
                drain(connection);
            }
        } catch (IOException e) {
            // The client went away before its answer.
        } finally {
            close(connection);
        }
    }

    /** The answer's status line, headers and body in one piece, to be written at once. */
    static byte[] encoded(Response response) {
        StringBuilder head = new StringBuilder("HTTP/1.1 ").append(response.status()).append(' ')
                    .append(REASONS.getOrDefault(response.status(), "Status")).append("\r\n");
            Map<String, String> headers = new LinkedHashMap<>(response.headers());
            headers.put("Content-Type", response.contentType());
            headers.put("Content-Length", String.valueOf(response.body().length));
            headers.put("Connection", "close");
            headers.forEach((name, value) -> head.append(name).append(": ").append(value).append("\r\n"));
            byte[] headBytes = head.append("\r\n").toString().getBytes(StandardCharsets.ISO_8859_1);
            byte[] whole = new byte[headBytes.length + response.body().length];
            System.arraycopy(headBytes, 0, whole, 0, headBytes.length);
            System.arraycopy(response.body(), 0, whole, headBytes.length, response.body().length);
            return whole;
    }

    private static void drain(Socket connection) throws IOException {
        long until = System.nanoTime() + LINGER.toNanos();
        byte[] buffer = new byte[8192];
        InputStream in = connection.getInputStream();
        long left;
        while ((left = until - System.nanoTime()) > 0) {
            connection.setSoTimeout((int) Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
            try {
                if (in.read(buffer) < 0) {
                    return;
                }
            } catch (SocketTimeoutException e) {
                return;
            }
        }
    }

    private static void close(Socket connection) {
        try {
            connection.close();
        } catch (IOException e) {
            // Closed either way.
        }
    }

    static String abbreviated(String text) {
        return text.length() <= 60 ? text : text.substring(0, 57) + "...";
    }

    private static Thread daemon(Runnable runnable, String name) {
        Thread thread = new Thread(runnable, name);
        thread.setDaemon(true);
        return thread;
    }

    @Override
    public void close() {
        heads.close();
        pool.shutdownNow();
        openConnections.forEach(connection -> close(connection.socket()));
        try {
            selector.join(TimeUnit.SECONDS.toMillis(5));
            pool.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * The connection's bytes, each read bounded by the idle limit and by what is left of the
     * request's deadline: a client sending a byte now and then cannot stretch a request past it.
     */
    private static final class DeadlineInput extends InputStream {
        private final Socket connection;
        private final InputStream in;
        private final long idleMillis;
        private final long deadlineNanos;

        DeadlineInput(Socket connection, Duration idle, long deadlineNanos) throws IOException {
            this.connection = connection;
            this.in = connection.getInputStream();
            this.idleMillis = idle.toMillis();
            this.deadlineNanos = deadlineNanos;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            int n = read(one, 0, 1);
            return n < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            long leftMillis = TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime());
            if (leftMillis <= 0) {
                throw new Late("the request did not arrive within its deadline");
            }
            try {
                connection.setSoTimeout((int) Math.min(idleMillis, leftMillis));
                return in.read(buffer, offset, length);
            } catch (SocketTimeoutException e) {
                throw new Late(deadlineNanos - System.nanoTime() <= 0
                        ? "the request did not arrive within its deadline"
                        : "the request paused longer than " + idleMillis + " ms");
            } catch (SocketException e) {
                throw new IOException("connection lost: " + e.getMessage(), e);
            }
        }
    }
}
