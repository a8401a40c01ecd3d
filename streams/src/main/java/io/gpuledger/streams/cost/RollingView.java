package io.gpuledger.streams.cost;

import io.gpuledger.model.UsageRollup;
import io.gpuledger.model.UsageTotals;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.streams.processor.api.FixedKeyProcessor;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorContext;
import org.apache.kafka.streams.processor.api.FixedKeyRecord;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The rolling view of a job, team or pool: the sum of its last {@code minutes} minute roll-ups,
 * refreshed whenever one of them changes. Input: minute roll-ups keyed by {@code dimension|id};
 * the store keeps each key's recent minutes (the latest version of each), so a minute updated
 * again replaces itself rather than adding up twice.
 */
final class RollingView implements FixedKeyProcessor<String, UsageRollup, UsageRollup> {

    /** The recent minutes of one dimension id, by minute start (epoch millis). */
    record Recent(TreeMap<Long, UsageRollup> minutes) {
    }

    private final String storeName;
    private final int minutes;
    private FixedKeyProcessorContext<String, UsageRollup> context;
    private KeyValueStore<String, Recent> store;

    RollingView(String storeName, int minutes) {
        this.storeName = storeName;
        this.minutes = minutes;
    }

    @Override
    public void init(FixedKeyProcessorContext<String, UsageRollup> context) {
        this.context = context;
        this.store = context.getStateStore(storeName);
    }

    @Override
    public void process(FixedKeyRecord<String, UsageRollup> record) {
        UsageRollup minute = record.value();
        Recent recent = store.get(record.key());
        TreeMap<Long, UsageRollup> kept = recent == null ? new TreeMap<>() : new TreeMap<>(recent.minutes());
        kept.put(minute.windowStart().toEpochMilli(), minute);
        long newest = kept.lastKey();
        long oldestKept = newest - Duration.ofMinutes(minutes - 1L).toMillis();
        kept.headMap(oldestKept).clear();
        store.put(record.key(), new Recent(kept));
        if (minute.windowStart().toEpochMilli() < oldestKept) {
            // An update of a minute already out of the view changes nothing in it.
            return;
        }
        UsageTotals totals = UsageTotals.ZERO;
        long gpus = 0;
        for (Map.Entry<Long, UsageRollup> entry : kept.entrySet()) {
            totals = totals.plus(entry.getValue().totals());
            gpus = Math.max(gpus, entry.getValue().gpus());
        }
        Instant end = Instant.ofEpochMilli(newest).plus(Duration.ofMinutes(1));
        context.forward(record.withValue(new UsageRollup(minute.dimension(), minute.id(),
                end.minus(Duration.ofMinutes(minutes)), end, minute.currency(), gpus, totals)));
    }
}
