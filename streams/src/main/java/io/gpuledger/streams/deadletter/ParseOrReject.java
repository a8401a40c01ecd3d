package io.gpuledger.streams.deadletter;

import io.gpuledger.model.DeadLetters;
import io.gpuledger.model.InvalidRecordException;
import io.gpuledger.model.Json;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.ToLongFunction;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.streams.processor.api.FixedKeyProcessor;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorContext;
import org.apache.kafka.streams.processor.api.FixedKeyRecord;
import org.apache.kafka.streams.processor.api.ProcessingContext;
import org.apache.kafka.streams.processor.api.RecordMetadata;

/**
 * Reads each raw input record as a contract record. A valid one goes on with its event time as
 * the record timestamp; an invalid one goes on as {@link Parsed#invalid} with dead-letter
 * headers saying why and where it came from. Nothing is thrown, so no record stops the stage.
 *
 * <p>The record key must be the record's own identity ({@code keyOf}): a record keyed otherwise
 * would land on another partition than the rest of its entity and split its windows.
 *
 * <p>Where {@link #refusingAhead} says so, a record dated more than an allowance ahead of the
 * engine's clock is refused too: it would carry that time on as its timestamp, which brokers
 * refuse on any topic it is written to (failing the task on every retry), and it would move its
 * task's stream time so far that every later record looks late.
 */
public final class ParseOrReject<T> implements FixedKeyProcessor<String, byte[], Parsed<T>> {

    /**
     * The most any allowance may be: a record dated further ahead of this engine's clock would
     * be refused by brokers, or move its task's stream time too far.
     */
    public static final Duration MAX_AHEAD = Duration.ofMinutes(10);

    private final String input;
    private final Class<T> type;
    private final Function<T, String> keyOf;
    private final ToLongFunction<T> eventTimeOf;
    private FixedKeyProcessorContext<String, Parsed<T>> context;
    private Sensor refused;
    /** The field holding the time checked, when records dated too far ahead are refused; else null. */
    private String timeField;
    private ToLongFunction<T> timeOf;
    private Duration allowance;
    /** Whether the records' timestamps are the broker's, set as it appended them (LogAppendTime). */
    private boolean brokerStamped;

    /**
     * @param input names the input in the dead-letter counter: Kafka Streams metric
     *              {@code dead-letters-total} of group {@code stream-gpuledger-metrics}, tag
     *              {@code gpuledger-id=<input>} (JMX {@code kafka.streams:type=stream-gpuledger-metrics})
     */
    public ParseOrReject(String input, Class<T> type, Function<T, String> keyOf, ToLongFunction<T> eventTimeOf) {
        this.input = input;
        this.type = type;
        this.keyOf = keyOf;
        this.eventTimeOf = eventTimeOf;
    }

    /**
     * Also refuses records whose time in {@code field} ({@code timeOf}) is more than
     * {@code allowance} ahead of this engine's clock, or, where the broker dates them
     * ({@code brokerStamped}), ahead of when the broker took them if that was earlier: a record
     * from a node whose clock runs fast is then refused while the engine works off a backlog too.
     */
    public ParseOrReject<T> refusingAhead(String field, ToLongFunction<T> timeOf, Duration allowance,
            boolean brokerStamped) {
        if (allowance.isNegative() || allowance.compareTo(MAX_AHEAD) > 0) {
            throw new IllegalArgumentException("the allowance ahead must be from 0 to " + MAX_AHEAD + ", was "
                    + allowance);
        }
        this.timeField = field;
        this.timeOf = timeOf;
        this.allowance = allowance;
        this.brokerStamped = brokerStamped;
        return this;
    }

    @Override
    public void init(FixedKeyProcessorContext<String, Parsed<T>> context) {
        this.context = context;
        this.refused = deadLetterSensor(context, input);
    }

    /**
     * The latest time a record may be dated, its allowance aside: this engine's clock {@code now},
     * or, where the broker dates the records ({@code brokerStamped}), when it took this one if earlier.
     */
    public static long latestTime(boolean brokerStamped, long now, long recordTimestamp) {
        return brokerStamped ? Math.min(now, recordTimestamp) : now;
    }

    /** The counter of records refused from {@code input}. */
    public static Sensor deadLetterSensor(ProcessingContext context, String input) {
        return context.metrics().addRateTotalSensor("gpuledger", input, "dead-letters", Sensor.RecordingLevel.INFO);
    }

    @Override
    public void process(FixedKeyRecord<String, byte[]> record) {
        try {
            long now = context.currentSystemTimeMs();
            long latest = latestTime(brokerStamped, now, record.timestamp());
            T value = check(record.key(), Json.read(record.value(), type), latest, latest < now);
            context.forward(record.withValue(Parsed.valid(value, record.value()))
                    .withTimestamp(eventTimeOf.applyAsLong(value)));
        } catch (InvalidRecordException e) {
            refused.record();
            context.forward(refusedRecord(record, record.value(), context, e));
        }
    }

    /**
     * {@code record} refused for the dead letters: its value {@link Parsed#invalid} with the bytes
     * received, its headers saying why and where it came from.
     */
    public static <T> FixedKeyRecord<String, Parsed<T>> refusedRecord(FixedKeyRecord<String, ?> record, byte[] raw,
            ProcessingContext context, InvalidRecordException refusal) {
        return record.withValue(Parsed.<T>invalid(raw, refusal))
                .withHeaders(refusedHeaders(record.headers(), context, refusal));
    }

    /**
     * Checks a record read by other means as this processor checks those it reads: keyed by
     * its own identity, and not dated too far ahead where {@link #refusingAhead} says so.
     *
     * @throws InvalidRecordException why it is refused
     */
    public T check(String key, T value, long now) {
        return check(key, value, now, false);
    }

    /** As {@link #check(String, Object, long)}, {@code latest} being when the broker took it if {@code byBroker}. */
    private T check(String key, T value, long latest, boolean byBroker) {
        if (value == null) {
            // A reader of other means may answer the JSON literal null with no record: refused, not passed on.
            throw new InvalidRecordException(Json.ROOT, "no record: expected a JSON object");
        }
        String identity = keyOf.apply(value);
        if (!Objects.equals(key, identity)) {
            throw new InvalidRecordException("$key", "record key '" + key + "' must be '" + identity
                    + "', the record's own identity, so that all its records share a partition");
        }
        if (timeField != null) {
            long time = timeOf.applyAsLong(value);
            if (time > latest + allowance.toMillis()) {
                throw new InvalidRecordException(timeField, "from the future: " + Instant.ofEpochMilli(time)
                        + " is more than " + allowance.toSeconds() + " s ahead of "
                        + (byBroker ? "when the broker took it (" : "this engine's clock (")
                        + Instant.ofEpochMilli(latest) + ")");
            }
        }
        return value;
    }

    /** The record's headers plus why it was refused and where it came from. */
    public static RecordHeaders refusedHeaders(Headers received, ProcessingContext context,
            InvalidRecordException e) {
        RecordHeaders headers = new RecordHeaders(received.toArray());
        DeadLetters.put(headers, DeadLetters.REASON, e.getMessage());
        DeadLetters.put(headers, DeadLetters.FIELD, e.field());
        context.recordMetadata().ifPresent((RecordMetadata source) -> {
            DeadLetters.put(headers, DeadLetters.SOURCE_TOPIC, source.topic());
            DeadLetters.put(headers, DeadLetters.SOURCE_PARTITION, source.partition());
            DeadLetters.put(headers, DeadLetters.SOURCE_OFFSET, source.offset());
        });
        return headers;
    }
}
