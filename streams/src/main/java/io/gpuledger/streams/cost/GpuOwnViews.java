package io.gpuledger.streams.cost;

import io.gpuledger.model.UsageRollup;
import io.gpuledger.model.UsageRollup.Dimension;
import io.gpuledger.model.UsageTotals;
import io.gpuledger.streams.state.LiveStore;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/**
 * Each GPU's own views, sent by {@link GpuWindows} as its minutes close: its rolling five minutes
 * that end with each closed minute, and its hour once the hour's last minute has closed (or a
 * minute of a later hour has, or the GPU fell silent).
 */
final class GpuOwnViews {

    private static final long MINUTE = GpuState.MINUTE_MILLIS;
    private static final long HOUR = 60 * MINUTE;

    private final String currency;
    private ProcessorContext<String, Object> context;
    private LiveStore<GpuRecent> recent;
    /** The hour up to which the GPUs' hours were last looked at for silent GPUs; 0 after a start. */
    private long hoursSweptUntil;

    GpuOwnViews(String currency) {
        this.currency = currency;
    }

    void init(ProcessorContext<String, Object> context, LiveStore<GpuRecent> recent) {
        this.context = context;
        this.recent = recent;
    }

    /** Adds a GPU's closed minute to its views and sends those it completes. */
    void addMinute(String gpu, long minute, UsageTotals totals, double gpuFraction) {
        GpuRecent views = recent.get(gpu);
        if (views == null) {
            views = new GpuRecent();
        }
        long hourStart = EventTime.periodStart(minute, HOUR);
        if (views.hourStart != GpuRecent.NONE && views.hourStart != hourStart) {
            sendHour(gpu, views);
        }
        views.hourStart = hourStart;
        views.gpuFraction = gpuFraction;
        UsageTotals rolling = views.addMinute(minute, totals, RollupWindows.ROLLING_MINUTES);
        long rollingStart = minute + MINUTE - RollupWindows.ROLLING_MINUTES * MINUTE;
        sendOwn(gpu, rollingStart, minute + MINUTE, rolling, gpuFraction);
        if (minute + MINUTE == hourStart + HOUR) {
            sendHour(gpu, views);
        }
        recent.put(gpu, views);
    }

    private void sendHour(String gpu, GpuRecent views) {
        long start = views.hourStart;
        sendOwn(gpu, start, start + HOUR, views.endHour(), views.gpuFraction);
    }

    private void sendOwn(String gpu, long start, long end, UsageTotals totals, double gpuFraction) {
        UsageRollup view = new UsageRollup(Dimension.GPU, gpu, Instant.ofEpochMilli(start), Instant.ofEpochMilli(end),
                currency, 1, gpuFraction, totals);
        context.forward(new Record<>(view.key(), (Object) view, start), Outputs.GPU_VIEWS);
    }

    /**
     * Once an hour has passed since the last look: sends the hours of GPUs that fell silent before
     * their hour's last minute (no minute of theirs will close that hour), and forgets the views of
     * GPUs no longer {@code followed}.
     */
    void endSilentHours(long closeBefore, Predicate<String> followed) {
        if (closeBefore < hoursSweptUntil + HOUR) {
            return;
        }
        List<String> unfollowed = new ArrayList<>();
        for (Map.Entry<String, GpuRecent> entry : recent.entries().entrySet()) {
            GpuRecent views = entry.getValue();
            boolean stillFollowed = followed.test(entry.getKey());
            if (views.hourStart != GpuRecent.NONE && views.hourStart + HOUR <= closeBefore) {
                sendHour(entry.getKey(), views);
                if (stillFollowed) {
                    recent.markDirty(entry.getKey());
                }
            }
            if (!stillFollowed && views.hourStart == GpuRecent.NONE) {
                unfollowed.add(entry.getKey());
            }
        }
        unfollowed.forEach(recent::delete);
        hoursSweptUntil = EventTime.periodStart(closeBefore, HOUR);
    }
}
