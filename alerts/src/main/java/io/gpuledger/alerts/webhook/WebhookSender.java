package io.gpuledger.alerts.webhook;

import java.io.ByteArrayOutputStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Posts bodies to receivers and says what came of each. A try is bounded as a whole, the answer's
 * body included, so that a receiver that answers slowly, or never ends its answer, costs at most
 * the request timeout. Tries run concurrently; {@link #close} abandons those in flight so that a
 * receiver that does not answer cannot hold up a stop.
 */
final class WebhookSender {

    enum Result {
        /** A 2xx answer. */
        DELIVERED,
        /** No answer, a timeout, 408, 429 or 5xx: try again later. */
        RETRY,
        /** Any other answer: the receiver will not take this body, however often it is sent. */
        REFUSED,
        /** Given up because the sender was closed; neither delivered nor failed. */
        ABANDONED
    }

    /**
     * @param status     the HTTP status; 0 without an answer
     * @param retryAfter how long the receiver asked to be left alone; null when it did not say
     * @param problem    why it failed, for the log; null when delivered
     */
    record Attempt(Result result, int status, Duration retryAfter, String problem) {
    }

    private static final String USER_AGENT = "gpu-ledger-webhooks/1";
    private static final Attempt STOPPING = new Attempt(Result.ABANDONED, 0, null, "stopping");

    private final HttpClient client;
    private final Duration requestTimeout;
    private final Clock clock;
    private final Set<CompletableFuture<?>> inFlight = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    WebhookSender(DeliveryPolicy policy, Clock clock) {
        this.client = HttpClient.newBuilder()
                .connectTimeout(policy.connectTimeout())
                // A redirect answers as a refusal: a webhook URL that moved must be configured anew.
                .followRedirects(HttpClient.Redirect.NEVER)
                .build();
        this.requestTimeout = policy.requestTimeout();
        this.clock = clock;
    }

    /** Starts one try; the future completes within the request timeout, or when the sender is closed. */
    CompletableFuture<Attempt> post(WebhookReceiver receiver, String deliveryId, byte[] body) {
        if (closed) {
            return CompletableFuture.completedFuture(STOPPING);
        }
        CompletableFuture<HttpResponse<Void>> response =
                client.sendAsync(request(receiver, deliveryId, body), HttpResponse.BodyHandlers.discarding());
        inFlight.add(response);
        AtomicBoolean expired = new AtomicBoolean();
        // The client's own timeout ends when the headers arrive; this one also covers the body.
        CompletableFuture.delayedExecutor(requestTimeout.toNanos(), TimeUnit.NANOSECONDS).execute(() -> {
            if (!response.isDone()) {
                expired.set(true);
                response.cancel(true);
            }
        });
        if (closed) {
            response.cancel(true);
        }
        return response.handle((answer, failure) -> {
            inFlight.remove(response);
            if (failure == null) {
                return classify(answer.statusCode(), answer.headers().firstValue("Retry-After"));
            }
            if (expired.get()) {
                return new Attempt(Result.RETRY, 0, null, "no whole answer within " + requestTimeout);
            }
            if (closed || failure instanceof CancellationException) {
                // The client may fail a cancelled exchange rather than cancel the future it returned.
                return STOPPING;
            }
            Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                    ? failure.getCause() : failure;
            String message = cause.getMessage() == null ? "" : ": " + cause.getMessage();
            return new Attempt(Result.RETRY, 0, null, cause.getClass().getSimpleName() + message);
        });
    }

    /** Abandons the tries in flight and refuses later ones. */
    void close() {
        closed = true;
        for (CompletableFuture<?> pending : List.copyOf(inFlight)) {
            pending.cancel(true);
        }
    }

    /**
     * A fresh timestamp and signature on every try: a retry long after the first is still fresh.
     * The headers of the previous release go along for one more, marked deprecated in the docs.
     */
    @SuppressWarnings("deprecation")
    private HttpRequest request(WebhookReceiver receiver, String deliveryId, byte[] body) {
        String id = headerSafe(deliveryId);
        HttpRequest.Builder request = HttpRequest.newBuilder(receiver.url())
                .timeout(requestTimeout)
                .header("Content-Type", "application/json")
                .header("User-Agent", USER_AGENT)
                .header(WebhookSignature.ID_HEADER, id)
                .header(WebhookSignature.LEGACY_EVENT_HEADER, WebhookPayloads.EVENT)
                .header(WebhookSignature.LEGACY_DELIVERY_HEADER, id)
                .POST(HttpRequest.BodyPublishers.ofByteArray(body));
        if (receiver.signs()) {
            long timestamp = clock.instant().getEpochSecond();
            String sentAt = Long.toString(timestamp);
            request.header(WebhookSignature.TIMESTAMP_HEADER, sentAt)
                    .header(WebhookSignature.SIGNATURE_HEADER,
                            WebhookSignature.sign(receiver.secrets(), id, timestamp, body))
                    .header(WebhookSignature.LEGACY_TIMESTAMP_HEADER, sentAt)
                    .header(WebhookSignature.LEGACY_SIGNATURE_HEADER,
                            WebhookSignature.legacySign(receiver.secrets().get(0), timestamp, body));
        }
        return request.build();
    }

    static Attempt classify(int status, Optional<String> retryAfter) {
        if (status >= 200 && status < 300) {
            return new Attempt(Result.DELIVERED, status, null, null);
        }
        if (status == 408 || status == 429 || status >= 500) {
            return new Attempt(Result.RETRY, status, retryAfter.flatMap(WebhookSender::seconds).orElse(null),
                    "HTTP " + status);
        }
        return new Attempt(Result.REFUSED, status, null, "HTTP " + status);
    }

    /** {@code Retry-After} in its delay-seconds form; the HTTP-date form is left to the backoff. */
    private static Optional<Duration> seconds(String value) {
        try {
            long seconds = Long.parseLong(value.strip());
            return seconds < 0 ? Optional.empty() : Optional.of(Duration.ofSeconds(seconds));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    /**
     * The id as a header value: printable ASCII as is, any other byte of its UTF-8 form (a team
     * name in another script) percent-encoded. The body carries the id unchanged.
     */
    static String headerSafe(String id) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte b : id.getBytes(StandardCharsets.UTF_8)) {
            if (b > 0x20 && b < 0x7f && b != '%') {
                out.write(b);
            } else {
                out.writeBytes(String.format("%%%02X", b & 0xff).getBytes(StandardCharsets.US_ASCII));
            }
        }
        return out.toString(StandardCharsets.US_ASCII);
    }
}
