package io.gpuledger.streams.capacity;

import io.gpuledger.model.GpuUsage;
import io.gpuledger.streams.state.LiveStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/**
 * Follows each GPU, keyed by its UUID, and tells its instances what changed, keyed by instance
 * id: it arrived or was updated there, or it left (moved to another instance, or reported
 * nothing for longer than the maximum age).
 *
 * <p>Only this per-GPU view can see a GPU move: once usage is keyed by instance, the old and the
 * new instance sit on different partitions and neither knows of the other.
 */
final class TrackGpus implements Processor<String, GpuUsage, String, PlacementChange> {

    private final String storeName;
    private final Duration maxAge;
    private ProcessorContext<String, PlacementChange> context;
    private LiveStore<GpuAt> lastSeen;
    /** End of the newest window this task has read: the "now" of usage time. */
    private Instant newestWindowEnd;

    TrackGpus(String storeName, Duration maxAge) {
        this.storeName = storeName;
        this.maxAge = maxAge;
    }

    @Override
    public void init(ProcessorContext<String, PlacementChange> context) {
        this.context = context;
        this.lastSeen = context.getStateStore(storeName);
        this.newestWindowEnd = null;
        // Silence is measured in usage time (see forgetSilentGpus); the wall clock only says how
        // often to look, whatever timestamps the records were written with.
        Duration every = maxAge.compareTo(Duration.ofMinutes(1)) < 0 ? maxAge : Duration.ofMinutes(1);
        context.schedule(every, PunctuationType.WALL_CLOCK_TIME, wallClock -> forgetSilentGpus());
    }

    @Override
    public void process(Record<String, GpuUsage> record) {
        GpuAt before = lastSeen.get(record.key());
        GpuAt now = GpuAt.of(record.value());
        if (newestWindowEnd == null || now.gpu().lastWindowEnd().isAfter(newestWindowEnd)) {
            newestWindowEnd = now.gpu().lastWindowEnd();
        }
        if (before != null && before.gpu().lastWindowEnd().isAfter(now.gpu().lastWindowEnd())) {
            // A late update of an older window: the newer one already says where the GPU is.
            return;
        }
        if (now.samePlacement(before) && now.gpu().lastWindowEnd().isBefore(
                before.gpu().lastWindowEnd().plus(CapacityTopology.PLACEMENT_REFRESH))) {
            return;
        }
        lastSeen.put(record.key(), now);
        if (before != null && !before.instanceId().equals(now.instanceId())) {
            context.forward(new Record<>(before.instanceId(), PlacementChange.left(record.key()), record.timestamp()));
        }
        context.forward(new Record<>(now.instanceId(), PlacementChange.placed(now.gpu()), record.timestamp()));
    }

    /**
     * Silence is measured against the newest window read, the time notices are compared in, and
     * not against stream time: that follows the timestamps the records were written with, and a
     * replay, or a producer that stamps records when it sends them, would make every GPU look
     * silent at once.
     */
    private void forgetSilentGpus() {
        if (newestWindowEnd == null) {
            return;
        }
        // The window end kept is at most one refresh behind the GPU's latest.
        Instant oldest = newestWindowEnd.minus(maxAge).minus(CapacityTopology.PLACEMENT_REFRESH);
        List<Map.Entry<String, GpuAt>> silent = new ArrayList<>();
        for (Map.Entry<String, GpuAt> entry : lastSeen.entries().entrySet()) {
            if (entry.getValue().gpu().lastWindowEnd().isBefore(oldest)) {
                silent.add(entry);
            }
        }
        for (Map.Entry<String, GpuAt> gpu : silent) {
            lastSeen.delete(gpu.getKey());
            context.forward(new Record<>(gpu.getValue().instanceId(), PlacementChange.left(gpu.getKey()),
                    newestWindowEnd.toEpochMilli()));
        }
    }
}
