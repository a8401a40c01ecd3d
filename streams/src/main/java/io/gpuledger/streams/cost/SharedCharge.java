package io.gpuledger.streams.cost;

import io.gpuledger.model.Allocation;
import io.gpuledger.model.SharePolicy;
import io.gpuledger.model.UsageRollup.Dimension;
import io.gpuledger.model.UsageTotals;
import java.util.ArrayList;
import java.util.List;

/**
 * What a shared GPU's sample (time-slicing, MPS, a vGPU, a shared MIG slice) is charged, split among
 * the jobs that used it. Each {@link Allocation}'s job takes its share of every figure that grows
 * with time (GPU seconds, cost, idle time, energy, NVLink bytes, the weights of the means), and its
 * team (the node's when the allocation names none) the sum of its jobs' parts. What no share took
 * (idle time, processes the agent could not map to a job) is the <em>unallocated</em> rest: it goes
 * to the node's team ({@code unassigned} when the node names none) and is counted as
 * {@code unallocatedCost} there, in the GPU's own window and in its pool, which keep the whole charge.
 *
 * <p>The rest is the charge less the parts given out, figure by figure, not the charge times the
 * share left: the jobs' costs and the unallocated cost then add up to the GPU's cost to the last
 * rounding of one sum (about 1e-16 of it), whatever the shares, and over a month of samples of one
 * GPU the drift stays under a millionth of a cent. Exact decimal arithmetic would cost more on every
 * shared sample than charging it does, for no difference a bill can show.
 *
 * @param whole what the GPU's own window and its pool take: the whole charge, its time counted as
 *              shared (each part's by its allocation's policy, the rest's by that of the largest share),
 *              with the rest's cost as unallocated
 * @param parts what each job, team and the pool take, each key once, in the order of the {@link ShareTargets}
 *              slots: jobs, teams, pool
 */
record SharedCharge(UsageTotals whole, List<Part> parts) {

    private static final SharePolicy[] POLICIES = SharePolicy.values();

    /**
     * One roll-up's part of the charge.
     *
     * @param rollupKey {@code dimension|id}
     * @param share     the part of the GPU it took: a job's share, the sum of a team's, 1 for the pool
     */
    record Part(Dimension dimension, String id, String rollupKey, double share, UsageTotals totals) {
    }

    /**
     * Splits {@code charged}, a shared GPU's whole charge for some of its seconds (it counts the sample,
     * or not, as the minute's charge does), by {@code allocations}; {@code identity} is the GPU's.
     */
    static SharedCharge split(UsageTotals charged, List<Allocation> allocations, GpuIdentity identity) {
        return split(charged, allocations, ShareTargets.of(null, allocations, identity));
    }

    /** As {@link #split(UsageTotals, List, GpuIdentity)}, to {@code targets} made for {@code allocations}. */
    static SharedCharge split(UsageTotals charged, List<Allocation> allocations, ShareTargets targets) {
        int jobs = targets.jobCount();
        int slots = targets.slots();
        UsageTotals[] totals = new UsageTotals[slots];
        double[] shares = new double[slots];
        double[] sharedSeconds = new double[POLICIES.length];
        RunningTotals given = new RunningTotals();
        double allocated = 0;
        Allocation largest = allocations.get(0);
        for (int i = 0; i < jobs; i++) {
            Allocation allocation = allocations.get(i);
            UsageTotals part = charged.part(allocation.share());
            given.add(part);
            allocated += allocation.share();
            if (allocation.share() > largest.share()) {
                largest = allocation;
            }
            sharedSeconds[allocation.measuredBy().ordinal()] += part.gpuSeconds();
            totals[i] = part.sharedBy(allocation.measuredBy());
            shares[i] = allocation.share();
            addTo(totals, shares, targets.teamOf[i], allocation.share(), totals[i]);
        }
        SharePolicy restPolicy = largest.measuredBy();
        UsageTotals rest = charged.less(given.snapshot()).sharedBy(restPolicy);
        sharedSeconds[restPolicy.ordinal()] += rest.gpuSeconds();
        addTo(totals, shares, targets.nodeTeam, Math.max(0, 1 - allocated), rest);
        UsageTotals whole = charged.plusUnallocated(rest.unallocatedCost());
        for (SharePolicy policy : POLICIES) {
            if (sharedSeconds[policy.ordinal()] != 0) {
                whole = whole.plusShared(policy, sharedSeconds[policy.ordinal()]);
            }
        }
        totals[slots - 1] = whole;
        shares[slots - 1] = 1;
        List<Part> parts = new ArrayList<>(slots);
        for (int slot = 0; slot < slots; slot++) {
            parts.add(new Part(targets.dimensions[slot], targets.ids[slot], targets.rollupKeys[slot], shares[slot],
                    totals[slot] != null ? totals[slot] : UsageTotals.ZERO));
        }
        return new SharedCharge(whole, parts);
    }

    /** Adds a part to a team's slot: the sample counts once in a team, however many of its jobs shared the GPU. */
    private static void addTo(UsageTotals[] totals, double[] shares, int slot, double share, UsageTotals part) {
        totals[slot] = totals[slot] == null ? part : totals[slot].plus(part.uncounted());
        shares[slot] += share;
    }
}
