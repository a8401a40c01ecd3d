package io.gpuledger.http;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.gpuledger.http.BoundedHttpServer.BodyTooLarge;
import io.gpuledger.http.BoundedHttpServer.Response;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.QoSHandler;
import org.eclipse.jetty.server.handler.SizeLimitHandler;
import org.eclipse.jetty.util.BlockingArrayQueue;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.util.thread.Scheduler;

/**
 * The agent's service in miniature on each server {@link ServerComparison} measures, each held as
 * close as it can be to the agent's limits: {@code POST /v1/progress} reads its body and answers
 * 204, {@code GET /metrics} a line of text, {@code GET /block} holds its thread until the
 * comparison writes {@code release} to this process's standard input.
 *
 * <p>Run as a program of its own ({@code ComparedServers <kind>}), it listens on 127.0.0.1, a
 * free port, and prints {@code port <n>} once it serves.
 */
public final class ComparedServers {

    /** The agent's limits (AgentHttp): four threads, 16 queued, 5 s idle, 10 s a request, 8 KiB of headers. */
    static final BoundedHttpServer.Limits AGENT = new BoundedHttpServer.Limits(4, 16, Duration.ofSeconds(5),
            Duration.ofSeconds(10), 8 * 1024, 64 * 1024);
    static final byte[] METRICS = "gpu_ledger_agent_up 1\n".getBytes(StandardCharsets.UTF_8);

    /** The servers compared, by the name the table gives them. */
    enum Kind {
        OURS("ours"), JDK("JDK HttpServer"), JETTY("Jetty 12"), JETTY_DEADLINE("Jetty 12 + deadline");

        final String title;

        Kind(String title) {
            this.title = title;
        }
    }

    /**
     * The JVM-wide settings of the JDK's server, set before its first use: the deadline of a whole
     * request, of an answer and of an idle connection in seconds, and the size of the headers.
     */
    static final Map<String, String> JDK_PROPERTIES = Map.of("sun.net.httpserver.maxReqTime", "10",
            "sun.net.httpserver.maxRspTime", "10", "sun.net.httpserver.idleInterval", "5",
            "sun.net.httpserver.maxReqHeaderSize", String.valueOf(AGENT.maxHeaderBytes()));

    private static final CountDownLatch RELEASE = new CountDownLatch(1);

    private ComparedServers() {
    }

    public static void main(String[] args) throws Exception {
        Kind kind = Kind.valueOf(args[0]);
        int port = switch (kind) {
            case OURS -> ours();
            case JDK -> jdk();
            case JETTY -> jetty(false);
            case JETTY_DEADLINE -> jetty(true);
        };
        System.out.println("port " + port);
        System.out.flush();
        BufferedReader commands = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
        for (String line = commands.readLine(); line != null; line = commands.readLine()) {
            if (line.equals("release")) {
                RELEASE.countDown();
            }
        }
        // The comparison closed our input: it is done with this server.
        System.exit(0);
    }

    /** Until the comparison says so, at most half a minute: the handler of a busy endpoint. */
    private static void block() {
        try {
            RELEASE.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static int ours() throws IOException {
        BoundedHttpServer server = new BoundedHttpServer("agent-http", "127.0.0.1", 0, AGENT, request -> {
            switch (request.path()) {
                case "/v1/progress":
                    try {
                        request.body();
                        return Response.of(204, "text/plain", new byte[0]);
                    } catch (BodyTooLarge e) {
                        return Response.of(413, "text/plain", new byte[0]);
                    }
                case "/metrics":
                    return Response.of(200, "text/plain", METRICS);
                case "/block":
                    block();
                    return Response.of(200, "text/plain", new byte[0]);
                default:
                    return Response.of(404, "text/plain", new byte[0]);
            }
        }, refusal -> { }, System.err::println);
        return server.port();
    }

    /**
     * The JDK's server: its limits are the JVM-wide properties above; its pool is ours (four
     * threads, 16 queued, refused beyond); the route itself checks the size of a body.
     */
    private static int jdk() throws IOException {
        JDK_PROPERTIES.forEach(System::setProperty);
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 64);
        server.setExecutor(new ThreadPoolExecutor(AGENT.threads(), AGENT.threads(), 60, TimeUnit.SECONDS,
                new ArrayBlockingQueue<>(AGENT.queueCapacity())));
        server.createContext("/", exchange -> {
            try (exchange) {
                switch (exchange.getRequestURI().getPath()) {
                    case "/v1/progress" -> jdkProgress(exchange);
                    case "/metrics" -> {
                        exchange.sendResponseHeaders(200, METRICS.length);
                        exchange.getResponseBody().write(METRICS);
                    }
                    case "/block" -> {
                        block();
                        exchange.sendResponseHeaders(200, -1);
                    }
                    default -> exchange.sendResponseHeaders(404, -1);
                }
            }
        });
        server.start();
        return server.getAddress().getPort();
    }

    private static void jdkProgress(HttpExchange exchange) throws IOException {
        String length = exchange.getRequestHeaders().getFirst("Content-Length");
        if (length != null && Long.parseLong(length.strip()) > AGENT.maxBodyBytes()) {
            exchange.sendResponseHeaders(413, -1);
            return;
        }
        InputStream body = exchange.getRequestBody();
        if (body.readNBytes(AGENT.maxBodyBytes() + 1).length > AGENT.maxBodyBytes()) {
            exchange.sendResponseHeaders(413, -1);
            return;
        }
        exchange.sendResponseHeaders(204, -1);
    }

    /**
     * Jetty 12 with its own parts for each limit: the header size in its configuration, the body's
     * in {@link SizeLimitHandler}, four requests at a time and 16 waiting in {@link QoSHandler}
     * (503 beyond), an idle timeout of 5 s. A pool of six threads: one selects, four serve, one
     * answers the refused. Jetty has no deadline for a whole request; {@code deadline} adds one of
     * our own, closing each connection 10 s after it opened.
     */
    private static int jetty(boolean deadline) throws Exception {
        QueuedThreadPool threads = new QueuedThreadPool(AGENT.threads() + 2, 2, 60_000,
                new BlockingArrayQueue<>(AGENT.queueCapacity(), 0, AGENT.queueCapacity()));
        threads.setName("agent-http");
        threads.setReservedThreads(0);
        Server server = new Server(threads);
        HttpConfiguration config = new HttpConfiguration();
        config.setRequestHeaderSize(AGENT.maxHeaderBytes());
        config.setSendServerVersion(false);
        ServerConnector connector = new ServerConnector(server, 0, 1, new HttpConnectionFactory(config));
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        connector.setIdleTimeout(AGENT.idleRead().toMillis());
        if (deadline) {
            connector.addBean(new ConnectionDeadline(connector.getScheduler(), AGENT.requestDeadline()));
        }
        server.addConnector(connector);
        SizeLimitHandler sizeLimit = new SizeLimitHandler(AGENT.maxBodyBytes(), -1);
        sizeLimit.setHandler(new JettyService());
        QoSHandler qos = new QoSHandler(sizeLimit);
        qos.setMaxRequestCount(AGENT.threads());
        qos.setMaxSuspendedRequestCount(AGENT.queueCapacity());
        qos.setMaxSuspend(AGENT.requestDeadline());
        server.setHandler(qos);
        server.start();
        return connector.getLocalPort();
    }

    /** The service as a plain Jetty handler, blocking as the agent's routes are. */
    private static final class JettyService extends Handler.Abstract {
        @Override
        public boolean handle(Request request, org.eclipse.jetty.server.Response response, Callback callback)
                throws Exception {
            switch (Request.getPathInContext(request)) {
                case "/v1/progress" -> {
                    // Past the cap SizeLimitHandler fails the read, and Jetty answers 413.
                    try (InputStream body = Content.Source.asInputStream(request)) {
                        body.readAllBytes();
                    }
                    response.setStatus(204);
                    callback.succeeded();
                }
                case "/metrics" -> {
                    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/plain");
                    response.write(true, ByteBuffer.wrap(METRICS), callback);
                }
                case "/block" -> {
                    block();
                    callback.succeeded();
                }
                default -> {
                    response.setStatus(404);
                    callback.succeeded();
                }
            }
            return true;
        }
    }

    /** Closes each connection a deadline after it opened, whatever it is doing: what Jetty lacks. */
    private static final class ConnectionDeadline implements Connection.Listener {
        private final Scheduler scheduler;
        private final Duration deadline;
        private final Map<Connection, Scheduler.Task> cuts = new ConcurrentHashMap<>();

        ConnectionDeadline(Scheduler scheduler, Duration deadline) {
            this.scheduler = scheduler;
            this.deadline = deadline;
        }

        @Override
        public void onOpened(Connection connection) {
            cuts.put(connection, scheduler.schedule(() -> connection.getEndPoint().close(), deadline.toMillis(),
                    TimeUnit.MILLISECONDS));
        }

        @Override
        public void onClosed(Connection connection) {
            Scheduler.Task cut = cuts.remove(connection);
            if (cut != null) {
                cut.cancel();
            }
        }
    }
}
