package io.gpuledger.alerts.webhook;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.gpuledger.model.CostAnomaly;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A webhook receiver on 127.0.0.1: verifies the signature of every request, records it, and
 * answers 200 unless told otherwise.
 */
public final class RecordingReceiver implements AutoCloseable {

    /** A request as it arrived, with the status it was answered with. */
    public record Request(Map<String, String> headers, byte[] body, boolean signatureValid, int status,
            long arrivedNanos) {

        public String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }

        public String deliveryId() {
            return header(WebhookSignature.ID_HEADER);
        }
    }

    private record Answer(int status, String retryAfter) {
    }

    private static final Duration TOLERANCE = Duration.ofMinutes(5);

    private final String secret;
    private final HttpServer server;
    private final ExecutorService executor = Executors.newCachedThreadPool();
    private final Queue<Answer> script = new ConcurrentLinkedQueue<>();
    private final List<Request> requests = new CopyOnWriteArrayList<>();
    private final CountDownLatch released = new CountDownLatch(1);
    private volatile int answerByDefault = 200;
    private volatile boolean hanging;
    private volatile boolean endless;

    /** @param secret the secret requests must be signed with; empty for an unsigned (Slack) receiver */
    public RecordingReceiver(String secret) throws IOException {
        this.secret = secret;
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/hooks", this::handle);
        server.setExecutor(executor);
        server.start();
    }

    public URI url() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/hooks/anomalies");
    }

    WebhookReceiver receiver(String name, WebhookReceiver.Format format) {
        // Signed deliveries over plain HTTP: the network here is the loopback interface.
        return new WebhookReceiver(name, url(), format, secret, null, Set.of(), true);
    }

    /** The next requests are answered with these statuses, in order; later ones with the default. */
    void answer(int... statuses) {
        for (int status : statuses) {
            script.add(new Answer(status, null));
        }
    }

    void answerTooManyRequests(int retryAfterSeconds) {
        script.add(new Answer(429, Integer.toString(retryAfterSeconds)));
    }

    void answerByDefault(int status) {
        answerByDefault = status;
    }

    /** Requests from now on get no answer until the receiver is closed. */
    void hang() {
        hanging = true;
    }

    /** Requests from now on are answered 200 with a body that starts and never ends. */
    void neverEndTheAnswer() {
        endless = true;
    }

    public List<Request> requests() {
        return List.copyOf(requests);
    }

    List<Request> requestsFor(CostAnomaly anomaly) {
        return requests.stream().filter(request -> anomaly.id().equals(request.deliveryId())).toList();
    }

    /** The delivery ids of the requests answered with a 2xx, in arrival order, repeats included. */
    public List<String> deliveredIds() {
        return requests.stream().filter(request -> request.status() / 100 == 2).map(Request::deliveryId).toList();
    }

    public long badSignatures() {
        return requests.stream().filter(request -> !request.signatureValid()).count();
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange; InputStream in = exchange.getRequestBody()) {
            long arrived = System.nanoTime();
            byte[] body = in.readAllBytes();
            Map<String, String> headers = new HashMap<>();
            exchange.getRequestHeaders().forEach((name, values) ->
                    headers.put(name.toLowerCase(Locale.ROOT), values.get(0)));
            // Verified with the newest secret only: the receiver's side of a rotation is tested apart.
            boolean valid = secret.isEmpty() || WebhookSignature.verify(WebhookSignature.secrets(secret).get(0),
                    headers.get(WebhookSignature.ID_HEADER), headers.get(WebhookSignature.TIMESTAMP_HEADER), body,
                    headers.get(WebhookSignature.SIGNATURE_HEADER), Instant.now(), TOLERANCE);
            if (hanging) {
                requests.add(new Request(Map.copyOf(headers), body, valid, 0, arrived));
                released.await();
                return;
            }
            if (endless) {
                requests.add(new Request(Map.copyOf(headers), body, valid, 200, arrived));
                exchange.sendResponseHeaders(200, 1000);
                exchange.getResponseBody().write("{\"ok\":".getBytes(StandardCharsets.US_ASCII));
                exchange.getResponseBody().flush();
                released.await();
                return;
            }
            Answer answer = script.poll();
            int status = answer == null ? answerByDefault : answer.status();
            if (answer != null && answer.retryAfter() != null) {
                exchange.getResponseHeaders().add("Retry-After", answer.retryAfter());
            }
            requests.add(new Request(Map.copyOf(headers), body, valid, status, arrived));
            exchange.sendResponseHeaders(status, -1);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        released.countDown();
        server.stop(0);
        executor.shutdownNow();
    }
}
