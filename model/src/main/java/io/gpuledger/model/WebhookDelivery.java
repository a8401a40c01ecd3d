package io.gpuledger.model;

import java.time.Instant;

/**
 * That an anomaly reached a webhook receiver. Keyed on {@link Topics#WEBHOOK_DELIVERIES} by
 * {@code <receiver>|<anomalyId>}, compacted: the alert service reads it back at start so that an
 * anomaly delivered before a restart is not delivered again.
 *
 * @param receiver    the configured name of the receiver
 * @param attempts    how many tries it took
 * @param httpStatus  the receiver's final answer
 */
public record WebhookDelivery(String receiver, String anomalyId, Instant deliveredAt, int attempts, int httpStatus) {

    public WebhookDelivery {
        Check.identity("receiver", receiver);
        Check.present("anomalyId", anomalyId);
        Check.instant("deliveredAt", deliveredAt);
    }

    public String key() {
        return keyOf(receiver, anomalyId);
    }

    public static String keyOf(String receiver, String anomalyId) {
        return receiver + Check.KEY_SEPARATOR + anomalyId;
    }
}
