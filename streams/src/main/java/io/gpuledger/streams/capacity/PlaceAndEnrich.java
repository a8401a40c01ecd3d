package io.gpuledger.streams.capacity;

import io.gpuledger.model.CapacityEvent;
import io.gpuledger.model.EnrichedCapacityEvent;
import io.gpuledger.streams.state.LiveStore;
import java.time.Duration;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/**
 * Keeps the placement of each instance of its partitions, from the changes {@link TrackGpus}
 * sends, and enriches each notice with it as the notice arrives. Both inputs are keyed by
 * instance id on co-partitioned topics, so Kafka Streams hands them to this one task in timestamp
 * order, as it would to a stream-table join.
 */
final class PlaceAndEnrich implements Processor<String, PlaceAndEnrich.Input, String, EnrichedCapacityEvent> {

    /** A placement change or a notice, merged into one stream. */
    sealed interface Input {
        record Change(PlacementChange change) implements Input {
        }

        record Notice(CapacityEvent notice) implements Input {
        }
    }

    private final String storeName;
    private final Duration maxAge;
    private ProcessorContext<String, EnrichedCapacityEvent> context;
    private LiveStore<InstancePlacement> placements;

    PlaceAndEnrich(String storeName, Duration maxAge) {
        this.storeName = storeName;
        this.maxAge = maxAge;
    }

    @Override
    public void init(ProcessorContext<String, EnrichedCapacityEvent> context) {
        this.context = context;
        this.placements = context.getStateStore(storeName);
    }

    @Override
    public void process(Record<String, Input> record) {
        String instance = record.key();
        if (record.value() instanceof Input.Change change) {
            InstancePlacement before = placements.get(instance);
            InstancePlacement after = (before == null ? InstancePlacement.NONE : before).apply(change.change());
            if (after == null) {
                placements.delete(instance);
            } else {
                placements.put(instance, after);
            }
        } else if (record.value() instanceof Input.Notice notice) {
            context.forward(record.withValue(CapacityTopology.enrich(notice.notice(), placements.get(instance),
                    maxAge)));
            // A notice is read as soon as it is committed: now, not at the longest commit interval.
            context.commit();
        }
    }
}
