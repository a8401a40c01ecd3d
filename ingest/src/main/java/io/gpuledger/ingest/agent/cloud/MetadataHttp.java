package io.gpuledger.ingest.agent.cloud;

import io.gpuledger.ingest.http.BoundedGet;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * Plain HTTP to a link-local metadata service: short timeouts (the service is on the host or
 * absent), 404 as "nothing there", any other non-200 as an error.
 */
final class MetadataHttp {

    private final HttpClient http;
    private final Duration timeout;

    MetadataHttp(Duration timeout) {
        this.timeout = timeout;
        this.http = HttpClient.newBuilder().connectTimeout(timeout).followRedirects(HttpClient.Redirect.NEVER).build();
    }

    Optional<String> get(String url, Map<String, String> headers) throws IOException {
        return send(HttpRequest.newBuilder(URI.create(url)).GET(), headers, url);
    }

    Optional<String> put(String url, Map<String, String> headers) throws IOException {
        return send(HttpRequest.newBuilder(URI.create(url)).PUT(HttpRequest.BodyPublishers.noBody()), headers, url);
    }

    private Optional<String> send(HttpRequest.Builder request, Map<String, String> headers, String url)
            throws IOException {
        request.timeout(timeout);
        headers.forEach(request::header);
        try {
            BoundedGet.Answer response = BoundedGet.send(http, request.build(), timeout, BoundedGet.AGENT_MAX_BYTES);
            if (response.statusCode() == 404) {
                return Optional.empty();
            }
            if (response.statusCode() != 200) {
                throw new IOException(url + " answered HTTP " + response.statusCode());
            }
            return Optional.of(response.body());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted asking " + url, e);
        }
    }
}
