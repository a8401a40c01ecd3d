package io.gpuledger.ingest.http;

import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A request whose whole exchange, body included, ends within a time limit, and whose body is refused past a size.
 * The JDK client's request timeout covers only the wait for the headers: a peer that stalls in the middle of a body
 * would hold the caller for good (the agent's round, whose thread reads the kubelet or an exporter), and a body of
 * any size would be read whole into a small heap.
 */
public final class BoundedGet {

    /** What the agent reads at most from a kubelet, an exporter or a metadata service: many times what they send. */
    public static final long AGENT_MAX_BYTES = 8L * 1024 * 1024;

    private BoundedGet() {
    }

    /** A status and its body as UTF-8 text (empty for a status other than 200 and 404). */
    public record Answer(int statusCode, String body) {
    }

    /**
     * The answer to {@code request}.
     *
     * @throws HttpTimeoutException when the answer, body included, took longer than {@code limit}
     * @throws IOException          when the body is larger than {@code maxBytes}, or the exchange failed
     */
    public static Answer send(HttpClient http, HttpRequest request, Duration limit, long maxBytes)
            throws IOException, InterruptedException {
        CompletableFuture<HttpResponse<byte[]>> answer = http.sendAsync(request, info -> info.statusCode() != 200
                && info.statusCode() != 404 ? HttpResponse.BodySubscribers.replacing(new byte[0])
                : new CappedBody(maxBytes, sent -> new IOException("answered a body larger than " + maxBytes
                        + " bytes (" + sent + ")")));
        HttpResponse<byte[]> response;
        try {
            response = answer.get(limit.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            answer.cancel(true);
            throw new HttpTimeoutException("no whole answer within " + limit.toMillis() + " ms, body included");
        } catch (InterruptedException e) {
            answer.cancel(true);
            throw e;
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof IOException io) {
                throw io;
            }
            throw new IOException(cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage(),
                    cause);
        }
        return new Answer(response.statusCode(), new String(response.body(), StandardCharsets.UTF_8));
    }
}
