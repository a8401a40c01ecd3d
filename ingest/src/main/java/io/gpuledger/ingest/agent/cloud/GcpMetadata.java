package io.gpuledger.ingest.agent.cloud;

import io.gpuledger.model.CapacityEvent;
import io.gpuledger.model.CapacityEventKind;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Placement;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * GCP's metadata server ({@code Metadata-Flavor: Google} on every request). Notices:
 * {@code instance/preempted} turns {@code TRUE} when a Spot or preemptible VM is being taken back
 * (about 30 s before it stops); {@code instance/maintenance-event} leaves {@code NONE} ahead of a
 * live migration or a terminating maintenance.
 */
public final class GcpMetadata implements CloudMetadata {

    public static final String DEFAULT_URL = "http://metadata.google.internal";
    static final Duration PREEMPTION_NOTICE = Duration.ofSeconds(30);
    private static final Map<String, String> FLAVOR = Map.of("Metadata-Flavor", "Google");

    private final String base;
    private final MetadataHttp http;
    private Instant maintenanceSince;
    private String maintenanceSeen = "NONE";

    public GcpMetadata(String baseUrl, Duration timeout) {
        this.base = AwsImds.stripSlash(baseUrl);
        this.http = new MetadataHttp(timeout);
    }

    @Override
    public String provider() {
        return "gcp";
    }

    @Override
    public Optional<CloudIdentity> identity() {
        try {
            Optional<String> id = read("id");
            if (id.isEmpty()) {
                return Optional.empty();
            }
            String zone = read("zone").map(GcpMetadata::lastSegment).orElse(null);
            String model = read("scheduling/provisioning-model").map(String::strip).orElse("");
            String preemptible = read("scheduling/preemptible").map(String::strip).orElse("");
            Lifecycle lifecycle = model.equalsIgnoreCase("SPOT") || preemptible.equalsIgnoreCase("TRUE")
                    ? Lifecycle.SPOT : Lifecycle.ON_DEMAND;
            return Optional.of(new CloudIdentity("gcp", id.get().strip(),
                    read("machine-type").map(GcpMetadata::lastSegment).orElse(null),
                    zone == null ? null : regionOf(zone), lifecycle,
                    read("hostname").map(String::strip).orElse(null)));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    @Override
    public synchronized List<CapacityEvent> notices(Placement placement, Instant now) throws IOException {
        List<CapacityEvent> notices = new ArrayList<>();
        String preempted = read("preempted").map(String::strip).orElse("FALSE");
        if (preempted.equalsIgnoreCase("TRUE")) {
            // An instance is preempted once in its life: instance and kind identify the notice.
            notices.add(event(placement, CapacityEventKind.PREEMPTION, "preempted", now,
                    now.plus(PREEMPTION_NOTICE), "preempted", preempted));
        }
        String maintenance = read("maintenance-event").map(String::strip).orElse("NONE");
        if (!maintenance.equals(maintenanceSeen)) {
            maintenanceSeen = maintenance;
            maintenanceSince = now;
        }
        if (!maintenance.equalsIgnoreCase("NONE")) {
            notices.add(event(placement, CapacityEventKind.MAINTENANCE, maintenance.toLowerCase(Locale.ROOT), now,
                    null, maintenance + "@" + maintenanceSince, maintenance));
        }
        return notices;
    }

    private static CapacityEvent event(Placement placement, CapacityEventKind kind, String action, Instant now,
            Instant deadline, String noticeIdentity, String raw) {
        return CapacityEvent.builder().eventId(CapacityEvent.idOf("gcp", placement.instanceId(), kind, noticeIdentity))
                .placement(placement).provider("gcp").kind(kind).action(action).noticedAt(now).deadline(deadline)
                .source("gcp-metadata").raw(raw).build();
    }

    private Optional<String> read(String path) throws IOException {
        return http.get(base + "/computeMetadata/v1/instance/" + path, FLAVOR);
    }

    /** {@code projects/123/zones/us-central1-a} → {@code us-central1-a}. */
    private static String lastSegment(String path) {
        String trimmed = path.strip();
        return trimmed.substring(trimmed.lastIndexOf('/') + 1);
    }

    /** {@code us-central1-a} → {@code us-central1}. */
    static String regionOf(String zone) {
        int dash = zone.lastIndexOf('-');
        return dash > 0 ? zone.substring(0, dash) : zone;
    }
}
