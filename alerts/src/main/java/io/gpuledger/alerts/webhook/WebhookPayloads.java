package io.gpuledger.alerts.webhook;

import io.gpuledger.model.CostAnomaly;
import io.gpuledger.model.Json;

/** The bodies posted to receivers: the same bytes on every retry of one delivery. */
public final class WebhookPayloads {

    /** The {@code event} of the generic body and the legacy {@code X-GpuLedger-Event} header. */
    public static final String EVENT = "cost.anomaly";

    /**
     * The generic body: {@code {"event":"cost.anomaly","deliveryId":…,"anomaly":{…}}}, the anomaly
     * as it is on {@code cost.anomalies.v1}. Receivers in Java can read it back with
     * {@code Json.read(body, AnomalyEvent.class)}.
     *
     * @param deliveryId the anomaly's id, also sent as {@value WebhookSignature#ID_HEADER}
     */
    public record AnomalyEvent(String event, String deliveryId, CostAnomaly anomaly) {
    }

    private WebhookPayloads() {
    }

    public static byte[] body(WebhookReceiver.Format format, CostAnomaly anomaly) {
        return switch (format) {
            case JSON -> Json.write(new AnomalyEvent(EVENT, anomaly.id(), anomaly));
            case SLACK -> SlackMessage.write(anomaly);
        };
    }
}
