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
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Azure Instance Metadata Service ({@code Metadata: true} on every request): the instance document
 * and Scheduled Events. An event applies to this VM when its {@code Resources} name it; its
 * {@code EventId} identifies the notice, {@code NotBefore} (RFC 1123) is the deadline.
 */
public final class AzureMetadata implements CloudMetadata {

    public static final String DEFAULT_URL = "http://169.254.169.254";
    private static final Map<String, String> METADATA = Map.of("Metadata", "true");
    private static final DateTimeFormatter WITHOUT_DAY_NAME =
            DateTimeFormatter.ofPattern("d MMM yyyy HH:mm:ss z", Locale.ENGLISH);

    private final String base;
    private final MetadataHttp http;
    private volatile String vmName;

    public AzureMetadata(String baseUrl, Duration timeout) {
        this.base = AwsImds.stripSlash(baseUrl);
        this.http = new MetadataHttp(timeout);
    }

    @Override
    public String provider() {
        return "azure";
    }

    @Override
    public Optional<CloudIdentity> identity() {
        try {
            Optional<String> document = http.get(base + "/metadata/instance?api-version=2021-02-01", METADATA);
            if (document.isEmpty()) {
                return Optional.empty();
            }
            JsonNode compute = Json.MAPPER.readTree(document.get()).path("compute");
            if (compute.isMissingNode()) {
                return Optional.empty();
            }
            vmName = text(compute, "name");
            // The documented sample spells it "Priority"; live documents "priority".
            String priority = text(compute, "priority") != null ? text(compute, "priority") : text(compute, "Priority");
            Lifecycle lifecycle = priority != null
                    && (priority.equalsIgnoreCase("Spot") || priority.equalsIgnoreCase("Low"))
                    ? Lifecycle.SPOT : Lifecycle.ON_DEMAND;
            return Optional.of(new CloudIdentity("azure", text(compute, "vmId"), text(compute, "vmSize"),
                    text(compute, "location"), lifecycle, vmName));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    @Override
    public List<CapacityEvent> notices(Placement placement, Instant now) throws IOException {
        String body = http.get(base + "/metadata/scheduledevents?api-version=2020-07-01", METADATA)
                .orElseThrow(() -> new IOException("Azure Scheduled Events not found at " + base));
        JsonNode document;
        try {
            document = Json.MAPPER.readTree(body);
        } catch (IOException e) {
            throw new IOException("Azure Scheduled Events document is not JSON: " + body, e);
        }
        List<CapacityEvent> notices = new ArrayList<>();
        for (JsonNode event : document.path("Events")) {
            if (!appliesTo(event, placement)) {
                continue;
            }
            String type = text(event, "EventType");
            CapacityEventKind kind = kindOf(type);
            if (kind == null) {
                continue;
            }
            String eventId = text(event, "EventId");
            String noticeId = CapacityEvent.idOf("azure", placement.instanceId(), kind,
                    eventId == null ? type : eventId);
            notices.add(CapacityEvent.builder().eventId(noticeId).placement(placement).provider("azure").kind(kind)
                    .action(type).noticedAt(now).deadline(notBefore(text(event, "NotBefore")))
                    .source("azure-scheduled-events").raw(event.toString()).build());
        }
        return notices;
    }

    /** Events name the VMs they affect; a document may list events of other VMs of a scale set. */
    private boolean appliesTo(JsonNode event, Placement placement) {
        JsonNode resources = event.path("Resources");
        if (!resources.isArray() || resources.isEmpty()) {
            return true;
        }
        for (JsonNode resource : resources) {
            String name = resource.asText();
            if (name.equalsIgnoreCase(vmName) || name.equalsIgnoreCase(placement.host())
                    || name.equalsIgnoreCase(placement.instanceId())) {
                return true;
            }
        }
        return false;
    }

    static CapacityEventKind kindOf(String eventType) {
        if (eventType == null) {
            return null;
        }
        return switch (eventType.toLowerCase(Locale.ROOT)) {
            case "preempt" -> CapacityEventKind.PREEMPTION;
            case "terminate" -> CapacityEventKind.TERMINATION;
            case "freeze", "reboot", "redeploy" -> CapacityEventKind.MAINTENANCE;
            default -> null;
        };
    }

    /**
     * {@code NotBefore} is RFC 1123 ({@code Mon, 11 Apr 2026 22:26:58 GMT}). The day name is
     * ignored: Azure's own documented example names the wrong weekday, and the date decides.
     */
    static Instant notBefore(String text) {
        if (text == null || text.isBlank()) {
            return null;
        }
        String value = text.strip();
        int comma = value.indexOf(',');
        String withoutDay = comma >= 0 ? value.substring(comma + 1).strip() : value;
        try {
            return ZonedDateTime.parse(withoutDay, WITHOUT_DAY_NAME).toInstant();
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    private static String text(JsonNode node, String field) {
        JsonNode value = node.get(field);
        return value == null || value.isNull() || value.asText().isEmpty() ? null : value.asText();
    }
}
