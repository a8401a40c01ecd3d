// Over 400 lines: the per-sample path (read, judge, price, window, count) and the window close, which share its state.
package io.gpuledger.streams.cost;

import io.gpuledger.model.InvalidRecordException;
import io.gpuledger.model.TelemetrySample;
import io.gpuledger.model.Topics;
import io.gpuledger.model.UsageRollup.Dimension;
import io.gpuledger.model.UsageTotals;
import io.gpuledger.streams.deadletter.ParseOrReject;
import io.gpuledger.streams.price.PriceTable;
import io.gpuledger.streams.price.PriceWrites;
import io.gpuledger.streams.state.LiveStore;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Charges each sample at the price in force at its time and adds it, once, to its GPU's minute
 * windows and to the minute partials of the GPU's job, team and pool, each second at the price in
 * force at its middle; seconds of windows already closed are counted as late
 * ({@code late-seconds-total}).
 *
 * <ul>
 *   <li>Every {@code updateInterval} of wall-clock time it sends each GPU's newest window if it
 *       changed ({@code closed=false}) and the partials gathered since, and asks for a commit:
 *       readers see the update at once, not at the longest commit interval. While it works off a
 *       backlog, windows that ended longer ago than the grace period wait until it is done.</li>
 *   <li>A window closes when the latest event time passes its end plus the grace period: its
 *       unmonitored time is settled and it is sent a last time, {@code closed=true}. A sample that
 *       ends more than {@link CostSettings#maxAhead} after the wall clock, or after the broker took
 *       it where the broker dates the telemetry ({@link CostSettings#latestTime}), is refused as
 *       from the future, so that one node whose clock runs fast cannot close its task's other
 *       windows, live or while the engine works off a backlog.</li>
 *   <li>A sample is charged only for the seconds no sample of its GPU covered before, and one that
 *       covers none is refused as a duplicate: a sample sent again, or a second agent reporting
 *       the same GPU, charges no second twice.</li>
 * </ul>
 * Usage records are dated by their window's start. The state is in {@link LiveStore}s, so a sample
 * costs map lookups and the state is encoded once per commit. Its parts: {@link GpuPricing},
 * {@link SampleRefusals}, {@link TaskPartials}, {@link GpuOwnViews} and {@link WindowUpdates}.
 */
final class GpuWindows implements Processor<String, byte[], String, Object> {

    private static final long MINUTE = GpuState.MINUTE_MILLIS;
    private static final String LATEST = "latest-event-time";

    private final CostSettings settings;
    private final PriceWrites priceWrites;
    private final String currency;
    private ProcessorContext<String, Object> context;
    private GpuPricing pricing;
    private LiveStore<GpuState> gpus;
    private LiveStore<GpuIdentity> identities;
    /** The task's partials of jobs, teams and pools, sent at each update. */
    private final TaskPartials partials;
    /** Where the task splits each shared sample's charge: one for all its GPUs, see {@link SharedCharge.Slots}. */
    private SharedCharge.Slots split;
    private LiveStore<Long> clock;
    /** Checks each sample its GPU's reader read; those it refuses go to the dead letters, as {@code telemetry}'s. */
    private final ParseOrReject<TelemetrySample> reader = new ParseOrReject<>("telemetry", TelemetrySample.class,
            TelemetrySample::gpuUuid, EventTime::millis);
    private SampleRefusals refusals;
    /** The stored latest event time, read once after the task starts. */
    private Long latestEventTime;
    /** What is sent at each update: changed windows, partials, progress; and when to commit. */
    private final WindowUpdates updates;
    /**
     * The end of the next window due to close; 0 until the first sample after a start. Kafka Streams initialises the
     * same processor again when it revives a task (its state gone back to the last commit): every field that follows
     * the state is set again at {@link #init}, as the state's own are.
     */
    private long nextClose;
    /** Each GPU's own rolling five minutes and hour, sent as its minutes close. */
    private final GpuOwnViews ownViews;

    /** @param priceWrites counts the versions written to the price store, for the task's price table */
    GpuWindows(CostSettings settings, PriceWrites priceWrites) {
        this.settings = settings;
        this.priceWrites = priceWrites;
        this.currency = settings.rates().reporting();
        this.partials = new TaskPartials(currency);
        this.updates = new WindowUpdates(settings, currency, partials);
        this.ownViews = new GpuOwnViews(currency);
    }

    @Override
    public void init(ProcessorContext<String, Object> context) {
        this.context = context;
        KeyValueStore<String, byte[]> priceStore = context.getStateStore(CostTopology.PRICE_STORE);
        this.pricing = new GpuPricing(settings, context, new PriceTable(priceStore, settings.priceMaxAge(),
                priceWrites));
        this.gpus = context.getStateStore(CostTopology.USAGE_STORE);
        this.identities = context.getStateStore(CostTopology.IDENTITY_STORE);
        this.ownViews.init(context, context.getStateStore(CostTopology.RECENT_STORE), identities::get);
        this.partials.init(context, context.getStateStore(CostTopology.PARTIALS_STORE));
        this.clock = context.getStateStore(CostTopology.CLOCK_STORE);
        this.latestEventTime = null;
        this.nextClose = 0;
        this.updates.init(context, gpus, clock, this::latestEventTime);
        // Whether an open window was sent before a restart or a hand-over is not kept: each is sent
        // again as it stands, or one whose GPU reports no more would wait for its close, which
        // never comes once the task's whole input stops.
        // A task starts with a new cache of each GPU: what it kept before lists windows no update knows of.
        gpus.entries().forEach((gpu, state) -> {
            state.cache = new GpuCache();
            updates.resendOpenWindows(gpu, stateOf(gpu, state), state.cache);
        });
        this.refusals = new SampleRefusals(settings, context);
        context.schedule(settings.updateInterval(), PunctuationType.WALL_CLOCK_TIME, now -> updates.send());
    }

    @Override
    public void process(Record<String, byte[]> record) {
        updates.sampleCame();
        String gpu = record.key();
        GpuState stored = stateOf(gpu, gpus.get(gpu));
        // A GPU's first sample covers nothing charged before: a new state refuses none. It is
        // kept only if the sample is taken.
        GpuState state = stored != null ? stored : new GpuState();
        GpuCache cache = cacheOf(state);
        TelemetrySample sample = readOrRefuse(record, gpu, cache);
        if (sample == null || !charge(record, gpu, state, cache, sample)) {
            return;
        }
        if (stored == null) {
            gpus.put(gpu, state);
        }
        updates.sampleTaken();
        advanceClock(EventTime.millis(sample));
    }

    /** The record's sample; null if it is refused, as invalid or from the future, and dead-lettered. */
    private TelemetrySample readOrRefuse(Record<String, byte[]> record, String gpu, GpuCache cache) {
        TelemetrySample sample;
        try {
            // Through the GPU's own reader: an identity written as in the GPU's last sample is not
            // read again, and its strings are those of the GPU's identity, compared by reference.
            sample = reader.check(gpu, cache.sampleReader.read(record.value()), context.currentSystemTimeMs());
        } catch (InvalidRecordException e) {
            refusals.invalid(record, e);
            return null;
        }
        long now = context.currentSystemTimeMs();
        long latest = settings.latestTime(Topics.TELEMETRY.name(), now, record.timestamp());
        if (sample.time().toEpochMilli() > latest + settings.maxAhead().toMillis()) {
            refusals.fromTheFuture(record, sample, latest, latest < now);
            return null;
        }
        return sample;
    }

    /** Charges a sample to the open minutes it covers; true if any of it was charged. */
    private boolean charge(Record<String, byte[]> record, String gpu, GpuState state, GpuCache cache,
            TelemetrySample sample) {
        SampleSpan span = SampleSpan.of(sample);
        long latestMillis = latestEventTime();
        Charging charging = new Charging(record, gpu, state, cache, sample);
        return span.spansMinutes()
                ? chargeMinutes(charging, span, latestMillis)
                : chargeOneMinute(charging, span, latestMillis);
    }

    /**
     * The time a sample covers, each figure in the unit its rule needs: the epoch seconds
     * {@code [firstSecond, endSecond)} whose middles its interval spans (empty for a sample under a
     * second long), and its own middle in epoch milliseconds.
     */
    private record SampleSpan(long firstSecond, long endSecond, long middleMillis) {

        static SampleSpan of(TelemetrySample sample) {
            long endMillis = sample.time().toEpochMilli();
            return new SampleSpan(GpuState.firstSecond(endMillis - Math.round(sample.intervalSeconds() * 1000)),
                    GpuState.firstSecond(endMillis), EventTime.millis(sample));
        }

        boolean coversASecond() {
            return firstSecond < endSecond;
        }

        /** Whether its seconds lie in more than one minute. */
        boolean spansMinutes() {
            return coversASecond() && GpuState.minuteOf(firstSecond) != GpuState.minuteOf(endSecond - 1);
        }

        /** When its price is looked up: the middle of its first second, or its own middle if it covers none. */
        long pricedAtMillis() {
            return coversASecond() ? middleOf(firstSecond) : middleMillis;
        }
    }

    /** Moves the task's clock on to a taken sample's time {@code at}, if later, closing the minutes it closes. */
    private void advanceClock(long at) {
        if (at <= latestEventTime()) {
            return;
        }
        clock.put(LATEST, at);
        latestEventTime = at;
        long closeBefore = at - settings.grace().toMillis();
        if (closeBefore >= nextClose) {
            // A minute's closing sends the closed window of every GPU at once. Readers wait for
            // the live windows, not for those: the live ones changed since the last update go
            // out ahead of the burst, and all of it is committed now rather than at the update.
            // While a backlog is worked off nobody waits for it live: it is committed with the
            // engine's next commit; one of its own would write every GPU changed, and send every
            // partial pending, for the few samples since the last.
            long liveFrom = context.currentSystemTimeMs() - settings.grace().toMillis() - MINUTE;
            boolean live = at >= liveFrom;
            if (live) {
                updates.sendChangedWindows(false, liveFrom);
            }
            closeWindows(closeBefore);
            if (live) {
                context.commit();
            }
        }
    }

    /**
     * Charges a sample whose seconds all lie in one minute and at one price, as most do: the
     * seconds no sample covered before, at that price, in that minute's window, unless the window
     * has closed. One whose seconds a price change splits goes to {@link #chargeMinutes}. True if
     * it was charged.
     */
    private boolean chargeOneMinute(Charging charging, SampleSpan span, long latestMillis) {
        TelemetrySample sample = charging.sample();
        GpuState state = charging.state();
        // One that covers no second's middle (under a second long) goes to the minute of its middle.
        long startMillis = span.coversASecond() ? GpuState.minuteOf(span.firstSecond()) * 1000
                : EventTime.periodStart(span.middleMillis(), MINUTE);
        if (closed(startMillis, latestMillis)) {
            refusals.lateSeconds(sample.intervalSeconds() * sample.chargedFraction());
            refusals.late(charging.record(), "its window ended at " + Instant.ofEpochMilli(startMillis + MINUTE),
                    latestMillis);
            return false;
        }
        GpuIdentity identity = identityOf(state, sample);
        long pricedAtMillis = span.pricedAtMillis();
        PriceTable.InForce price = pricing.inForce(charging.cache(), identity, pricedAtMillis);
        if (span.coversASecond() && !pricing.holdsOver(price, span.firstSecond(), span.endSecond())) {
            return chargeMinutes(charging, span, latestMillis);
        }
        double share = 1;
        if (span.coversASecond()) {
            int fresh = state.coverNew(span.firstSecond(), span.endSecond());
            if (fresh == 0) {
                refusals.duplicate(charging.record(), sample);
                return false;
            }
            share = (double) fresh / (span.endSecond() - span.firstSecond());
        }
        keep(charging.gpu(), state, identity);
        Double perHour = pricing.perGpuHour(price, pricedAtMillis);
        addToWindow(charging, identity, startMillis, UsageTotals.ZERO.add(sample, perHour,
                price.staleAt(span.middleMillis()), share));
        return true;
    }

    /**
     * Charges a sample whose seconds lie in several minutes (a long sample, or one that straddles
     * a minute's end) or under several prices: in each minute still open, the seconds of it no
     * sample covered before, each run of them at the price in force at the run's seconds (a
     * second is priced at its middle, as it is covered). The seconds in minutes closed already
     * are counted as late; if all are, the sample is refused as late. True if any of it was charged.
     */
    private boolean chargeMinutes(Charging charging, SampleSpan span, long latestMillis) {
        TelemetrySample sample = charging.sample();
        GpuState state = charging.state();
        long firstSecond = span.firstSecond();
        long endSecond = span.endSecond();
        GpuIdentity identity = identityOf(state, sample);
        List<PricedRun> runs = new ArrayList<>();
        long lateCount = 0;
        for (long minuteSecond = GpuState.minuteOf(firstSecond); minuteSecond < endSecond; minuteSecond += 60) {
            long partFirst = Math.max(firstSecond, minuteSecond);
            long partEnd = Math.min(endSecond, minuteSecond + 60);
            if (closed(minuteSecond * 1000, latestMillis)) {
                lateCount += partEnd - partFirst;
                continue;
            }
            long minuteStartMillis = minuteSecond * 1000;
            pricing.forEachRun(charging.cache(), identity, partFirst, partEnd, (price, runFirst, runEnd) -> {
                int fresh = state.coverNew(runFirst, runEnd);
                if (fresh > 0) {
                    long atMillis = (middleOf(runFirst) + middleOf(runEnd - 1)) / 2;
                    runs.add(new PricedRun(minuteStartMillis, fresh, price, atMillis));
                }
            });
        }
        double covered = endSecond - firstSecond;
        if (lateCount > 0) {
            refusals.lateSeconds(sample.intervalSeconds() * sample.chargedFraction() * lateCount / covered);
        }
        if (lateCount == covered) {
            long lastEndMillis = GpuState.minuteOf(endSecond - 1) * 1000 + MINUTE;
            refusals.late(charging.record(), "its last window ended at " + Instant.ofEpochMilli(lastEndMillis),
                    latestMillis);
            return false;
        }
        if (runs.isEmpty()) {
            refusals.duplicate(charging.record(), sample);
            return false;
        }
        keep(charging.gpu(), state, identity);
        long counted = Long.MIN_VALUE;
        for (PricedRun run : runs) {
            UsageTotals charged = UsageTotals.ZERO.add(sample, pricing.perGpuHour(run.price, run.atMillis),
                    run.price.staleAt(run.atMillis), run.fresh / covered);
            // The sample counts once in each minute it is charged in, whatever the prices of its seconds.
            addToWindow(charging, identity, run.minuteStartMillis,
                    run.minuteStartMillis == counted ? charged.uncounted() : charged);
            counted = run.minuteStartMillis;
        }
        return true;
    }

    /** A sample being charged, and the GPU's record, state and cache it is charged with. */
    private record Charging(Record<String, byte[]> record, String gpu, GpuState state, GpuCache cache,
            TelemetrySample sample) {
    }

    /** Seconds of a sample charged together: in one minute, at one price, priced at {@code atMillis}. */
    private record PricedRun(long minuteStartMillis, int fresh, PriceTable.InForce price, long atMillis) {
    }

    private static long middleOf(long second) {
        return GpuPricing.middleOf(second);
    }

    /** Whether the window starting at {@code startMillis} has closed by the engine's clock {@code latestMillis}. */
    private boolean closed(long startMillis, long latestMillis) {
        return startMillis + MINUTE + settings.grace().toMillis() <= latestMillis;
    }

    /**
     * The GPU's identity as {@code sample} gives it: its kept one while the sample says the same.
     * Not kept until {@link #keep} (a refused sample changes nothing).
     */
    private static GpuIdentity identityOf(GpuState state, TelemetrySample sample) {
        return state.identity == null ? GpuIdentity.of(sample) : state.identity.following(sample);
    }

    /** Keeps {@code identity} as the GPU's, if it changed. */
    private void keep(String gpu, GpuState state, GpuIdentity identity) {
        if (identity != state.identity) {
            state.identity = identity;
            identities.put(gpu, identity);
        }
    }

    /**
     * Adds what a sample is charged for the minute starting at {@code start} to the GPU's window and partials:
     * to its job's, team's and pool's, or, on a shared GPU, split among its jobs ({@link SharedCharge}).
     */
    private void addToWindow(Charging charging, GpuIdentity identity, long start, UsageTotals charged) {
        GpuCache.WindowWork work = charging.cache().window(start);
        GpuState.Window window = work.stored;
        if (window == null) {
            window = charging.state().window(start);
            work.stored = window;
        }
        GpuIdentity before = window.identity;
        // A minute once shared stays its shared samples' (the node's team's): a later sample of one job takes its part,
        // while the rest, the idle time and the gap stay with the team the engine gave the rest to.
        if (before == null || identity.shared() || !window.shared()) {
            window.identity = identity;
        }
        TelemetrySample sample = charging.sample();
        // A sample that says its GPU is shared but lists no job is split too, among none: all of it is the rest.
        if (identity.shared()) {
            GpuCache cache = charging.cache();
            cache.shareTargets = ShareTargets.of(cache.shareTargets, sample.allocations(), identity);
            split = cache.shareTargets.split(charged, sample.allocations(), split);
            window.addShared(cache.shareTargets, split, before);
            partials.addShared(window, cache.shareTargets, split, start);
        } else {
            window.addSole(before, identity, charged);
            partials.add(window, work, identity, start, charged);
        }
        updates.markUnsent(charging.gpu(), charging.cache(), work);
        gpus.markDirty(charging.gpu(), charging.state());
    }

    /** The GPU's cache, a new one for a GPU new to the task. */
    private static GpuCache cacheOf(GpuState state) {
        if (state.cache == null) {
            state.cache = new GpuCache();
        }
        return state.cache;
    }

    /** A GPU's state as read from its store, with its latest identity attached if it was just read back. */
    private GpuState stateOf(String gpu, GpuState state) {
        if (state != null && state.identity == null) {
            state.attach(identities.get(gpu));
        }
        return state;
    }

    private long latestEventTime() {
        if (latestEventTime == null) {
            Long stored = clock.get(LATEST);
            latestEventTime = stored == null ? Long.MIN_VALUE : stored;
        }
        return latestEventTime;
    }

    /** Closes every window that ends at or before {@code closeBefore}, on every GPU of this task. */
    private void closeWindows(long closeBefore) {
        List<String> forgotten = new ArrayList<>();
        for (Map.Entry<String, GpuState> entry : gpus.entries().entrySet()) {
            GpuState state = stateOf(entry.getKey(), entry.getValue());
            if (close(entry.getKey(), state, closeBefore)) {
                gpus.markDirty(entry.getKey());
            }
            if (state.windows.isEmpty() && state.coverage().isEmpty()
                    && (state.settledUntil == GpuState.NONE
                        || closeBefore / 1000 - state.settledUntil > settings.maxGap().toSeconds())) {
                forgotten.add(entry.getKey());
            }
        }
        for (String gpu : forgotten) {
            ownViews.forget(gpu, identities.get(gpu));
            gpus.delete(gpu);
            identities.delete(gpu);
        }
        // A GPU silent at its hour's end may come back within the maximum gap, whose minutes then close into that
        // hour: its hour is not sent as a silent GPU's until no such gap can come.
        ownViews.endSilentHours(closeBefore - settings.maxGap().toMillis(), gpu -> gpus.get(gpu) != null);
        nextClose = EventTime.periodStart(closeBefore, MINUTE) + MINUTE;
    }

    /** Settles and sends the GPU's minutes that end by {@code closeBefore}; true if any was. */
    private boolean close(String gpu, GpuState state, long closeBefore) {
        boolean closedAny = false;
        for (long minute = nextToSettle(state); minute != Long.MAX_VALUE && minute + MINUTE <= closeBefore;
                minute = nextToSettle(state)) {
            closedAny = true;
            GpuState.Window window = state.removeWindow(minute);
            GpuCache cache = cacheOf(state);
            cache.forget(minute);
            GpuIdentity identity = window != null ? window.identity : state.identity;
            double[] gapCost = {0};
            double unmonitored = state.settle(minute, settings.maxGap().toSeconds(),
                    (from, to) -> gapCost[0] += pricing.unmonitoredCost(cache, identity, from, to)) * identity.fraction;
            if (window == null && unmonitored == 0) {
                continue;
            }
            double unmonitoredCost = gapCost[0];
            UsageTotals totals = (window != null ? window.totals.snapshot() : UsageTotals.ZERO)
                    .plusUnmonitored(unmonitored, unmonitoredCost);
            context.forward(new Record<>(gpu, (Object) identity.usage(gpu, minute, currency, totals, window, true),
                    minute), Outputs.USAGE);
            ownViews.addMinute(gpu, minute, totals, identity, partsOf(window, identity, totals));
            if (unmonitored > 0) {
                UsageTotals gap = UsageTotals.ZERO.plusUnmonitored(unmonitored, unmonitoredCost);
                partials.addGap(identity, minute, gap, window != null && window.shared());
            }
        }
        return closedAny;
    }

    /**
     * What each job took of a closed minute, {@code totals} with its unmonitored time: its parts where it was shared
     * or its samples named several jobs, or all of it its one job's; null for none. The time no sample covered goes,
     * as the roll-ups give it ({@link TaskPartials#addGap}), to the job the minute names, unless it was shared.
     */
    private static JobParts partsOf(GpuState.Window window, GpuIdentity identity, UsageTotals totals) {
        boolean shared = identity.shared() || window != null && window.shared();
        if (window != null && window.jobParts != null) {
            if (!shared) {
                window.jobParts.addUnmonitored(identity.jobId, identity.idIn(Dimension.TEAM), totals);
            }
            return window.jobParts;
        }
        return shared ? null : JobParts.sole(identity.jobId, identity.idIn(Dimension.TEAM), totals);
    }

    /**
     * The start of the GPU's next minute to settle: its first open window or covered minute, or,
     * when a gap since its settled coverage will count as unmonitored, the first minute of that gap.
     */
    private long nextToSettle(GpuState state) {
        long next = Long.MAX_VALUE;
        if (!state.windows.isEmpty()) {
            next = state.windows.firstKey();
        }
        if (!state.coverage().isEmpty()) {
            next = Math.min(next, state.coverage().firstKey());
        }
        if (state.settledUntil != GpuState.NONE) {
            long resumed = state.firstCoveredFrom(state.settledUntil);
            if (resumed != GpuState.NONE && resumed - state.settledUntil <= settings.maxGap().toSeconds()) {
                long gapMinute = Math.floorDiv(state.settledUntil + 59, 60) * MINUTE;
                next = Math.min(next, gapMinute);
            }
        }
        return next;
    }
}
