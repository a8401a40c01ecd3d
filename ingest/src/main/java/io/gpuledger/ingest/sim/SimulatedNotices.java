package io.gpuledger.ingest.sim;

import io.gpuledger.model.CapacityEvent;
import io.gpuledger.model.CapacityEventKind;
import io.gpuledger.model.Placement;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.UUID;

/**
 * The notice a cloud gives before it takes a spot instance back, as its agent would normalise it:
 * on AWS a spot interruption two minutes ahead, with the instance-metadata {@code instance-action}
 * document as raw; on GCP and Azure a preemption about 30 seconds ahead, with the metadata
 * server's {@code TRUE} or the Scheduled Events document. Clouds whose notice format the agent
 * does not read yet get a preemption with the same 30 seconds and a plain JSON raw that says so.
 */
final class SimulatedNotices {

    static final Duration AWS_NOTICE = Duration.ofMinutes(2);
    static final Duration PREEMPTION_NOTICE = Duration.ofSeconds(30);

    private static final DateTimeFormatter IMDS_TIME =
            DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss'Z'").withZone(ZoneOffset.UTC);

    private SimulatedNotices() {
    }

    static CapacityEvent interruption(SimulatedInstance instance, Instant noticedAt) {
        Placement where = instance.placement();
        String provider = where.provider();
        CapacityEventKind kind;
        Instant deadline;
        String action;
        String source;
        String raw;
        switch (provider) {
            case "aws" -> {
                kind = CapacityEventKind.SPOT_INTERRUPTION;
                deadline = noticedAt.plus(AWS_NOTICE);
                action = "terminate";
                source = "aws-imds";
                raw = "{\"action\": \"terminate\", \"time\": \"" + IMDS_TIME.format(deadline) + "\"}";
            }
            case "gcp" -> {
                kind = CapacityEventKind.PREEMPTION;
                deadline = noticedAt.plus(PREEMPTION_NOTICE);
                action = "preempted";
                source = "gcp-metadata";
                raw = "TRUE";
            }
            case "azure" -> {
                kind = CapacityEventKind.PREEMPTION;
                deadline = noticedAt.plus(PREEMPTION_NOTICE);
                action = "Preempt";
                source = "azure-scheduled-events";
                String eventId = UUID.nameUUIDFromBytes((where.instanceId() + noticedAt)
                        .getBytes(StandardCharsets.UTF_8)).toString();
                raw = "{\"DocumentIncarnation\":1,\"Events\":[{\"EventId\":\"" + eventId + "\","
                        + "\"EventStatus\":\"Scheduled\",\"EventType\":\"Preempt\",\"ResourceType\":\"VirtualMachine\","
                        + "\"Resources\":[\"" + where.host() + "\"],\"NotBefore\":\""
                        + DateTimeFormatter.RFC_1123_DATE_TIME.format(deadline.atZone(ZoneOffset.UTC))
                        + "\",\"Description\":\"\",\"EventSource\":\"Platform\",\"DurationInSeconds\":-1}]}";
            }
            default -> {
                kind = CapacityEventKind.PREEMPTION;
                deadline = noticedAt.plus(PREEMPTION_NOTICE);
                action = "preempt";
                source = "simulator";
                raw = "{\"simulated\": true, \"action\": \"preempt\", \"time\": \"" + IMDS_TIME.format(deadline)
                        + "\"}";
            }
        }
        return CapacityEvent.builder()
                .eventId(CapacityEvent.idOf(provider, where.instanceId(), kind, IMDS_TIME.format(deadline)))
                .placement(where).kind(kind).action(action).noticedAt(noticedAt).deadline(deadline).source(source)
                .raw(raw).build();
    }
}
