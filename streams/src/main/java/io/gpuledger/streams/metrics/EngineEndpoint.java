package io.gpuledger.streams.metrics;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import org.apache.kafka.streams.KafkaStreams;

/**
 * The cost engine's HTTP port: {@value #METRICS} (Prometheus text), {@value #LIVE} and {@value #READY},
 * the paths of the alert service's health without its {@code /q} prefix. It answers GET only, on two
 * threads: a scraper and two probes are all it serves.
 */
public final class EngineEndpoint implements AutoCloseable {

    public static final String METRICS = "/metrics";
    public static final String LIVE = "/health/live";
    public static final String READY = "/health/ready";

    /** States from which Kafka Streams does not come back by itself: a restart is what helps. */
    private static final Set<KafkaStreams.State> DEAD = EnumSet.of(KafkaStreams.State.PENDING_ERROR,
            KafkaStreams.State.ERROR, KafkaStreams.State.PENDING_SHUTDOWN, KafkaStreams.State.NOT_RUNNING);

    private final HttpServer server;
    private final ExecutorService threads;

    private EngineEndpoint(HttpServer server, ExecutorService threads) {
        this.server = server;
        this.threads = threads;
    }

    /** Serves on {@code address} (port 0: any free one) until closed. */
    public static EngineEndpoint start(InetSocketAddress address, EngineMeters meters,
            Supplier<KafkaStreams.State> state) throws IOException {
        HttpServer server = HttpServer.create(address, 16);
        ExecutorService threads = Executors.newFixedThreadPool(2, task -> {
            Thread thread = new Thread(task, "cost-engine-http");
            thread.setDaemon(true);
            return thread;
        });
        server.setExecutor(threads);
        server.createContext("/", exchange -> {
            try (exchange) {
                answer(exchange, meters, state.get());
            }
        });
        server.start();
        return new EngineEndpoint(server, threads);
    }

    private static void answer(HttpExchange exchange, EngineMeters meters, KafkaStreams.State now)
            throws IOException {
        String path = exchange.getRequestURI().getPath();
        if (!exchange.getRequestMethod().equals("GET")) {
            send(exchange, 405, "text/plain; charset=utf-8", "GET only\n");
            return;
        }
        switch (path) {
            case METRICS -> send(exchange, 200, "text/plain; version=0.0.4; charset=utf-8", meters.scrape());
            case LIVE -> health(exchange, live(now), now);
            case READY -> health(exchange, ready(now), now);
            default -> send(exchange, 404, "text/plain; charset=utf-8", "no such path: " + path + "\n");
        }
    }

    /** Live while Kafka Streams is starting, rebalancing or running; not once it failed or stops. */
    public static boolean live(KafkaStreams.State state) {
        return !DEAD.contains(state);
    }

    /** Ready only while running: every task assigned and its state restored. */
    public static boolean ready(KafkaStreams.State state) {
        return state == KafkaStreams.State.RUNNING;
    }

    private static void health(HttpExchange exchange, boolean up, KafkaStreams.State state) throws IOException {
        send(exchange, up ? 200 : 503, "application/json",
                "{\"status\":\"" + (up ? "UP" : "DOWN") + "\",\"state\":\"" + state + "\"}\n");
    }

    private static void send(HttpExchange exchange, int status, String type, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", type);
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    /** The port served, the one chosen when started with port 0. */
    public int port() {
        return server.getAddress().getPort();
    }

    @Override
    public void close() {
        server.stop(0);
        threads.shutdownNow();
    }
}
