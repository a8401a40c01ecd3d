package io.gpuledger.ingest.agent.collect;

import io.gpuledger.ingest.http.BoundedGet;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.time.Duration;

/** Scrapes dcgm-exporter's Prometheus endpoint (default {@code http://localhost:9400/metrics}). */
public final class DcgmCollector implements Collector {

    public static final String DEFAULT_URL = "http://localhost:9400/metrics";
    /** The collector's name, in its errors' counter: the only one whose readings carry labels. */
    public static final String NAME = "dcgm-exporter";

    private final URI url;
    private final DcgmScrape scrape;
    private final HttpClient http;
    private final Duration timeout;

    public DcgmCollector(URI url, DcgmScrape scrape, Duration timeout) {
        this.url = url;
        this.scrape = scrape;
        this.timeout = timeout;
        this.http = HttpClient.newBuilder().connectTimeout(timeout).build();
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Round collect() {
        try {
            BoundedGet.Answer response = BoundedGet.send(http, HttpRequest.newBuilder(url).timeout(timeout).GET()
                    .build(), timeout, BoundedGet.AGENT_MAX_BYTES);
            if (response.statusCode() != 200) {
                return Round.failed("dcgm-exporter: " + url + " answered HTTP " + response.statusCode());
            }
            DcgmScrape.Result result = scrape.read(response.body(), System.nanoTime());
            return new Round(result.readings(), result.errors());
        } catch (IOException e) {
            return Round.failed("dcgm-exporter: " + url + " unreachable: " + (e.getMessage() == null
                    ? e.getClass().getSimpleName() : e.getMessage()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Round.failed("dcgm-exporter: interrupted");
        }
    }
}
