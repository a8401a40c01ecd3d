package io.gpuledger.streams.cost;

import io.gpuledger.model.TelemetrySample;
import io.gpuledger.model.UsageRollup.Dimension;
import io.gpuledger.model.UsageTotals;
import io.gpuledger.streams.state.CommitSends;
import io.gpuledger.streams.state.LiveStore;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/**
 * The minute partials of a task's jobs, teams and pools that {@link GpuWindows} adds its samples
 * and unmonitored time to, until the next update, or the next commit, sends them to the roll-ups.
 *
 * <p>Every commit sends them first ({@link LiveStore#beforeEachWrite}), whichever task asked for it: the
 * tasks of a stream thread commit together, and a partial pending at another task's commit would
 * otherwise be written to the store's changelog there, and deleted again once sent, two records for
 * nothing. So the store's changelog stays empty; it is kept for a commit this hook would miss.
 */
final class TaskPartials {

    private static final Dimension[] DIMENSIONS = Dimension.GROUPS.toArray(new Dimension[0]);

    private final String currency;
    private ProcessorContext<String, Object> context;
    private LiveStore<PendingPartial> pending;

    TaskPartials(String currency) {
        this.currency = currency;
    }

    void init(ProcessorContext<String, Object> context, LiveStore<PendingPartial> pending) {
        this.context = context;
        this.pending = pending;
        pending.beforeEachWrite(CommitSends.inScopeOf(context, this::sendAll));
    }

    /**
     * Adds what a sample is charged for the minute starting at {@code start} to the partials of the
     * window, which the task's {@code work} on it holds while they are pending.
     */
    void add(GpuState.Window window, GpuCache.WindowWork work, GpuIdentity identity, long start,
            UsageTotals charged) {
        String[] partialKeys = work.partialKeys(identity, start);
        if (work.partials == null) {
            work.partials = new PendingPartial[partialKeys.length];
        }
        boolean counted = window.countedAll(identity);
        for (Dimension dimension : DIMENSIONS) {
            int d = dimension.ordinal();
            PendingPartial partial = work.partials[d];
            if (partial == null || partial.sentAndDropped) {
                partial = pendingPartial(dimension, identity.idIn(dimension), partialKeys[d], start);
                work.partials[d] = partial;
            } else {
                pending.markDirty(partialKeys[d], partial);
            }
            partial.totals.add(charged);
            if (!counted && window.countIn(identity.rollupKeys[d])) {
                partial.gpus++;
                partial.gpuEquivalents += identity.fraction;
            }
        }
        window.countedAllOf(identity);
    }

    /**
     * Adds a shared GPU's charge for the minute starting at {@code start} to the partials of its jobs, teams
     * and pool, each by its part; the GPU counts in each of them once a minute, as much GPU as its share. The
     * node's team counts it only for a rest it took, or a job of its own: with shares that add up to 1 (an even
     * split always does) it took nothing but the rounding of the rest, and no GPU. The teams and the pool are
     * offered first: a minute counts in at most {@link GpuState.Window#countIn 255 keys}, and a GPU shared by
     * more jobs than that still counts in its pool and teams, and in its first jobs.
     */
    void addShared(GpuState.Window window, ShareTargets targets, SharedCharge.Slots split, long start) {
        boolean counted = window.countedAll(targets);
        boolean nodeTeamOnly = window.countedAllButNodeTeam(targets);
        boolean nodeTeamOpen = false;
        int slots = targets.slots();
        for (int offered = 0; offered < slots; offered++) {
            int slot = (offered + targets.jobCount()) % slots;
            String key = targets.partialKey(slot, start);
            PendingPartial partial = targets.partial(slot, start);
            if (partial == null || partial.sentAndDropped) {
                partial = pendingPartial(targets.dimensions[slot], targets.ids[slot], key, start);
                targets.keepPartial(slot, partial);
            } else {
                pending.markDirty(key, partial);
            }
            partial.totals.add(split.samples[slot], split.sums[slot], split.means[slot]);
            if (counted || nodeTeamOnly && slot != targets.nodeTeam) {
                continue;
            }
            if (slot == targets.nodeTeam && !targets.nodeTeamHasJobs
                    && split.shares[slot] <= TelemetrySample.SHARES_TOLERANCE) {
                // Offered again with the next sample, which may leave a rest.
                nodeTeamOpen = true;
            } else if (window.countIn(targets.rollupKeys[slot])) {
                partial.gpus++;
                partial.gpuEquivalents += targets.identity.fraction * split.shares[slot];
            }
        }
        if (!counted) {
            window.countedAllOf(targets, nodeTeamOpen);
        }
    }

    /**
     * Adds a GPU's unmonitored time in the minute starting at {@code minute} to the partials of its identity:
     * a shared GPU's to its team and pool only, as no job's share of time nobody observed is known. A minute
     * {@code shared} at any sample is a shared GPU's: its window keeps a shared sample's identity, and
     * {@code shared} still says so of a window stored by the release before, whose identity is its latest sample's.
     */
    void addGap(GpuIdentity identity, long minute, UsageTotals gap, boolean shared) {
        for (Dimension dimension : DIMENSIONS) {
            if (!identity.charges(dimension) || dimension == Dimension.JOB && shared) {
                continue;
            }
            pendingPartial(dimension, identity.idIn(dimension),
                    RollupPartial.partialKey(identity.rollupKeys[dimension.ordinal()], minute), minute)
                    .totals.add(gap);
        }
    }

    /** The task's pending partial {@code key}, a new one if none is pending, marked changed. */
    private PendingPartial pendingPartial(Dimension dimension, String id, String key, long minute) {
        PendingPartial partial = pending.get(key);
        if (partial == null) {
            partial = new PendingPartial(dimension, id, minute, 0, 0, new RunningTotals());
        }
        pending.put(key, partial);
        return partial;
    }

    /** Sends every pending partial and forgets it: whoever still holds one starts a new one. */
    void sendAll() {
        List<String> keys = new ArrayList<>(pending.entries().keySet());
        for (String key : keys) {
            PendingPartial partial = pending.get(key);
            partial.sentAndDropped = true;
            RollupPartial rollupPartial = partial.toPartial(currency);
            context.forward(new Record<>(rollupPartial.rollupKey(), (Object) rollupPartial,
                    rollupPartial.windowStart()), Outputs.PARTIALS);
            pending.delete(key);
        }
    }
}
