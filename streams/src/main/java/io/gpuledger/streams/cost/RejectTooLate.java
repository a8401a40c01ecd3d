package io.gpuledger.streams.cost;

import io.gpuledger.model.InvalidRecordException;
import io.gpuledger.model.TelemetrySample;
import io.gpuledger.streams.deadletter.ParseOrReject;
import io.gpuledger.streams.deadletter.Parsed;
import java.time.Duration;
import java.time.Instant;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.streams.processor.api.FixedKeyProcessor;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorContext;
import org.apache.kafka.streams.processor.api.FixedKeyRecord;

/**
 * Refuses samples that arrive after their window has closed (window end plus grace, by the
 * latest event time this task has seen). Kafka Streams would drop them silently from the window;
 * here they go to the dead-letter topic with the reason, so they are counted and kept.
 *
 * <p>The latest event time is this task's memory: after a restart it starts again from the first
 * records, and until then a too-late sample is dropped by the window as before (and counted in
 * Kafka Streams' own dropped-records metric).
 */
final class RejectTooLate implements FixedKeyProcessor<String, Parsed<TelemetrySample>, Parsed<TelemetrySample>> {

    private final Duration window;
    private final Duration grace;
    private FixedKeyProcessorContext<String, Parsed<TelemetrySample>> context;
    private long latestEventTime = Long.MIN_VALUE;
    private Sensor late;

    RejectTooLate(Duration window, Duration grace) {
        this.window = window;
        this.grace = grace;
    }

    @Override
    public void init(FixedKeyProcessorContext<String, Parsed<TelemetrySample>> context) {
        this.context = context;
        this.late = ParseOrReject.deadLetterSensor(context, "telemetry-late");
    }

    @Override
    public void process(FixedKeyRecord<String, Parsed<TelemetrySample>> record) {
        if (!record.value().isValid()) {
            context.forward(record);
            return;
        }
        long eventTime = record.timestamp();
        long windowEnd = eventTime - Math.floorMod(eventTime, window.toMillis()) + window.toMillis();
        if (windowEnd + grace.toMillis() <= latestEventTime) {
            InvalidRecordException late = new InvalidRecordException("time", "late: its window ended at "
                    + Instant.ofEpochMilli(windowEnd) + " and closed " + grace.toSeconds() + " s later, before "
                    + Instant.ofEpochMilli(latestEventTime) + ", the latest time seen");
            this.late.record();
            context.forward(record.withValue(Parsed.<TelemetrySample>invalid(record.value().raw(), late))
                    .withHeaders(ParseOrReject.refusedHeaders(record, context, late)));
            return;
        }
        latestEventTime = Math.max(latestEventTime, eventTime);
        context.forward(record);
    }
}
