package io.gpuledger.cli;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Finance's webhook endpoint, played on 127.0.0.1: it notes the delivery id of every request
 * (header {@value #DELIVERY_HEADER}) and takes it with a 200, except one request it can be told to
 * hold without an answer, as a receiver does that is still working when the sender dies.
 */
final class WebhookInbox implements AutoCloseable {

    static final String DELIVERY_HEADER = "X-GpuLedger-Delivery";

    private final HttpServer server;
    private final ExecutorService handlers = Executors.newCachedThreadPool();
    private final List<String> requested = new CopyOnWriteArrayList<>();
    private final List<String> taken = new CopyOnWriteArrayList<>();
    private final AtomicInteger arrivals = new AtomicInteger();
    private final CountDownLatch release = new CountDownLatch(1);
    private volatile int holdArrival;
    private volatile String held;

    WebhookInbox() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/finance", this::handle);
        // A thread per request: the held one must not keep the next ones waiting.
        server.setExecutor(handlers);
        server.start();
    }

    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/finance";
    }

    /** The {@code arrival}-th request (from 1) gets no answer until {@link #release()}. */
    void hold(int arrival) {
        holdArrival = arrival;
    }

    /** The delivery id of the request held, or null while none is. */
    String held() {
        return held;
    }

    /** Lets the held request end; its sender is gone by then, so nobody reads the answer. */
    void release() {
        release.countDown();
    }

    /** Delivery ids of every request, in the order they came. */
    List<String> requested() {
        return List.copyOf(requested);
    }

    /** Delivery ids answered 200, in the order they were. */
    List<String> taken() {
        return List.copyOf(taken);
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            exchange.getRequestBody().readAllBytes();
            String id = exchange.getRequestHeaders().getFirst(DELIVERY_HEADER);
            requested.add(id);
            if (arrivals.incrementAndGet() == holdArrival) {
                held = id;
                release.await();
                return;
            }
            exchange.sendResponseHeaders(200, -1);
            taken.add(id);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        release();
        server.stop(0);
        handlers.shutdownNow();
    }
}
