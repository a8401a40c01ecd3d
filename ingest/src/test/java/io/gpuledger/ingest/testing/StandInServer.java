package io.gpuledger.ingest.testing;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A local stand-in for a remote HTTP service (a cloud metadata server, dcgm-exporter): serves
 * fixed answers by path on 127.0.0.1, refuses requests that lack a required header, and records
 * what it was asked.
 */
public final class StandInServer implements AutoCloseable {

    public record Answer(int status, String body) {
    }

    private final HttpServer server;
    private final Map<String, Answer> answers = new ConcurrentHashMap<>();
    private final Map<String, String> requiredHeaders = new ConcurrentHashMap<>();
    private final List<String> requests = new CopyOnWriteArrayList<>();

    private StandInServer(HttpServer server) {
        this.server = server;
    }

    public static StandInServer start() {
        try {
            HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0), 0);
            StandInServer standIn = new StandInServer(server);
            server.createContext("/", standIn::handle);
            server.start();
            return standIn;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Answers {@code method path} (path with its query string) with {@code status} and {@code body}. */
    public StandInServer answer(String methodAndPath, int status, String body) {
        answers.put(methodAndPath, new Answer(status, body));
        return this;
    }

    /** Requests without this header (and value) get 401, as the real services refuse them. */
    public StandInServer require(String header, String value) {
        requiredHeaders.put(header, value);
        return this;
    }

    public String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    public List<String> requests() {
        return List.copyOf(requests);
    }

    private void handle(HttpExchange exchange) throws IOException {
        String key = exchange.getRequestMethod() + " " + exchange.getRequestURI();
        requests.add(key);
        Answer answer = answers.getOrDefault(key, new Answer(404, "not found"));
        for (Map.Entry<String, String> required : requiredHeaders.entrySet()) {
            String value = exchange.getRequestHeaders().getFirst(required.getKey());
            boolean tokenRequest = key.startsWith("PUT ");
            if (!tokenRequest && !required.getValue().equals(value)) {
                answer = new Answer(401, "missing header " + required.getKey());
            }
        }
        byte[] body = answer.body().getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(answer.status(), body.length == 0 ? -1 : body.length);
        if (body.length > 0) {
            exchange.getResponseBody().write(body);
        }
        exchange.close();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
