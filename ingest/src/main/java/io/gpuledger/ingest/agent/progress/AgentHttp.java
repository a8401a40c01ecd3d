package io.gpuledger.ingest.agent.progress;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.gpuledger.model.InvalidRecordException;
import io.gpuledger.model.JobProgress;
import io.gpuledger.model.Json;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The agent's HTTP endpoint on the node: {@code POST /v1/progress} for jobs' work reports,
 * {@code POST /v1/instance/stopping} for the host's shutdown to say the instance stops,
 * {@code GET /health} (JSON) and {@code GET /metrics} (Prometheus text) for operators.
 * Bodies over {@link #MAX_BODY_BYTES} are refused with 413 without being read whole.
 */
public final class AgentHttp implements AutoCloseable {

    public static final int MAX_BODY_BYTES = 64 * 1024;
    /** Where the host's shutdown says that the instance stops. */
    public static final String STOPPING_PATH = "/v1/instance/stopping";

    private final HttpServer server;

    /**
     * @param onProgress receives each accepted report (to publish); a rejected one never reaches it
     * @param onRejected told of each rejected report
     * @param onStopping says that the instance stops (at most once) and answers with what was said
     * @param health     the body of {@code GET /health}
     * @param metrics    the body of {@code GET /metrics}
     */
    public AgentHttp(String host, int port, ProgressReports reports, Consumer<JobProgress> onProgress,
            Runnable onRejected, Supplier<Map<String, Object>> onStopping, Supplier<Map<String, Object>> health,
            Supplier<String> metrics) throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getByName(host), port), 16);
        server.setExecutor(Executors.newSingleThreadExecutor(runnable -> {
            Thread thread = new Thread(runnable, "agent-http");
            thread.setDaemon(true);
            return thread;
        }));
        server.createContext("/v1/progress", exchange -> {
            if (!exchange.getRequestMethod().equals("POST")) {
                reply(exchange, 405, Map.of("error", "use POST"));
                return;
            }
            byte[] body = readLimited(exchange.getRequestBody());
            if (body == null) {
                onRejected.run();
                reply(exchange, 413, Map.of("error", "body larger than " + MAX_BODY_BYTES + " bytes"));
                return;
            }
            try {
                JobProgress progress = reports.accept(body);
                onProgress.accept(progress);
                reply(exchange, 202, Map.of("accepted", true, "jobId", progress.jobId(),
                        "intervalSeconds", progress.intervalSeconds()));
            } catch (InvalidRecordException e) {
                onRejected.run();
                reply(exchange, 400, Map.of("error", e.getMessage(), "field", e.field()));
            }
        });
        server.createContext(STOPPING_PATH, exchange -> {
            if (!exchange.getRequestMethod().equals("POST")) {
                reply(exchange, 405, Map.of("error", "use POST"));
                return;
            }
            if (!maySayStopping(exchange.getRemoteAddress())) {
                reply(exchange, 403, Map.of("error", "only the node itself, over its loopback address, may say that"
                        + " its instance stops"));
                return;
            }
            exchange.getRequestBody().readNBytes(MAX_BODY_BYTES);
            reply(exchange, 202, onStopping.get());
        });
        server.createContext("/health", exchange -> reply(exchange, 200, health.get()));
        server.createContext("/metrics", exchange -> {
            byte[] text = metrics.get().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
            exchange.sendResponseHeaders(200, text.length);
            exchange.getResponseBody().write(text);
            exchange.close();
        });
        server.start();
    }

    /**
     * Whether a caller at {@code remote} may say that the instance stops: only the node itself,
     * over its loopback address. The endpoint may be open to the node's pods (a Kubernetes host
     * port), which may report work but not stop the accounting of the instance.
     */
    static boolean maySayStopping(InetSocketAddress remote) {
        return remote.getAddress() != null && remote.getAddress().isLoopbackAddress();
    }

    public int port() {
        return server.getAddress().getPort();
    }

    private static byte[] readLimited(InputStream in) throws IOException {
        byte[] body = in.readNBytes(MAX_BODY_BYTES + 1);
        return body.length > MAX_BODY_BYTES ? null : body;
    }

    private static void reply(HttpExchange exchange, int status, Object body) throws IOException {
        byte[] json = Json.write(body);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, json.length);
        exchange.getResponseBody().write(json);
        exchange.close();
    }

    @Override
    public void close() {
        server.stop(0);
        ((java.util.concurrent.ExecutorService) server.getExecutor()).shutdownNow();
    }
}
