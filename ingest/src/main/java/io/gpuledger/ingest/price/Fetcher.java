package io.gpuledger.ingest.price;

import io.gpuledger.ingest.http.CappedBody;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;

/**
 * Reads the text of a price document from a file or over HTTP, as a reader of the internet must:
 * the whole answer, body included, within one deadline (a server that trickles bytes is cut off),
 * a body of at most a cap, and redirects followed only to the same host, never from https down to
 * http. What it refuses is counted by {@link Refusal}; the caller's round fails for that source and
 * the prices already published stay in force.
 */
public final class Fetcher {

    /** Why a read was refused, beyond an ordinary error answer. */
    public enum Refusal {
        /** the answer, body included, did not arrive within the deadline */
        DEADLINE("deadline"),
        /** the body was larger than the cap */
        TOO_LARGE("body-too-large"),
        /** a redirect to another host, or from https to http */
        REDIRECT("redirect"),
        /** a link between pages (Azure's NextPageLink) to another host, or from https to http */
        LINK("link");

        private final String label;

        Refusal(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }
    }

    /** Hundreds of times an Azure page (about 100 items); a catalog beyond it is read from a file. */
    public static final long DEFAULT_MAX_BODY_BYTES = 32L * 1024 * 1024;
    static final int MAX_REDIRECTS = 5;
    private static final Set<Integer> REDIRECTS = Set.of(301, 302, 303, 307, 308);

    private final HttpClient http;
    private final Duration deadline;
    private final long maxBodyBytes;
    private final Map<Refusal, LongAdder> refused = new EnumMap<>(Refusal.class);

    /** @see #Fetcher(HttpClient, Duration, long) */
    public Fetcher(HttpClient http, Duration deadline) {
        this(http, deadline, DEFAULT_MAX_BODY_BYTES);
    }

    /**
     * @param http         a client that does not follow redirects itself: this class judges each one
     * @param deadline     for the whole of one read: connection, redirects, headers and body
     * @param maxBodyBytes the largest body read; a larger one is refused
     */
    public Fetcher(HttpClient http, Duration deadline, long maxBodyBytes) {
        if (http.followRedirects() != HttpClient.Redirect.NEVER) {
            throw new IllegalArgumentException("the HTTP client must not follow redirects: the fetcher judges them");
        }
        if (deadline.isNegative() || deadline.isZero() || maxBodyBytes <= 0) {
            throw new IllegalArgumentException("deadline and body cap must be positive");
        }
        this.http = http;
        this.deadline = deadline;
        this.maxBodyBytes = maxBodyBytes;
        for (Refusal refusal : Refusal.values()) {
            refused.put(refusal, new LongAdder());
        }
    }

    public static Fetcher standard() {
        // Price APIs answer slowly on large pages: a minute for a whole page is generous, not endless.
        return new Fetcher(HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10))
                .followRedirects(HttpClient.Redirect.NEVER).build(), Duration.ofSeconds(60));
    }

    /** @throws PriceSourceException naming the location when it cannot be read */
    public String read(Location location) {
        return location.isHttp() ? get(location.uri()) : file(location);
    }

    /** @throws PriceSourceException naming the URL and the status when the answer is not a 200 */
    public String get(URI uri) {
        long deadlineNanos = System.nanoTime() + deadline.toNanos();
        URI at = uri;
        for (int redirects = 0; ; redirects++) {
            HttpResponse<byte[]> response = send(uri, at, deadlineNanos);
            int status = response.statusCode();
            if (!REDIRECTS.contains(status)) {
                if (status != 200) {
                    throw new PriceSourceException(at + ": HTTP " + status);
                }
                return new String(response.body(), StandardCharsets.UTF_8);
            }
            String location = response.headers().firstValue("Location").orElseThrow(() ->
                    new PriceSourceException(uri + ": HTTP " + status + " without a Location"));
            if (redirects == MAX_REDIRECTS) {
                throw new PriceSourceException(uri + ": more than " + MAX_REDIRECTS + " redirects");
            }
            URI to;
            try {
                to = at.resolve(Location.uri(location));
            } catch (IllegalArgumentException e) {
                throw new PriceSourceException(at + ": redirect to '" + location + "' is not a URL", e);
            }
            requireSameHost(at, to, Refusal.REDIRECT);
            at = to;
        }
    }

    /**
     * Checks that a link found in a page fetched from {@code from} may be followed: to the same
     * host, and not from https down to http. A feed of prices has no business on another host,
     * and a page that says otherwise was not written by the provider.
     *
     * @throws PriceSourceException counted as {@code refusal} when it may not
     */
    public void requireSameHost(URI from, URI to, Refusal refusal) {
        String what = refusal == Refusal.LINK ? "link" : "redirect";
        String fromHost = from.getHost() == null ? "" : from.getHost().toLowerCase(Locale.ROOT);
        String toHost = to.getHost() == null ? null : to.getHost().toLowerCase(Locale.ROOT);
        if (!fromHost.equals(toHost)) {
            throw refuse(refusal, from + ": " + what + " to " + to + " refused: not the same host as " + fromHost);
        }
        String fromScheme = from.getScheme().toLowerCase(Locale.ROOT);
        String toScheme = to.getScheme() == null ? "" : to.getScheme().toLowerCase(Locale.ROOT);
        if (!List.of("http", "https").contains(toScheme) || fromScheme.equals("https") && !toScheme.equals("https")) {
            throw refuse(refusal, from + ": " + what + " to " + to + " refused: " + fromScheme + " may not become "
                    + toScheme);
        }
    }

    /** How many reads were refused, by reason, since this fetcher was made. */
    public Map<Refusal, Long> refused() {
        Map<Refusal, Long> counts = new EnumMap<>(Refusal.class);
        refused.forEach((refusal, count) -> counts.put(refusal, count.sum()));
        return counts;
    }

    private PriceSourceException refuse(Refusal refusal, String message) {
        refused.get(refusal).increment();
        return new PriceSourceException(message);
    }

    private HttpResponse<byte[]> send(URI first, URI at, long deadlineNanos) {
        long left = deadlineNanos - System.nanoTime();
        if (left <= 0) {
            throw late(first);
        }
        HttpRequest request = HttpRequest.newBuilder(at).timeout(Duration.ofNanos(left))
                .header("Accept", "application/json, text/csv, */*").GET().build();
        CompletableFuture<HttpResponse<byte[]>> answer = http.sendAsync(request, info -> capped(info, at));
        try {
            return answer.get(left, TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            answer.cancel(true);
            throw late(first);
        } catch (InterruptedException e) {
            answer.cancel(true);
            Thread.currentThread().interrupt();
            throw new PriceSourceException(at + ": interrupted", e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof PriceSourceException refusal) {
                throw refusal;
            }
            if (cause instanceof java.net.http.HttpTimeoutException) {
                throw late(first);
            }
            String why = cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
            throw new PriceSourceException(at + ": " + why, cause);
        }
    }

    private PriceSourceException late(URI uri) {
        return refuse(Refusal.DEADLINE, uri + ": not read within " + deadline.toMillis() + " ms, body included");
    }

    /** The body of a 200, up to the cap; other answers are judged by their status, so their bodies are dropped. */
    private HttpResponse.BodySubscriber<byte[]> capped(HttpResponse.ResponseInfo info, URI at) {
        if (info.statusCode() != 200) {
            return HttpResponse.BodySubscribers.replacing(new byte[0]);
        }
        long declared = info.headers().firstValueAsLong("Content-Length").orElse(-1);
        if (declared > maxBodyBytes) {
            return CappedBody.refused(tooLarge(at, declared + " bytes declared"));
        }
        return new CappedBody(maxBodyBytes, sent -> tooLarge(at, sent));
    }

    private PriceSourceException tooLarge(URI at, String size) {
        return refuse(Refusal.TOO_LARGE, at + ": body larger than the cap of " + maxBodyBytes + " bytes (" + size
                + ")");
    }

    private static String file(Location location) {
        try {
            return Files.readString(location.path(), StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            throw new PriceSourceException(location + ": no such file", e);
        } catch (IOException e) {
            String why = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
            throw new PriceSourceException(location + ": " + why, e);
        }
    }
}
