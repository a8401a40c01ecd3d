package io.gpuledger.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Instant;

/**
 * A CloudEvents 1.0 envelope in structured JSON mode: the context attributes beside the event's
 * data, so that event-driven tools (Knative, Argo Events, EventBridge pipes, any CloudEvents SDK)
 * can route and filter records without knowing GPU Ledger's schema. Records written in this form
 * carry the Kafka header {@code content-type: application/cloudevents+json; charset=UTF-8}.
 *
 * @param id      unique per {@code source}: the same event redelivered keeps its id
 * @param type    reverse-DNS event type with the schema's major version, e.g. {@code io.gpuledger.recommendation.v1}
 * @param subject what the event is about (a recommendation's target), for filtering
 * @param dataschema URI of the schema {@code data} follows
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record CloudEvent<T>(
        @JsonProperty(required = true) String specversion,
        @JsonProperty(required = true) String id,
        @JsonProperty(required = true) String source,
        @JsonProperty(required = true) String type,
        String subject,
        Instant time,
        String datacontenttype,
        String dataschema,
        @JsonProperty(required = true) T data) {

    public static final String SPEC_VERSION = "1.0";
    /** The Kafka header naming the structured content mode (CloudEvents Kafka protocol binding). */
    public static final String CONTENT_TYPE_HEADER = "content-type";
    public static final String STRUCTURED_CONTENT_TYPE = "application/cloudevents+json; charset=UTF-8";

    public CloudEvent {
        if (!SPEC_VERSION.equals(specversion)) {
            throw new InvalidRecordException("specversion", "must be " + SPEC_VERSION + ", was " + specversion);
        }
        Check.present("id", id);
        Check.present("source", source);
        Check.present("type", type);
        Check.present("data", data);
    }

    public static <T> Builder<T> builder() {
        return new Builder<>();
    }

    /** An event whose data is JSON; its id, source, type and the rest are set on the builder. */
    public static <T> Builder<T> json(T data) {
        return new Builder<T>().datacontenttype("application/json").data(data);
    }

    /** Fluent construction at the current spec version; {@link #build()} validates like the JSON reader does. */
    public static final class Builder<T> {
        private String specversion = SPEC_VERSION;
        private String id;
        private String source;
        private String type;
        private String subject;
        private Instant time;
        private String datacontenttype;
        private String dataschema;
        private T data;

        private Builder() {
        }

        public Builder<T> specversion(String value) { specversion = value; return this; }
        public Builder<T> id(String value) { id = value; return this; }
        public Builder<T> source(String value) { source = value; return this; }
        public Builder<T> type(String value) { type = value; return this; }
        public Builder<T> subject(String value) { subject = value; return this; }
        public Builder<T> time(Instant value) { time = value; return this; }
        public Builder<T> datacontenttype(String value) { datacontenttype = value; return this; }
        public Builder<T> dataschema(String value) { dataschema = value; return this; }
        public Builder<T> data(T value) { data = value; return this; }

        public CloudEvent<T> build() {
            return new CloudEvent<>(specversion, id, source, type, subject, time, datacontenttype, dataschema, data);
        }
    }
}
