package io.gpuledger.streams.cost;

import io.gpuledger.streams.state.LiveStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/**
 * What {@link GpuWindows} sends at each update interval, and when it asks for a commit: each
 * changed GPU's newest window (every changed window once the samples stop), the partials gathered
 * since the last update, and the task's progress to the roll-ups.
 */
final class WindowUpdates {

    private static final long MINUTE = GpuState.MINUTE_MILLIS;

    private final CostSettings settings;
    private final String currency;
    private ProcessorContext<String, Object> context;
    private LiveStore<GpuState> gpus;
    private final TaskPartials partials;
    private LiveStore<Long> clock;
    /** The task's latest event time; {@link Long#MIN_VALUE}: none yet. */
    private LongSupplier latestEventTime;
    /**
     * GPUs with unsent windows, in the order they changed; after a start, every GPU with an open window.
     */
    private final List<String> gpusWithUnsentWindows = new ArrayList<>();
    /** Whether the samples have stopped coming: then the backlog is worked off. */
    private final QuietInput input;
    /** Whether the samples have stopped coming long enough for this task to hold no roll-up back. */
    private final QuietInput samplesIdle;
    /** Likewise its work reports (or they never came). */
    private final QuietInput work;
    /** The latest time of this task's work reports, as {@link WorkPartials} stored it at the last update. */
    private long workSeenUntil = Long.MIN_VALUE;
    /** The progress last sent to the roll-ups; null after a start. */
    private SourceProgress progressSent;
    /** When to commit while working off a backlog. */
    private final BacklogCommits backlog;

    WindowUpdates(CostSettings settings, String currency, TaskPartials partials) {
        this.settings = settings;
        this.partials = partials;
        this.currency = currency;
        this.input = new QuietInput(settings);
        this.samplesIdle = new QuietInput(settings.idleUpdates());
        this.work = new QuietInput(settings.idleUpdates());
        this.backlog = new BacklogCommits(settings.backlogCommitUpdates());
    }

    void init(ProcessorContext<String, Object> context, LiveStore<GpuState> gpus, LiveStore<Long> clock,
            LongSupplier latestEventTime) {
        this.context = context;
        this.gpus = gpus;
        this.clock = clock;
        this.latestEventTime = latestEventTime;
        this.progressSent = null;
        this.workSeenUntil = Long.MIN_VALUE;
        gpusWithUnsentWindows.clear();
    }

    /** A sample came, taken or not. */
    void sampleCame() {
        input.seen();
    }

    /**
     * A sample was taken: only such a sample moves the task's progress. One whose samples are all
     * refused (a node whose clock runs ahead, poison) is idle to the roll-ups, or it would hold them back.
     */
    void sampleTaken() {
        samplesIdle.seen();
        backlog.sample(gpus.commits());
    }

    /** Lists a GPU read back after a start with each of its open windows unsent, to be sent as it stands. */
    void resendOpenWindows(String gpu, GpuState state, GpuCache cache) {
        state.windows.forEach((start, window) -> {
            GpuCache.WindowWork work = cache.window(start);
            work.stored = window;
            work.unsent = true;
        });
        cache.listedUnsent = !state.windows.isEmpty();
        if (cache.listedUnsent) {
            gpusWithUnsentWindows.add(gpu);
        }
    }

    /** Marks the window unsent, and lists its GPU for the next update if it is not listed already. */
    void markUnsent(String gpu, GpuCache cache, GpuCache.WindowWork window) {
        // A window already unsent has its GPU listed: only a newly unsent one may need listing.
        if (!window.unsent) {
            window.unsent = true;
            if (!cache.listedUnsent) {
                cache.listedUnsent = true;
                gpusWithUnsentWindows.add(gpu);
            }
        }
    }

    /**
     * Sends the windows changed since the last call, and the partials gathered since then followed
     * by this task's progress.
     */
    void send() {
        boolean idle = input.quietAtUpdate();
        boolean sourceIdle = samplesIdle.quietAtUpdate();
        boolean workIdle = workQuietAtUpdate();
        // A window that ended longer ago than the grace period is being replayed from a backlog:
        // its updates wait until the backlog is worked off (or it closes), as nobody watches it live.
        long liveFrom = context.currentSystemTimeMs() - settings.grace().toMillis() - MINUTE;
        // No GPU's newest window is live while the newest sample is older than that: skip them all.
        boolean live = idle || latestEventTime.getAsLong() >= liveFrom;
        boolean sentWindows = live && sendChangedWindows(idle, liveFrom);
        // Partials reach the roll-ups only once committed: while a backlog is worked off they
        // gather until the engine commits (any commit sends them, see TaskPartials), each pending
        // one adding more samples.
        // (Asked at every update, live or not: it counts the updates and the samples between them.)
        boolean backlogCommit = backlog.dueAtUpdate(gpus.commits(), gpus.pendingWrites()) && !live;
        boolean sentProgress = false;
        if (live || backlogCommit) {
            partials.sendAll();
            sentProgress = sendProgress(sourceIdle, workIdle);
        }
        if (sentWindows || backlogCommit || sentProgress) {
            // Live views wait for these: committed now rather than at the longest commit interval,
            // with the windows closed and the partials sent since the last commit.
            context.commit();
        }
    }

    /**
     * Sends the changed GPUs' windows that are due ({@code idle}: every changed one; else only a
     * GPU's newest, when it starts at or after {@code liveFrom}), keeps the GPUs with windows still
     * unsent listed, in their order, and says whether it sent any.
     */
    boolean sendChangedWindows(boolean idle, long liveFrom) {
        boolean sentWindows = false;
        int kept = 0;
        for (int i = 0; i < gpusWithUnsentWindows.size(); i++) {
            String gpu = gpusWithUnsentWindows.get(i);
            GpuState state = gpus.get(gpu);
            GpuCache cache = state == null ? null : state.cache;
            if (cache == null) {
                continue;
            }
            if (state.windows.isEmpty()) {
                cache.listedUnsent = false;
                continue;
            }
            // While samples come, only the newest window, and only when live: an older one still
            // open takes only late samples, and shows them when it closes, within the grace
            // period. Once they stop coming, every changed window, as it stands.
            boolean pending = false;
            long newest = state.windows.lastKey();
            for (Map.Entry<Long, GpuState.Window> entry : state.windows.entrySet()) {
                GpuState.Window window = entry.getValue();
                GpuCache.WindowWork work = cache.windowIfHeld(entry.getKey());
                if (work == null || !work.unsent) {
                    continue;
                }
                if (idle || (entry.getKey() == newest && newest >= liveFrom)) {
                    work.unsent = false;
                    sentWindows = true;
                    context.forward(new Record<>(gpu, (Object) window.identity.usage(gpu, entry.getKey(), currency,
                            window.totals.snapshot(), window, false), entry.getKey()), Outputs.USAGE);
                } else {
                    pending = true;
                }
            }
            if (pending) {
                gpusWithUnsentWindows.set(kept++, gpu);
            } else {
                cache.listedUnsent = false;
            }
        }
        gpusWithUnsentWindows.subList(kept, gpusWithUnsentWindows.size()).clear();
        return sentWindows;
    }

    /** Whether this task's work reports have been quiet for the updates needed: their latest time stopped moving. */
    private boolean workQuietAtUpdate() {
        Long latest = clock.get(WorkPartials.LATEST);
        if (latest != null && latest > workSeenUntil) {
            workSeenUntil = latest;
            work.seen();
        }
        return work.quietAtUpdate();
    }

    /**
     * Tells the roll-ups, right after the partials, up to where this task has sent all of them:
     * every minute that ended a grace period before its latest sample, and likewise before its
     * latest work report, of the inputs still coming. Sent when it changes; true if it was.
     */
    private boolean sendProgress(boolean samplesIdle, boolean workIdle) {
        long samplesClosed = closedBefore(latestEventTime.getAsLong());
        long workClosed = closedBefore(workSeenUntil);
        long closedUntil;
        if (samplesIdle && workIdle) {
            closedUntil = Math.max(samplesClosed, workClosed);
        } else {
            closedUntil = Math.min(samplesIdle ? Long.MAX_VALUE : samplesClosed,
                    workIdle ? Long.MAX_VALUE : workClosed);
        }
        SourceProgress progress = new SourceProgress(context.taskId().partition(), closedUntil,
                samplesIdle && workIdle);
        if (progress.equals(progressSent)) {
            return false;
        }
        progressSent = progress;
        // Dated when sent: its minute may be none yet, and it is no event of its own.
        context.forward(new Record<>(progress.key(), (Object) progress, context.currentSystemTimeMs()),
                Outputs.PARTIALS);
        return true;
    }

    /** Every minute that ends at or before it is closed once {@code latest} was seen; {@link Long#MIN_VALUE}: none. */
    private long closedBefore(long latest) {
        return latest == Long.MIN_VALUE ? Long.MIN_VALUE
                : EventTime.periodStart(latest - settings.grace().toMillis(), MINUTE);
    }
}
