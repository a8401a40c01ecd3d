package io.gpuledger.streams.cost;

import io.gpuledger.model.InvalidRecordException;
import io.gpuledger.model.TelemetrySample;
import io.gpuledger.streams.deadletter.ParseOrReject;
import java.time.Instant;
import java.util.Map;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.metrics.stats.CumulativeSum;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/**
 * The samples {@link GpuWindows} refuses, each kind counted ({@code telemetry}, {@code -late},
 * {@code -duplicate}, {@code -future}) and sent to the dead letters with its reason, and the GPU
 * seconds that came too late to charge ({@code late-seconds-total}).
 */
final class SampleRefusals {

    private final CostSettings settings;
    private final ProcessorContext<String, Object> context;
    private final Sensor invalid;
    private final Sensor late;
    private final Sensor duplicate;
    private final Sensor future;
    /** GPU seconds of samples that fell in closed windows: not charged, counted. */
    private final Sensor lateSeconds;

    SampleRefusals(CostSettings settings, ProcessorContext<String, Object> context) {
        this.settings = settings;
        this.context = context;
        this.invalid = ParseOrReject.deadLetterSensor(context, "telemetry");
        this.late = ParseOrReject.deadLetterSensor(context, "telemetry-late");
        this.duplicate = ParseOrReject.deadLetterSensor(context, "telemetry-duplicate");
        this.future = ParseOrReject.deadLetterSensor(context, "telemetry-future");
        this.lateSeconds = lateSecondsSensor(context);
    }

    /**
     * The counter of late GPU seconds: Kafka Streams metric {@code late-seconds-total} of group
     * {@code stream-gpuledger-metrics}, tags {@code thread-id} and {@code gpuledger-id=telemetry},
     * beside the dead-letter counters, shared by the tasks of a stream thread as they are.
     */
    private static Sensor lateSecondsSensor(ProcessorContext<?, ?> context) {
        String thread = Thread.currentThread().getName();
        Sensor sensor = context.metrics().addSensor(thread + ".gpuledger.telemetry.late-seconds",
                Sensor.RecordingLevel.INFO);
        sensor.add(new MetricName("late-seconds-total", "stream-gpuledger-metrics",
                "GPU seconds of samples that fell in windows already closed, not charged",
                Map.of("thread-id", thread, "gpuledger-id", "telemetry")), new CumulativeSum());
        return sensor;
    }

    void invalid(Record<String, byte[]> record, InvalidRecordException refusal) {
        invalid.record();
        deadLetter(record, refusal);
    }

    /**
     * @param latest   the latest time it could have been taken at
     * @param byBroker whether {@code latest} is when the broker took it, rather than this engine's clock
     */
    void fromTheFuture(Record<String, byte[]> record, TelemetrySample sample, long latest, boolean byBroker) {
        refuse(record, future, "from the future: it ends at " + sample.time() + ", more than "
                + settings.maxAhead().toSeconds() + " s ahead of " + (byBroker ? "when the broker took it ("
                        : "this engine's clock (") + Instant.ofEpochMilli(latest) + "): its node's clock runs ahead");
    }

    /** Counts GPU seconds that fell in closed windows, whether or not the rest of their sample was charged. */
    void lateSeconds(double gpuSeconds) {
        lateSeconds.record(gpuSeconds);
    }

    void late(Record<String, byte[]> record, String windowEnded, long latest) {
        refuse(record, late, "late: " + windowEnded + " and closed " + settings.grace().toSeconds()
                + " s later, before " + Instant.ofEpochMilli(latest) + ", the latest time seen");
    }

    void duplicate(Record<String, byte[]> record, TelemetrySample sample) {
        refuse(record, duplicate, "duplicate: all the time it covers, "
                + sample.time().minusMillis(Math.round(sample.intervalSeconds() * 1000)) + " to " + sample.time()
                + ", was charged for this GPU already, by earlier samples (a sample sent again, or a second agent"
                + " reporting the same GPU)");
    }

    private void refuse(Record<String, byte[]> record, Sensor counter, String reason) {
        counter.record();
        deadLetter(record, new InvalidRecordException("time", reason));
    }

    private void deadLetter(Record<String, byte[]> record, InvalidRecordException refusal) {
        // Dated when refused, not by its event time: a broker refuses a record dated far ahead
        // (failing the task), and deletes one dated far back at once.
        context.forward(record.withValue((Object) record.value())
                .withHeaders(ParseOrReject.refusedHeaders(record.headers(), context, refusal))
                .withTimestamp(context.currentSystemTimeMs()), Outputs.REFUSED);
    }
}
