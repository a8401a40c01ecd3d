package io.gpuledger.ingest.price;

import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A stand-in for a provider's price API on 127.0.0.1: answers each path-and-query it was given
 * a body (or a handler) for, 404 otherwise, and remembers what was asked.
 */
public final class PriceApiStandIn implements AutoCloseable {

    private record Answer(int status, String body) {
    }

    private final HttpServer server;
    private final Map<String, Answer> answers = new ConcurrentHashMap<>();
    private final Map<String, HttpHandler> handlers = new ConcurrentHashMap<>();
    private final List<String> requests = new CopyOnWriteArrayList<>();
    /** A thread per exchange, so that a slow answer does not hold up the next request. */
    private final ExecutorService threads = Executors.newCachedThreadPool();

    public PriceApiStandIn() {
        try {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0), 0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server.createContext("/", exchange -> {
            URI uri = exchange.getRequestURI();
            String asked = uri.getRawQuery() == null ? uri.getRawPath() : uri.getRawPath() + "?" + uri.getRawQuery();
            requests.add(asked);
            HttpHandler handler = handlers.get(asked);
            if (handler != null) {
                handler.handle(exchange);
                return;
            }
            Answer answer = answers.getOrDefault(asked, new Answer(404, "{\"error\": \"no such page\"}"));
            byte[] body = answer.body().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(answer.status(), body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        server.setExecutor(threads);
        server.start();
    }

    /** @param pathAndQuery as it appears on the wire, e.g. {@code /api/retail/prices?$skip=100} */
    public PriceApiStandIn answer(String pathAndQuery, String body) {
        handlers.remove(pathAndQuery);
        answers.put(pathAndQuery, new Answer(200, body));
        return this;
    }

    /** Answers {@code pathAndQuery} with a handler of its own: a hostile server, a redirect. */
    public PriceApiStandIn handle(String pathAndQuery, HttpHandler handler) {
        answers.remove(pathAndQuery);
        handlers.put(pathAndQuery, handler);
        return this;
    }

    public PriceApiStandIn fail(String pathAndQuery, int status) {
        answers.put(pathAndQuery, new Answer(status, "{\"error\": \"stand-in failure\"}"));
        return this;
    }

    public String base() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    public List<String> requests() {
        return List.copyOf(requests);
    }

    @Override
    public void close() {
        server.stop(0);
        threads.shutdownNow();
    }
}
