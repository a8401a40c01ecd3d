package io.gpuledger.streams.cost;

import io.gpuledger.model.JobEconomics;
import io.gpuledger.model.UsageRollup;
import io.gpuledger.model.UsageRollup.Dimension;
import io.gpuledger.streams.deadletter.ParseOrReject;
import io.gpuledger.streams.state.LiveStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/**
 * Sums the partials of each job, team and pool into its minutes and hours, and sends, every
 * {@code updateInterval} of wall-clock time, each minute that changed (see {@link #due}), each live
 * hour that changed at most every {@link #HOUR_UPDATE_INTERVAL} and each complete one at once, the
 * rolling five minutes that end with each changed minute and, for a job minute, its economics: its
 * cost against the work reported for it.
 *
 * <p>Roll-up time is the sources' own: each task that sends partials sends its
 * {@link SourceProgress} after them, and a minute is closed once every task that is not idle has
 * closed it ({@link #closedUntil}), so that tasks working off a backlog at different paces (or in
 * any order) hold each other's minutes open instead of dropping them. A minute is kept until
 * that is {@link #RETENTION_SLACK} past its rolling view's end, an hour likewise past its end; a
 * partial for a minute already dropped (a report dated far back, a GPU back from a long silence)
 * is counted in the {@code rollup-late} dead-letter counter and left out of the roll-ups, while
 * its GPUs' windows on {@code gpu.usage.v1} still hold it.
 */
final class RollupWindows implements Processor<String, RollupInput, String, Object> {

    static final int ROLLING_MINUTES = 5;
    static final Duration RETENTION_SLACK = Duration.ofMinutes(10);
    /**
     * How often (wall clock) changed open hours go out: an hour moves by a sixtieth a minute, and
     * sent every update interval, hours would be most of what a large fleet's roll-ups send. Once
     * the input is quiet they go out at once.
     */
    static final Duration HOUR_UPDATE_INTERVAL = Duration.ofMinutes(1);

    private static final long MINUTE = GpuState.MINUTE_MILLIS;
    private static final long HOUR = 60 * MINUTE;

    private final CostSettings settings;
    private ProcessorContext<String, Object> context;
    private LiveStore<RollupState> store;
    /** Each roll-up's minutes, by {@link RollupState#minuteKey}: the same sums as its state's minutes. */
    private LiveStore<RollupState.Sum> minuteStore;
    /** Each sending task's latest progress, by its partition. */
    private LiveStore<SourceProgress> sources;
    private Sensor lateCounter;
    /** Keys of the roll-ups with unsent minutes or hours, in the order they changed. */
    private final Set<String> keysWithUnsent = new LinkedHashSet<>();
    /** Whether the partials have stopped coming: then the backlog is worked off. */
    private final QuietInput input;
    /** Whether this update sent a live minute, hour or rolling view: one a reader waits for. */
    private boolean sentLiveSinceUpdate;
    /** Roll-ups sent since this task started. */
    private long rollupsSent;
    /**
     * Every minute that ends at or before it is closed by every task that sends partials and is
     * not idle: the least of their progress. Unchanged while all are idle.
     */
    private long closedUntil = Long.MIN_VALUE;
    private long lastExpiry = Long.MIN_VALUE;
    /** When changed hours last went out (wall clock), or {@code Long.MIN_VALUE}. */
    private long hoursSentAt = Long.MIN_VALUE;

    RollupWindows(CostSettings settings) {
        this.settings = settings;
        this.input = new QuietInput(settings);
    }

    @Override
    public void init(ProcessorContext<String, Object> context) {
        this.context = context;
        this.store = context.getStateStore(CostTopology.ROLLUP_STORE);
        this.minuteStore = context.getStateStore(CostTopology.ROLLUP_MINUTES_STORE);
        this.sources = context.getStateStore(CostTopology.SOURCES_STORE);
        // Set again for a task Kafka Streams revives with the same processor, its state gone back to the last commit.
        closedUntil = Long.MIN_VALUE;
        lastExpiry = Long.MIN_VALUE;
        hoursSentAt = Long.MIN_VALUE;
        sentLiveSinceUpdate = false;
        keysWithUnsent.clear();
        closeOnProgress();
        attachMinutes();
        // What changed before a restart and was not sent yet is sent as if it had just changed.
        store.entries().forEach((key, state) -> {
            if (state.minutes.values().stream().anyMatch(sum -> sum.unsent)
                    || state.hours.values().stream().anyMatch(sum -> sum.unsent)) {
                keysWithUnsent.add(key);
            }
        });
        this.lateCounter = ParseOrReject.deadLetterSensor(context, "rollup-late");
        context.schedule(settings.updateInterval(), PunctuationType.WALL_CLOCK_TIME, now -> sendUpdates());
    }

    /**
     * Puts the stored minutes back into their roll-ups' states, and moves the minutes of a state read in the format
     * that held them (written by a release before) into the minute store, to be written there at the next commit.
     */
    private void attachMinutes() {
        List<String> earlierFormat = new ArrayList<>();
        store.entries().forEach((key, state) -> {
            if (!state.minutes.isEmpty()) {
                earlierFormat.add(key);
                state.minutes.forEach((start, sum) -> minuteStore.put(RollupState.minuteKey(key, start), sum));
            }
        });
        earlierFormat.forEach(store::markDirty);
        List<String> orphans = new ArrayList<>();
        minuteStore.entries().forEach((minuteKey, sum) -> {
            RollupState state = store.get(RollupState.rollupKeyOf(minuteKey));
            if (state == null) {
                // Its roll-up was left out as unreadable: the minute alone could never be sent.
                orphans.add(minuteKey);
            } else {
                state.minutes.putIfAbsent(RollupState.minuteStartOf(minuteKey), sum);
            }
        });
        orphans.forEach(minuteStore::delete);
    }

    @Override
    public void process(Record<String, RollupInput> record) {
        if (record.value() instanceof SourceProgress progress) {
            progress(progress);
            return;
        }
        input.seen();
        RollupPartial partial = (RollupPartial) record.value();
        RollupState state = store.get(record.key());
        if (state == null) {
            state = new RollupState(partial.dimension(), partial.id(), partial.currency());
        }
        if (!state.minutes.containsKey(partial.windowStart()) && partial.windowStart() < minuteCutoff()) {
            lateCounter.record();
            return;
        }
        String minuteKey = RollupState.minuteKey(record.key(), partial.windowStart());
        RollupState.Sum minute = state.minutes.get(partial.windowStart());
        if (minute == null) {
            minute = new RollupState.Sum();
            state.minutes.put(partial.windowStart(), minute);
            minuteStore.put(minuteKey, minute);
        } else {
            minuteStore.markDirty(minuteKey);
        }
        minute.totals.add(partial.totals());
        minute.gpus += partial.gpus();
        minute.gpuEquivalents += partial.gpuEquivalents();
        minute.work = partial.work().reports() == 0 ? minute.work : minute.work.plus(partial.work());
        minute.unsent = true;
        store.put(record.key(), state);
        keysWithUnsent.add(record.key());
        if (partial.totals().samples() == 0 && partial.totals().unmonitoredSeconds() == 0) {
            return;
        }
        long hourStart = EventTime.periodStart(partial.windowStart(), HOUR);
        RollupState.Sum hour = state.hours.computeIfAbsent(hourStart, start -> new RollupState.Sum());
        hour.totals.add(partial.totals());
        hour.gpus = Math.max(hour.gpus, minute.gpus);
        hour.gpuEquivalents = Math.max(hour.gpuEquivalents, minute.gpuEquivalents);
        hour.unsent = true;
    }

    /** Takes a task's progress in, and closes what every task has closed now. */
    private void progress(SourceProgress progress) {
        String key = Integer.toString(progress.source());
        SourceProgress known = sources.get(key);
        if (known != null && known.closedUntil() > progress.closedUntil()) {
            // A restarted task may say again what it said before; its progress never goes back.
            progress = new SourceProgress(progress.source(), known.closedUntil(), progress.idle());
        }
        if (!progress.equals(known)) {
            sources.put(key, progress);
            closeOnProgress();
        }
    }

    /**
     * Moves {@link #closedUntil} to the least progress of the tasks that are not idle; a task of
     * the {@link CostSettings#sources} not heard from yet holds everything back.
     */
    private void closeOnProgress() {
        long least = Long.MAX_VALUE;
        boolean anyBusy = false;
        for (int source = 0; source < settings.sources(); source++) {
            if (sources.get(Integer.toString(source)) == null) {
                return;
            }
        }
        for (SourceProgress progress : sources.entries().values()) {
            if (!progress.idle()) {
                anyBusy = true;
                least = Math.min(least, progress.closedUntil());
            }
        }
        if (anyBusy) {
            closedUntil = least;
        }
    }

    private long minuteCutoff() {
        return closedUntil == Long.MIN_VALUE ? Long.MIN_VALUE
                : closedUntil - ROLLING_MINUTES * MINUTE - RETENTION_SLACK.toMillis();
    }

    private long hourCutoff() {
        return closedUntil == Long.MIN_VALUE ? Long.MIN_VALUE : closedUntil - HOUR - RETENTION_SLACK.toMillis();
    }

    /**
     * Sends, for each key with unsent minutes or hours, what is due ({@code idle}: all of it), and
     * asks for a commit if anything live went out, or anything once the input is quiet; then lets go of
     * what the roll-ups no longer need. What a backlog's replay sends waits for the next commit the
     * engine makes anyway: a commit of its own would write every roll-up changed since the last one.
     */
    private void sendUpdates() {
        boolean idle = input.quietAtUpdate();
        long now = context.currentSystemTimeMs();
        long sentBefore = rollupsSent;
        sentLiveSinceUpdate = false;
        boolean hoursDue = idle || hoursSentAt == Long.MIN_VALUE
                || now - hoursSentAt >= HOUR_UPDATE_INTERVAL.toMillis();
        if (hoursDue) {
            hoursSentAt = now;
        }
        for (Iterator<String> keys = keysWithUnsent.iterator(); keys.hasNext();) {
            String key = keys.next();
            RollupState state = store.get(key);
            if (state == null || !sendKey(key, state, idle, hoursDue, now)) {
                keys.remove();
            }
        }
        if (sentLiveSinceUpdate || idle && rollupsSent > sentBefore) {
            // Readers wait for these: committed now rather than at the longest commit interval.
            context.commit();
        }
        if (closedUntil != Long.MIN_VALUE && (lastExpiry == Long.MIN_VALUE || closedUntil - lastExpiry >= MINUTE)) {
            expire();
            lastExpiry = closedUntil;
        }
    }

    /** Sends what is due of one key's minutes, hours and rolling views; true if some of it was held back. */
    private boolean sendKey(String key, RollupState state, boolean idle, boolean hoursDue, long now) {
        long sentBefore = rollupsSent;
        Set<Long> rollingEnds = new TreeSet<>();
        boolean heldBack = sendMinutes(key, state, idle, now, rollingEnds);
        heldBack |= sendHours(key, state, idle, hoursDue, now);
        for (long newest : rollingEnds) {
            send(key, state, newest + MINUTE - ROLLING_MINUTES * MINUTE, ROLLING_MINUTES * MINUTE,
                    rolling(state.minutes, newest));
        }
        if (rollupsSent > sentBefore) {
            // Sent is kept too (each minute's marked as it went): a restart sends again only what was not.
            store.put(key, state);
        }
        return heldBack;
    }

    /**
     * Sends the key's changed minutes that are due (a job's with its economics), and gathers in
     * {@code rollingEnds} the newest minutes of the rolling views they change; true if any minute
     * or rolling view was held back.
     */
    private boolean sendMinutes(String key, RollupState state, boolean idle, long now, Set<Long> rollingEnds) {
        boolean heldBack = false;
        for (Map.Entry<Long, RollupState.Sum> minute : state.minutes.entrySet()) {
            if (!minute.getValue().unsent || !charged(minute.getValue())) {
                continue;
            }
            if (!idle && !due(minute.getKey(), MINUTE, now)) {
                heldBack = true;
                continue;
            }
            UsageRollup minuteRollup = send(key, state, minute.getKey(), MINUTE, minute.getValue());
            minuteStore.markDirty(RollupState.minuteKey(key, minute.getKey()));
            if (state.dimension == Dimension.JOB) {
                context.forward(new Record<>(state.id, (Object) JobEconomics.of(minuteRollup,
                        minute.getValue().work), minuteRollup.windowStart().toEpochMilli()), Outputs.ECONOMICS);
            }
            for (int later = 0; later < ROLLING_MINUTES; later++) {
                long newest = minute.getKey() + later * MINUTE;
                RollupState.Sum ending = state.minutes.get(newest);
                if (ending == null) {
                    continue;
                }
                if (idle || due(newest, MINUTE, now)) {
                    rollingEnds.add(newest);
                } else {
                    // Its rolling view goes out with it, when it is due.
                    ending.unsent = true;
                    minuteStore.markDirty(RollupState.minuteKey(key, newest));
                    heldBack = true;
                }
            }
        }
        return heldBack;
    }

    /**
     * Sends the key's changed hours that are due: all once idle, a complete one at once, a live one
     * when {@code hoursDue}; true if any was held back.
     */
    private boolean sendHours(String key, RollupState state, boolean idle, boolean hoursDue, long now) {
        boolean heldBack = false;
        for (Map.Entry<Long, RollupState.Sum> hour : state.hours.entrySet()) {
            if (!hour.getValue().unsent) {
                continue;
            }
            // A complete hour goes out at once: it may be dropped before the next minute of wall clock.
            if (!idle && !complete(hour.getKey(), HOUR) && !(hoursDue && live(hour.getKey(), HOUR, now))) {
                heldBack = true;
                continue;
            }
            send(key, state, hour.getKey(), HOUR, hour.getValue());
        }
        return heldBack;
    }

    /**
     * Whether a changed minute or hour goes out now: when it is live (its end plus the grace
     * period is not past yet, by the wall clock) or complete (every task sending partials has
     * closed it). In between it is being replayed from a backlog, and sending each of
     * its many versions would only slow the replay down; it goes out once the backlog is worked
     * off, at the latest.
     */
    private boolean due(long start, long length, long now) {
        return live(start, length, now) || complete(start, length);
    }

    private boolean live(long start, long length, long now) {
        return start + length + settings.grace().toMillis() >= now;
    }

    private boolean complete(long start, long length) {
        return start + length <= closedUntil;
    }

    private UsageRollup send(String key, RollupState state, long start, long length, RollupState.Sum sum) {
        sum.unsent = false;
        sentLiveSinceUpdate |= live(start, length, context.currentSystemTimeMs());
        rollupsSent++;
        UsageRollup rollup = new UsageRollup(state.dimension, state.id, Instant.ofEpochMilli(start),
                Instant.ofEpochMilli(start + length), state.currency, sum.gpus, sum.gpuEquivalents,
                sum.totals.snapshot());
        // Dated by its start, as usage windows are: an hour's end lies up to an hour ahead, and
        // brokers refuse (or keep too long) records dated in the future.
        context.forward(new Record<>(key, (Object) rollup, start), Outputs.ROLLUPS);
        return rollup;
    }

    /**
     * Whether any GPU time was charged or found unmonitored in it: a job minute that so far holds
     * only work reports waits for its cost before it is sent.
     */
    private static boolean charged(RollupState.Sum sum) {
        return sum.totals.samples() > 0 || sum.totals.unmonitoredSeconds() > 0;
    }

    /** The minutes of the rolling view that ends with the minute starting at {@code newest}. */
    private static RollupState.Sum rolling(TreeMap<Long, RollupState.Sum> minutes, long newest) {
        RollupState.Sum sum = new RollupState.Sum();
        for (RollupState.Sum minute : minutes.subMap(newest - (ROLLING_MINUTES - 1) * MINUTE, true, newest, true)
                .values()) {
            sum.totals.add(minute.totals);
            sum.gpus = Math.max(sum.gpus, minute.gpus);
            sum.gpuEquivalents = Math.max(sum.gpuEquivalents, minute.gpuEquivalents);
        }
        return sum;
    }

    /** Drops the minutes and hours past retention, and the jobs, teams and pools left with none. */
    private void expire() {
        long minuteCutoff = minuteCutoff();
        long hourCutoff = hourCutoff();
        List<String> emptied = new ArrayList<>();
        for (Map.Entry<String, RollupState> entry : store.entries().entrySet()) {
            RollupState state = entry.getValue();
            boolean dropped = !state.minutes.headMap(minuteCutoff).isEmpty()
                    || !state.hours.headMap(hourCutoff).isEmpty();
            if (!dropped) {
                continue;
            }
            for (long start : state.minutes.headMap(minuteCutoff).keySet()) {
                minuteStore.delete(RollupState.minuteKey(entry.getKey(), start));
            }
            state.minutes.headMap(minuteCutoff).clear();
            state.hours.headMap(hourCutoff).clear();
            if (state.minutes.isEmpty() && state.hours.isEmpty()) {
                emptied.add(entry.getKey());
            } else {
                store.put(entry.getKey(), state);
            }
        }
        emptied.forEach(store::delete);
    }
}
