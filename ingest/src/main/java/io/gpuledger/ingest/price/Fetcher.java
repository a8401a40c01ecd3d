package io.gpuledger.ingest.price;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.time.Duration;

/** Reads the text of a price document from a file or over HTTP. */
public final class Fetcher {

    private final HttpClient http;
    private final Duration timeout;

    public Fetcher(HttpClient http, Duration timeout) {
        this.http = http;
        this.timeout = timeout;
    }

    public static Fetcher standard() {
        // Price APIs answer slowly on large pages; redirects are followed as a browser would.
        return new Fetcher(HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10))
                .followRedirects(HttpClient.Redirect.NORMAL).build(), Duration.ofSeconds(60));
    }

    /** @throws PriceSourceException naming the location when it cannot be read */
    public String read(Location location) {
        return location.isHttp() ? get(location.uri()) : file(location);
    }

    /** @throws PriceSourceException naming the URL and the status when the answer is not a 200 */
    public String get(URI uri) {
        HttpRequest request = HttpRequest.newBuilder(uri).timeout(timeout)
                .header("Accept", "application/json, text/csv, */*").GET().build();
        try {
            HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            if (response.statusCode() != 200) {
                throw new PriceSourceException(uri + ": HTTP " + response.statusCode());
            }
            return response.body();
        } catch (IOException e) {
            throw new PriceSourceException(uri + ": " + describe(e), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PriceSourceException(uri + ": interrupted", e);
        }
    }

    private static String file(Location location) {
        try {
            return Files.readString(location.path(), StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            throw new PriceSourceException(location + ": no such file", e);
        } catch (IOException e) {
            throw new PriceSourceException(location + ": " + describe(e), e);
        }
    }

    private static String describe(IOException e) {
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }
}
