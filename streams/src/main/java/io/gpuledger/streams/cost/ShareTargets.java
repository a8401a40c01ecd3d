package io.gpuledger.streams.cost;

import io.gpuledger.model.Allocation;
import io.gpuledger.model.UsageRollup;
import io.gpuledger.model.UsageRollup.Dimension;
import io.gpuledger.model.UsageTotals;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * Where a shared GPU's parts go: the roll-ups of its jobs, of their teams (with the node's team, which takes
 * the unallocated rest) and of its pool, each a slot: jobs first, in the order of the allocations, then teams,
 * then the pool. Made once while the GPU's samples name the same jobs and teams (their shares change from
 * sample to sample, whom they are for seldom does), with the keys of their partials for the latest minute.
 */
final class ShareTargets {

    final GpuIdentity identity;
    /** The allocations' jobs and teams as given, to tell whether a sample names the same. */
    private final String[] jobs;
    private final String[] teamsGiven;
    /** Per slot: dimension, id and roll-up key. */
    final Dimension[] dimensions;
    final String[] ids;
    final String[] rollupKeys;
    /** Per job: the slot of its team. */
    final int[] teamOf;
    /** The slot of the node's team, which takes the unallocated rest; the pool's is the last. */
    final int nodeTeam;
    /** Whether the node's team is also the team of one of the jobs (an allocation naming it, or none). */
    final boolean nodeTeamHasJobs;
    private long partialKeysStart = GpuState.NONE;
    private final String[] partialKeys;
    /** The partials of the minute {@code partialKeysStart}, by slot, while they are pending: null until looked up. */
    private final PendingPartial[] partials;

    private ShareTargets(GpuIdentity identity, List<Allocation> allocations) {
        this.identity = identity;
        int count = allocations.size();
        jobs = new String[count];
        teamsGiven = new String[count];
        teamOf = new int[count];
        List<String> teams = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Allocation allocation = allocations.get(i);
            jobs[i] = allocation.jobId();
            teamsGiven[i] = allocation.team();
            teamOf[i] = count + slotOf(teams, teamIdOf(allocation.team() != null ? allocation.team() : identity.team));
        }
        nodeTeam = count + slotOf(teams, teamIdOf(identity.team));
        nodeTeamHasJobs = Arrays.stream(teamOf).anyMatch(team -> team == nodeTeam);
        int slots = count + teams.size() + 1;
        dimensions = new Dimension[slots];
        ids = new String[slots];
        rollupKeys = new String[slots];
        for (int i = 0; i < count; i++) {
            set(i, Dimension.JOB, jobs[i]);
        }
        for (int t = 0; t < teams.size(); t++) {
            set(count + t, Dimension.TEAM, teams.get(t));
        }
        set(slots - 1, Dimension.POOL, identity.idIn(Dimension.POOL));
        partialKeys = new String[slots];
        partials = new PendingPartial[slots];
    }

    /** The targets of {@code allocations} on a GPU of {@code identity}: {@code held} if they are the same. */
    static ShareTargets of(ShareTargets held, List<Allocation> allocations, GpuIdentity identity) {
        return held != null && held.fits(allocations, identity) ? held : new ShareTargets(identity, allocations);
    }

    int slots() {
        return ids.length;
    }

    int jobCount() {
        return jobs.length;
    }

    /**
     * Splits a sample's charge by {@code allocations}, which these targets were made for, into {@code scratch} (or
     * a larger one, if it holds too few slots), and returns where it went.
     */
    SharedCharge.Slots split(UsageTotals charged, List<Allocation> allocations, SharedCharge.Slots scratch) {
        SharedCharge.Slots split = scratch != null && scratch.capacity() >= slots() ? scratch
                : new SharedCharge.Slots(slots());
        split.split(charged, allocations, this);
        return split;
    }

    /** The key of slot {@code slot}'s partial for the minute starting at {@code start}. */
    String partialKey(int slot, long start) {
        forMinute(start);
        String key = partialKeys[slot];
        if (key == null) {
            key = RollupPartial.partialKey(rollupKeys[slot], start);
            partialKeys[slot] = key;
        }
        return key;
    }

    /** Slot {@code slot}'s pending partial for the minute starting at {@code start}, as last kept; null: none. */
    PendingPartial partial(int slot, long start) {
        forMinute(start);
        return partials[slot];
    }

    void keepPartial(int slot, PendingPartial partial) {
        partials[slot] = partial;
    }

    private void forMinute(long start) {
        if (partialKeysStart != start) {
            Arrays.fill(partialKeys, null);
            Arrays.fill(partials, null);
            partialKeysStart = start;
        }
    }

    private boolean fits(List<Allocation> allocations, GpuIdentity of) {
        if (of != identity || allocations.size() != jobs.length) {
            return false;
        }
        for (int i = 0; i < jobs.length; i++) {
            Allocation allocation = allocations.get(i);
            if (!jobs[i].equals(allocation.jobId()) || !Objects.equals(teamsGiven[i], allocation.team())) {
                return false;
            }
        }
        return true;
    }

    private void set(int slot, Dimension dimension, String id) {
        dimensions[slot] = dimension;
        ids[slot] = id;
        rollupKeys[slot] = UsageRollup.keyOf(dimension, id);
    }

    private static String teamIdOf(String team) {
        return UsageRollup.idOf(Dimension.TEAM, null, team, null);
    }

    private static int slotOf(List<String> teams, String team) {
        int at = teams.indexOf(team);
        if (at < 0) {
            teams.add(team);
            at = teams.size() - 1;
        }
        return at;
    }
}
