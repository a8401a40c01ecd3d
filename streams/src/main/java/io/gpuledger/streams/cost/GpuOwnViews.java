package io.gpuledger.streams.cost;

import io.gpuledger.model.GpuHour;
import io.gpuledger.model.JobPart;
import io.gpuledger.model.UsageRollup;
import io.gpuledger.model.UsageRollup.Dimension;
import io.gpuledger.model.UsageTotals;
import io.gpuledger.streams.state.LiveStore;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Predicate;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/**
 * Each GPU's own views, sent by {@link GpuWindows} as its minutes close: its rolling five minutes
 * that end with each closed minute, and its hour once the hour's last minute has closed (or a
 * minute of a later hour has, or the GPU fell silent). The hour goes out twice: as the GPU's own roll-up, and
 * as a {@link GpuHour} with where the GPU ran and each job's part of it.
 */
final class GpuOwnViews {

    private static final long MINUTE = GpuState.MINUTE_MILLIS;
    private static final long HOUR = 60 * MINUTE;

    private final String currency;
    private ProcessorContext<String, Object> context;
    private LiveStore<GpuRecent> recent;
    private Function<String, GpuIdentity> identities;
    /** The hour up to which the GPUs' hours were last looked at for silent GPUs; 0 after a start. */
    private long hoursSweptUntil;

    GpuOwnViews(String currency) {
        this.currency = currency;
    }

    /** @param identities the identity of each GPU the engine follows, null for one it does not */
    void init(ProcessorContext<String, Object> context, LiveStore<GpuRecent> recent,
            Function<String, GpuIdentity> identities) {
        this.context = context;
        this.recent = recent;
        this.identities = identities;
        this.hoursSweptUntil = 0;
    }

    /**
     * Adds a GPU's closed minute to its views and sends those it completes: the minute of {@code identity},
     * charged {@code totals}, whose job parts {@code minuteParts} holds (null: none of its time was any job's).
     * The hour says where the GPU ran and for which team as its latest closed minute does: by the time the hour is
     * sent, the GPU's newest sample may be of the next hour, another job's or team's.
     */
    void addMinute(String gpu, long minute, UsageTotals totals, GpuIdentity identity, JobParts minuteParts) {
        double gpuFraction = identity.fraction;
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
        views.identity = identity;
        if (identity.shared()) {
            views.shared = true;
            views.restTeam = identity.team;
        }
        if (minuteParts != null) {
            views.addParts(minuteParts);
        }
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
        List<JobPart> parts = views.hourParts == null ? List.of() : views.hourParts.toContract();
        GpuIdentity identity = views.identity != null ? views.identity : identities.apply(gpu);
        // What no job took is the team's the roll-ups gave it to: the latest shared minute's, else the latest minute's.
        String team = views.shared ? views.restTeam : identity == null ? null : identity.team;
        UsageTotals totals = views.endHour();
        sendOwn(gpu, start, start + HOUR, totals, views.gpuFraction);
        if (identity != null) {
            GpuHour hour = new GpuHour(gpu, identity.gpuIndex, identity.gpuModel, identity.placement,
                    Instant.ofEpochMilli(start), Instant.ofEpochMilli(start + HOUR), currency, views.gpuFraction,
                    totals, parts, team);
            context.forward(new Record<>(gpu, (Object) hour, start), Outputs.HOURS);
        }
    }

    /**
     * Keeps the identity of a GPU the engine forgets, so that its hour under way, sent later, still says where it
     * ran (its latest closed minute's, where an hour read back from an earlier release holds none).
     */
    void forget(String gpu, GpuIdentity identity) {
        GpuRecent views = recent.get(gpu);
        if (views != null && views.hourStart != GpuRecent.NONE && identity != null && views.identity == null) {
            views.identity = identity;
            recent.put(gpu, views);
        }
    }

    private void sendOwn(String gpu, long start, long end, UsageTotals totals, double gpuFraction) {
        UsageRollup view = new UsageRollup(Dimension.GPU, gpu, Instant.ofEpochMilli(start), Instant.ofEpochMilli(end),
                currency, 1, gpuFraction, totals);
        context.forward(new Record<>(view.key(), (Object) view, start), Outputs.GPU_VIEWS);
    }

    /**
     * Once an hour has passed since the last look: sends the hours that ended by {@code closeBefore} of GPUs
     * that fell silent before their hour's last minute (no minute of theirs will close that hour), and forgets the
     * views of GPUs no longer {@code followed}.
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
