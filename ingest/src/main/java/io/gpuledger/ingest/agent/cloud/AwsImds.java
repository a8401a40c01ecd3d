package io.gpuledger.ingest.agent.cloud;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpuledger.model.CapacityEvent;
import io.gpuledger.model.CapacityEventKind;
import io.gpuledger.model.Json;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Placement;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * AWS EC2 instance metadata, IMDSv2: a session token first ({@code PUT /latest/api/token}), then
 * every read with it. Notices: {@code spot/instance-action} (terminate, stop or hibernate at
 * {@code time}, two minutes ahead) and {@code events/recommendations/rebalance}; 404 means none.
 */
public final class AwsImds implements CloudMetadata {

    public static final String DEFAULT_URL = "http://169.254.169.254";
    private static final Duration TOKEN_TTL = Duration.ofHours(6);

    private final String base;
    private final MetadataHttp http;
    private String token;
    private Instant tokenExpires = Instant.MIN;

    public AwsImds(String baseUrl, Duration timeout) {
        this.base = stripSlash(baseUrl);
        this.http = new MetadataHttp(timeout);
    }

    @Override
    public String provider() {
        return "aws";
    }

    @Override
    public Optional<CloudIdentity> identity() {
        try {
            Optional<String> instanceId = read("instance-id");
            if (instanceId.isEmpty()) {
                return Optional.empty();
            }
            Lifecycle lifecycle = read("instance-life-cycle").map(String::strip)
                    .map(value -> value.equalsIgnoreCase("spot") ? Lifecycle.SPOT : Lifecycle.ON_DEMAND).orElse(null);
            return Optional.of(new CloudIdentity("aws", instanceId.get().strip(),
                    read("instance-type").map(String::strip).orElse(null),
                    read("placement/region").map(String::strip).orElse(null),
                    lifecycle,
                    read("local-hostname").map(String::strip).orElse(null)));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    @Override
    public List<CapacityEvent> notices(Placement placement, Instant now) throws IOException {
        List<CapacityEvent> notices = new ArrayList<>();
        Optional<String> action = read("spot/instance-action");
        if (action.isPresent()) {
            JsonNode json = parse(action.get(), "spot/instance-action");
            String time = json.path("time").asText(null);
            notices.add(event(placement, CapacityEventKind.SPOT_INTERRUPTION, json.path("action").asText("terminate"),
                    now, instant(time), time, action.get()));
        }
        Optional<String> rebalance = read("events/recommendations/rebalance");
        if (rebalance.isPresent()) {
            JsonNode json = parse(rebalance.get(), "events/recommendations/rebalance");
            String noticeTime = json.path("noticeTime").asText(null);
            notices.add(event(placement, CapacityEventKind.REBALANCE_RECOMMENDATION, "rebalance", now, null,
                    noticeTime, rebalance.get()));
        }
        return notices;
    }

    private static CapacityEvent event(Placement placement, CapacityEventKind kind, String action, Instant now,
            Instant deadline, String noticeIdentity, String raw) {
        String identity = noticeIdentity == null ? "now" : noticeIdentity;
        return CapacityEvent.builder().eventId(CapacityEvent.idOf("aws", placement.instanceId(), kind, identity))
                .placement(placement).provider("aws").kind(kind).action(action).noticedAt(now).deadline(deadline)
                .source("aws-imds").raw(raw).build();
    }

    private Optional<String> read(String path) throws IOException {
        return http.get(base + "/latest/meta-data/" + path, Map.of("X-aws-ec2-metadata-token", token()));
    }

    private synchronized String token() throws IOException {
        Instant now = Instant.now();
        if (token == null || now.isAfter(tokenExpires)) {
            token = http.put(base + "/latest/api/token",
                            Map.of("X-aws-ec2-metadata-token-ttl-seconds", String.valueOf(TOKEN_TTL.toSeconds())))
                    .orElseThrow(() -> new IOException("IMDSv2 token endpoint not found at " + base))
                    .strip();
            tokenExpires = now.plus(TOKEN_TTL).minus(Duration.ofMinutes(5));
        }
        return token;
    }

    private static JsonNode parse(String body, String path) throws IOException {
        try {
            return Json.MAPPER.readTree(body);
        } catch (IOException e) {
            throw new IOException("IMDS " + path + " is not JSON: " + body, e);
        }
    }

    private static Instant instant(String text) {
        try {
            return text == null ? null : Instant.parse(text);
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    static String stripSlash(String url) {
        return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    }
}
