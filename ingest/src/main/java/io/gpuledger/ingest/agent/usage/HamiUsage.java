package io.gpuledger.ingest.agent.usage;

import io.gpuledger.ingest.http.BoundedGet;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.time.Duration;

/** Scrapes HAMi's vGPU monitor for its per-container metrics ({@link HamiScrape}). */
public final class HamiUsage implements UsageSource {

    private final URI url;
    private final Duration timeout;
    private final HttpClient http;
    private final HamiScrape scrape;

    /** @param pods the pods the kubelet lists, whose labels name a container's job and team */
    public HamiUsage(URI url, Duration timeout, PodJobs podJobs, PodOwners pods) {
        this.url = url;
        this.timeout = timeout;
        this.scrape = new HamiScrape(podJobs, pods);
        this.http = HttpClient.newBuilder().connectTimeout(timeout).build();
    }

    @Override
    public String name() {
        return "hami";
    }

    @Override
    public Result read() {
        try {
            BoundedGet.Answer response = BoundedGet.send(http, HttpRequest.newBuilder(url).timeout(timeout).GET()
                    .build(), timeout, BoundedGet.AGENT_MAX_BYTES);
            if (response.statusCode() != 200) {
                return Result.failed("hami: " + url + " answered HTTP " + response.statusCode());
            }
            return scrape.read(response.body());
        } catch (IOException e) {
            return Result.failed("hami: " + url + " unreachable: " + (e.getMessage() == null
                    ? e.getClass().getSimpleName() : e.getMessage()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Result.failed("hami: interrupted");
        }
    }
}
