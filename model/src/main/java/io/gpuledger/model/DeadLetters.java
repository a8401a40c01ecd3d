package io.gpuledger.model;

import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.header.Headers;

/** Header names of dead-letter records: why a record was refused and where it came from. */
public final class DeadLetters {

    public static final String REASON = "gpuledger.dlq.reason";
    public static final String FIELD = "gpuledger.dlq.field";
    public static final String SOURCE_TOPIC = "gpuledger.dlq.source.topic";
    public static final String SOURCE_PARTITION = "gpuledger.dlq.source.partition";
    public static final String SOURCE_OFFSET = "gpuledger.dlq.source.offset";
    /** The class of the exception that failed a record in a stage's processing, where one did. */
    public static final String EXCEPTION_CLASS = "gpuledger.dlq.exception.class";
    /** That exception's message. */
    public static final String EXCEPTION_MESSAGE = "gpuledger.dlq.exception.message";

    private DeadLetters() {
    }

    public static String header(Headers headers, String name) {
        var header = headers.lastHeader(name);
        return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }

    public static void put(Headers headers, String name, Object value) {
        headers.remove(name);
        headers.add(name, String.valueOf(value).getBytes(StandardCharsets.UTF_8));
    }
}
