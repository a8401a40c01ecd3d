package io.gpuledger.streams.capacity;

import io.gpuledger.model.CapacityEvent;
import io.gpuledger.model.InvalidRecordException;
import io.gpuledger.streams.deadletter.ParseOrReject;
import io.gpuledger.streams.deadletter.Parsed;
import io.gpuledger.streams.state.LiveStore;
import java.time.Duration;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.FixedKeyProcessor;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorContext;
import org.apache.kafka.streams.processor.api.FixedKeyRecord;

/**
 * Refuses a notice whose {@code eventId} was published for its instance already: an agent publishes
 * each notice once, so a second copy is a resend (or a second agent on the node), and enriching it
 * again would tell the alert service and automation of the same interruption twice. The copy goes
 * on as {@link Parsed#invalid}, for the dead letters, counted as {@code capacity-events-duplicate}.
 * Notices are keyed by instance, so each instance's are judged in one task, in {@link NoticesSeen};
 * an instance is forgotten a day after the task's latest notice.
 */
final class RepeatedNotices implements FixedKeyProcessor<String, Parsed<CapacityEvent>, Parsed<CapacityEvent>> {

    private static final Duration SWEEP_EVERY = Duration.ofMinutes(1);

    private final String storeName;
    private FixedKeyProcessorContext<String, Parsed<CapacityEvent>> context;
    private LiveStore<NoticesSeen> seen;
    private Sensor duplicates;
    /** The latest notice this task took since it started; instances noticed a day before it are forgotten. */
    private long latestNoticed = Long.MIN_VALUE;

    RepeatedNotices(String storeName) {
        this.storeName = storeName;
    }

    @Override
    public void init(FixedKeyProcessorContext<String, Parsed<CapacityEvent>> context) {
        this.context = context;
        this.seen = context.getStateStore(storeName);
        this.duplicates = ParseOrReject.deadLetterSensor(context, "capacity-events-duplicate");
        context.schedule(SWEEP_EVERY, PunctuationType.WALL_CLOCK_TIME, now -> forgetOldInstances());
    }

    @Override
    public void process(FixedKeyRecord<String, Parsed<CapacityEvent>> record) {
        Parsed<CapacityEvent> parsed = record.value();
        if (!parsed.isValid()) {
            context.forward(record);
            return;
        }
        CapacityEvent notice = parsed.value();
        NoticesSeen instance = seen.get(record.key());
        if (instance != null && instance.contains(notice.eventId())) {
            duplicates.record();
            context.forward(ParseOrReject.<CapacityEvent>refusedRecord(record, parsed.raw(), context,
                    new InvalidRecordException("eventId", "duplicate: notice " + notice.eventId() + " of instance "
                            + notice.instanceId() + " was published already"))
                    .withTimestamp(context.currentSystemTimeMs()));
            return;
        }
        if (instance == null) {
            instance = new NoticesSeen();
        }
        instance.add(notice.eventId(), notice.noticedAt().toEpochMilli());
        seen.put(record.key(), instance);
        latestNoticed = Math.max(latestNoticed, notice.noticedAt().toEpochMilli());
        context.forward(record);
    }

    /** Forgets the instances whose latest notice came a day before the latest this task took. */
    private void forgetOldInstances() {
        if (latestNoticed != Long.MIN_VALUE) {
            seen.deleteIf(instance -> instance.latest() < latestNoticed - NoticesSeen.KEPT_MILLIS);
        }
    }
}
