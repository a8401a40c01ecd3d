package io.gpuledger.streams.cost;

import io.gpuledger.model.Allocation;
import io.gpuledger.model.SharePolicy;
import io.gpuledger.model.UsageRollup;
import io.gpuledger.model.UsageRollup.Dimension;
import io.gpuledger.model.UsageTotals;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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
 * @param parts what each job, team and the pool take, each key once, in the order job, team, pool
 */
record SharedCharge(UsageTotals whole, List<Part> parts) {

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
        List<Part> parts = new ArrayList<>(2 * allocations.size() + 1);
        Map<String, Part> teams = new LinkedHashMap<>();
        UsageTotals given = UsageTotals.ZERO;
        UsageTotals whole = charged;
        double shares = 0;
        Allocation largest = allocations.get(0);
        for (Allocation allocation : allocations) {
            UsageTotals part = charged.part(allocation.share());
            given = given.plus(part.uncounted());
            shares += allocation.share();
            if (allocation.share() > largest.share()) {
                largest = allocation;
            }
            UsageTotals jobPart = part.sharedBy(allocation.measuredBy());
            whole = whole.plusShared(allocation.measuredBy(), part.gpuSeconds());
            parts.add(part(Dimension.JOB, allocation.jobId(), allocation.share(), jobPart));
            String team = allocation.team() != null ? allocation.team() : identity.team;
            addToTeam(teams, team, allocation.share(), jobPart);
        }
        SharePolicy restPolicy = largest.measuredBy();
        UsageTotals rest = charged.less(given).sharedBy(restPolicy);
        addToTeam(teams, identity.team, Math.max(0, 1 - shares), rest);
        parts.addAll(teams.values());
        whole = whole.plusShared(restPolicy, rest.gpuSeconds()).plusUnallocated(rest.unallocatedCost());
        parts.add(new Part(Dimension.POOL, identity.offer.key(), identity.rollupKeys[Dimension.POOL.ordinal()], 1,
                whole));
        return new SharedCharge(whole, parts);
    }

    private static Part part(Dimension dimension, String id, double share, UsageTotals totals) {
        return new Part(dimension, id, UsageRollup.keyOf(dimension, id), share, totals);
    }

    /** Adds a part to its team's: the sample counts once in a team, however many of its jobs shared the GPU. */
    private static void addToTeam(Map<String, Part> teams, String team, double share, UsageTotals totals) {
        String id = UsageRollup.idOf(Dimension.TEAM, null, team, null);
        Part held = teams.get(id);
        teams.put(id, held == null ? part(Dimension.TEAM, id, share, totals)
                : part(Dimension.TEAM, id, held.share + share, held.totals.plus(totals.uncounted())));
    }
}
