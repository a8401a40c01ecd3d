package io.gpuledger.streams.capacity;

import io.gpuledger.model.CapacityEvent;
import io.gpuledger.model.InvalidRecordException;
import io.gpuledger.streams.deadletter.ParseOrReject;
import io.gpuledger.streams.deadletter.Parsed;
import io.gpuledger.streams.state.LiveStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.streams.processor.api.FixedKeyProcessor;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorContext;
import org.apache.kafka.streams.processor.api.FixedKeyRecord;

/**
 * Refuses a notice whose {@code eventId} was published for its instance already: an agent publishes
 * each notice once, so a second copy is a resend (or a second agent on the node), and enriching it
 * again would tell the alert service and automation of the same interruption twice. The copy goes
 * on as {@link Parsed#invalid}, for the dead letters, counted as {@code capacity-events-duplicate}.
 * Notices are keyed by instance, so each instance's are judged in one task, in {@link NoticesSeen}.
 */
final class RepeatedNotices implements FixedKeyProcessor<String, Parsed<CapacityEvent>, Parsed<CapacityEvent>> {

    private final String storeName;
    private FixedKeyProcessorContext<String, Parsed<CapacityEvent>> context;
    private LiveStore<NoticesSeen> seen;
    private Sensor duplicates;

    RepeatedNotices(String storeName) {
        this.storeName = storeName;
    }

    @Override
    public void init(FixedKeyProcessorContext<String, Parsed<CapacityEvent>> context) {
        this.context = context;
        this.seen = context.getStateStore(storeName);
        this.duplicates = ParseOrReject.deadLetterSensor(context, "capacity-events-duplicate");
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
            InvalidRecordException refusal = new InvalidRecordException("eventId", "duplicate: notice "
                    + notice.eventId() + " of instance " + notice.instanceId() + " was published already");
            duplicates.record();
            context.forward(record.withValue(Parsed.<CapacityEvent>invalid(parsed.raw(), refusal))
                    .withHeaders(ParseOrReject.refusedHeaders(record.headers(), context, refusal))
                    .withTimestamp(context.currentSystemTimeMs()));
            return;
        }
        if (instance == null) {
            instance = new NoticesSeen();
            forgetInstancesNoticedLongBefore(notice.noticedAt().toEpochMilli());
        }
        instance.add(notice.eventId(), notice.noticedAt().toEpochMilli());
        seen.put(record.key(), instance);
        context.forward(record);
    }

    /** Each new instance is the time to forget those whose latest notice is a day older than this one. */
    private void forgetInstancesNoticedLongBefore(long noticedAt) {
        List<String> gone = new ArrayList<>();
        for (Map.Entry<String, NoticesSeen> instance : seen.entries().entrySet()) {
            if (instance.getValue().latest() < noticedAt - NoticesSeen.KEPT_MILLIS) {
                gone.add(instance.getKey());
            }
        }
        gone.forEach(seen::delete);
    }
}
