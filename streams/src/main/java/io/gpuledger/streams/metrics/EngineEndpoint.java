package io.gpuledger.streams.metrics;

import io.gpuledger.http.BoundedHttpServer;
import io.gpuledger.http.BoundedHttpServer.Request;
import io.gpuledger.http.BoundedHttpServer.Response;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.kafka.streams.KafkaStreams;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cost engine's HTTP port: {@value #METRICS} (Prometheus text), {@value #LIVE} and {@value #READY},
 * the paths of the alert service's health without its {@code /q} prefix. It answers GET only, on a
 * {@link BoundedHttpServer}: a client that opens a connection and stalls holds none of its threads,
 * only its connection until the request's deadline, so it never keeps waiting the liveness probe
 * that restarts the engine when it fails.
 */
public final class EngineEndpoint implements AutoCloseable {

    public static final String METRICS = "/metrics";
    public static final String LIVE = "/health/live";
    public static final String READY = "/health/ready";

    /**
     * A scraper and two probes send a request line and a few headers within milliseconds; 2 s of
     * silence or 5 s in all is a client to let go. Stalled heads hold no thread; four serve.
     */
    static final BoundedHttpServer.Limits LIMITS = new BoundedHttpServer.Limits(4, 16, Duration.ofSeconds(2),
            Duration.ofSeconds(5), 8 * 1024, 0);

    private static final Logger LOG = LoggerFactory.getLogger(EngineEndpoint.class);
    private static final String TEXT = "text/plain; charset=utf-8";

    /** States from which Kafka Streams does not come back by itself: a restart is what helps. */
    private static final Set<KafkaStreams.State> DEAD = EnumSet.of(KafkaStreams.State.PENDING_ERROR,
            KafkaStreams.State.ERROR, KafkaStreams.State.PENDING_SHUTDOWN, KafkaStreams.State.NOT_RUNNING);

    private final BoundedHttpServer server;

    private EngineEndpoint(BoundedHttpServer server) {
        this.server = server;
    }

    /** Serves on {@code address} (port 0: any free one) until closed. */
    public static EngineEndpoint start(InetSocketAddress address, EngineMeters meters,
            Supplier<KafkaStreams.State> state) throws IOException {
        BoundedHttpServer server = new BoundedHttpServer("cost-engine-http", address.getHostString(),
                address.getPort(), LIMITS, request -> answer(request, meters, state.get()),
                refusal -> LOG.debug("cost engine endpoint: request refused ({})", refusal), LOG::warn);
        return new EngineEndpoint(server);
    }

    private static Response answer(Request request, EngineMeters meters, KafkaStreams.State now) {
        String path = request.path();
        if (!request.method().equals("GET")) {
            return send(405, TEXT, "GET only\n");
        }
        return switch (path) {
            case METRICS -> send(200, "text/plain; version=0.0.4; charset=utf-8", meters.scrape());
            case LIVE -> health(live(now), now);
            case READY -> health(ready(now), now);
            default -> send(404, TEXT, "no such path: " + path + "\n");
        };
    }

    /** Live while Kafka Streams is starting, rebalancing or running; not once it failed or stops. */
    public static boolean live(KafkaStreams.State state) {
        return !DEAD.contains(state);
    }

    /** Ready only while running: every task assigned and its state restored. */
    public static boolean ready(KafkaStreams.State state) {
        return state == KafkaStreams.State.RUNNING;
    }

    private static Response health(boolean up, KafkaStreams.State state) {
        return send(up ? 200 : 503, "application/json",
                "{\"status\":\"" + (up ? "UP" : "DOWN") + "\",\"state\":\"" + state + "\"}\n");
    }

    private static Response send(int status, String type, String body) {
        Map<String, String> headers = status == 405 ? Map.of("Allow", "GET") : Map.of();
        return new Response(status, type, body.getBytes(StandardCharsets.UTF_8), headers);
    }

    /** The port served, the one chosen when started with port 0. */
    public int port() {
        return server.port();
    }

    @Override
    public void close() {
        server.close();
    }
}
