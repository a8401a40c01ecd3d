package io.gpuledger.alerts.recommend;

import io.gpuledger.model.CloudEvent;
import io.gpuledger.model.Recommendation;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * The CloudEvents envelope of recommendations on {@code gpu.recommendations.v1}: one event per
 * published state of a recommendation, so the event id is the recommendation id with the time and
 * status of that state (a redelivery of the same record keeps it).
 */
public final class RecommendationEvents {

    public static final String SOURCE = "/gpu-ledger/alerts";
    public static final String TYPE = "io.gpuledger.recommendation.v1";
    public static final String DATA_SCHEMA = "urn:gpuledger:schema:recommendation:" + Recommendation.SCHEMA_VERSION;

    private RecommendationEvents() {
    }

    /** The Kafka headers of a structured-mode CloudEvent record. */
    public static Headers headers() {
        return new RecordHeaders().add(CloudEvent.CONTENT_TYPE_HEADER,
                CloudEvent.STRUCTURED_CONTENT_TYPE.getBytes(StandardCharsets.UTF_8));
    }

    public static CloudEvent<Recommendation> envelope(Recommendation recommendation) {
        String eventId = recommendation.id() + "@" + recommendation.updatedAt().toEpochMilli() + ":"
                + recommendation.status().wire();
        String subject = recommendation.target().type() + "/" + recommendation.target().id();
        return CloudEvent.json(recommendation).id(eventId).source(SOURCE).type(TYPE).subject(subject)
                .time(recommendation.updatedAt()).dataschema(DATA_SCHEMA).build();
    }
}
