package io.gpuledger.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpuledger.ingest.prom.PrometheusText;
import io.gpuledger.model.InvalidRecordException;
import io.gpuledger.model.Json;
import io.gpuledger.model.Recommendation;
import io.gpuledger.model.RecommendationKind;
import io.gpuledger.model.RecommendationStatus;
import io.gpuledger.processes.AlertServiceProcess;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * One line of what the alert service shows, read the way a user would: from its REST API and the
 * one metric family it needs. Not the whole of {@code /q/metrics}: at a large fleet that text runs
 * to megabytes, too costly to write and parse every ten seconds.
 */
public final class LiveSummary {

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final String baseUrl;
    private final int expectedGpus;

    LiveSummary(String baseUrl, int expectedGpus) {
        this.baseUrl = baseUrl;
        this.expectedGpus = expectedGpus;
    }

    void print(PrintStream out) {
        try {
            out.println(WallClock.now(Clock.systemDefaultZone()) + "  " + line(get("/api/fleet"),
                    get(AlertServiceProcess.family(baseUrl, "gpuledger_recommendations_total")),
                    get("/api/recommendations")));
        } catch (IOException | InvalidRecordException e) {
            out.println(WallClock.now(Clock.systemDefaultZone()) + "  alert service not answering: " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * @param fleetJson           {@code /api/fleet}: the GPUs heard of and their spend, in total per currency
     * @param recommendationCounts the family {@code gpuledger_recommendations_total}, as Prometheus text
     * @param recommendationsJson {@code /api/recommendations}
     */
    String line(String fleetJson, String recommendationCounts, String recommendationsJson) {
        long gpus = 0;
        Map<String, Double> spend = new TreeMap<>();
        for (JsonNode row : Json.read(fleetJson.getBytes(StandardCharsets.UTF_8), JsonNode.class).path("total")) {
            gpus += row.path("gpus").asLong();
            spend.merge(row.path("currency").asText("?"), row.path("costPerHour").asDouble(), Double::sum);
        }
        String spendText = spend.isEmpty() ? "none yet" : spend.entrySet().stream()
                .map(e -> String.format("%.2f %s/h", e.getValue(), e.getKey()))
                .collect(Collectors.joining(" + "));
        Recommendation[] recommendations = Json.read(recommendationsJson.getBytes(StandardCharsets.UTF_8),
                Recommendation[].class);
        // Those to act on, by kind, in the order of the kinds; withdrawn and dismissed ones are not news.
        Map<RecommendationKind, Long> byKind = new TreeMap<>(Arrays.stream(recommendations)
                .filter(r -> r.status().actionable())
                .collect(Collectors.groupingBy(Recommendation::kind, Collectors.counting())));
        long actionable = byKind.values().stream().mapToLong(Long::longValue).sum();
        String kinds = byKind.entrySet().stream()
                .map(e -> name(e.getKey()) + ": " + e.getValue())
                .collect(Collectors.joining(", "));
        return String.format("GPUs seen %d/%d | spend %s | recommendations %d%s | %s",
                gpus, expectedGpus, spendText, actionable, kinds.isEmpty() ? "" : " (" + kinds + ")",
                kindsSeen(PrometheusText.parse(recommendationCounts).family("gpuledger_recommendations_total")));
    }

    /**
     * The kinds raised since the service started, expired ones too (an evacuation lasts minutes):
     * those whose counter of records published open is above zero, in the order of the kinds.
     */
    private static String kindsSeen(List<PrometheusText.Sample> published) {
        Set<RecommendationKind> seen = EnumSet.noneOf(RecommendationKind.class);
        for (PrometheusText.Sample sample : published) {
            if (RecommendationStatus.OPEN.wire().equals(sample.labels().get("status")) && sample.value() > 0) {
                seen.add(RecommendationKind.valueOf(sample.labels().get("kind")));
            }
        }
        String names = seen.stream().map(LiveSummary::name).collect(Collectors.joining(", "));
        return "kinds seen " + seen.size() + "/" + RecommendationKind.values().length + (names.isEmpty() ? ""
                : ": " + names);
    }

    private static String name(RecommendationKind kind) {
        return kind.name().toLowerCase(Locale.ROOT).replace('_', ' ');
    }

    private String get(String path) throws IOException, InterruptedException {
        return get(URI.create(baseUrl + path));
    }

    private String get(URI uri) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5)).build();
        return http.send(request, HttpResponse.BodyHandlers.ofString()).body();
    }
}
