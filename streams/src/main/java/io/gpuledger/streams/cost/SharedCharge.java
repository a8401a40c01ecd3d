package io.gpuledger.streams.cost;

import io.gpuledger.model.Allocation;
import io.gpuledger.model.SharePolicy;
import io.gpuledger.model.UsageRollup.Dimension;
import io.gpuledger.model.UsageTotals;
import io.gpuledger.model.UsageTotals.Sum;
import java.util.ArrayList;
import java.util.Arrays;
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
 * <p>The engine splits every shared sample into the arrays of the GPU's {@link ShareTargets}, one slot per
 * job, team and the pool, reused from sample to sample: a quarter of a fleet shared sends millions of shared
 * samples a minute, and a value per part made them cost twice a sample of one job.
 *
 * @param whole what the GPU's own window and its pool take: the whole charge, its time counted as
 *              shared (each part's by its allocation's policy, the rest's by that of the largest share, or
 *              {@code even} where the sample lists no job),
 *              with the rest's cost as unallocated
 * @param parts what each job, team and the pool take, each key once, in the order of the {@link ShareTargets}
 *              slots: jobs, teams, pool
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
        return split(charged, allocations, identity, null);
    }

    /** As {@link #split(UsageTotals, List, GpuIdentity)}, into {@code scratch} as the engine splits (if it fits). */
    static SharedCharge split(UsageTotals charged, List<Allocation> allocations, GpuIdentity identity, Slots scratch) {
        ShareTargets targets = ShareTargets.of(null, allocations, identity);
        Slots slots = targets.split(charged, allocations, scratch);
        List<Part> parts = new ArrayList<>(targets.slots());
        for (int slot = 0; slot < targets.slots(); slot++) {
            parts.add(new Part(targets.dimensions[slot], targets.ids[slot], targets.rollupKeys[slot],
                    slots.shares[slot], slots.totals(slot)));
        }
        return new SharedCharge(slots.totals(targets.slots() - 1), parts);
    }

    /**
     * A sample's split, slot by slot, as {@link UsageTotals#addTo} lays totals out; overwritten by the next. A task
     * splits every shared GPU's samples into the same one: kept per GPU, a fleet's worth of them missed the
     * processor's caches at every sample.
     */
    static final class Slots {

        private static final SharePolicy[] POLICIES = SharePolicy.values();
        private static final int GPU_SECONDS = Sum.GPU_SECONDS.ordinal();
        private static final int COST = Sum.COST.ordinal();
        private static final int UNALLOCATED_COST = Sum.UNALLOCATED_COST.ordinal();

        final long[] samples;
        final double[][] sums;
        final double[][] means;
        final double[] shares;
        private final double[] givenSums = new double[RunningTotals.SUMS];
        private final double[] givenMeans = new double[RunningTotals.MEAN_PARTS];
        private final double[] sharedSeconds = new double[POLICIES.length];

        Slots(int slots) {
            samples = new long[slots];
            sums = new double[slots][RunningTotals.SUMS];
            means = new double[slots][RunningTotals.MEAN_PARTS];
            shares = new double[slots];
        }

        /** How many slots it holds at most. */
        int capacity() {
            return samples.length;
        }

        /** The totals of {@code slot}, made anew. */
        UsageTotals totals(int slot) {
            return UsageTotals.of(samples[slot], sums[slot], means[slot]);
        }

        /** Splits {@code charged} by {@code allocations} into the slots of {@code targets}, which made these. */
        void split(UsageTotals charged, List<Allocation> allocations, ShareTargets targets) {
            int pool = targets.slots() - 1;
            clear(pool + 1);
            int jobs = targets.jobCount();
            long counted = charged.samples();
            double allocated = 0;
            // The rest's time counts as shared by the policy of the largest share: evenly among none where the
            // sample lists no job, all of it the rest.
            SharePolicy restPolicy = SharePolicy.EVEN;
            double largest = -1;
            for (int i = 0; i < jobs; i++) {
                Allocation allocation = allocations.get(i);
                double share = allocation.share();
                charged.addPartTo(share, sums[i], means[i]);
                samples[i] = counted;
                add(givenSums, givenMeans, sums[i], means[i]);
                allocated += share;
                if (share > largest) {
                    largest = share;
                    restPolicy = allocation.measuredBy();
                }
                markShared(sums[i], allocation.measuredBy());
                shares[i] = share;
                addToTeam(targets.teamOf[i], share, counted, sums[i], means[i]);
            }
            // The rest, in the pool's slot for now: the charge less what was given out.
            double[] restSums = sums[pool];
            double[] restMeans = means[pool];
            charged.addTo(restSums, restMeans);
            for (int k = 0; k < restSums.length; k++) {
                restSums[k] -= givenSums[k];
            }
            for (int k = 0; k < restMeans.length; k++) {
                restMeans[k] -= givenMeans[k];
            }
            restSums[UNALLOCATED_COST] += restSums[COST];
            markShared(restSums, restPolicy);
            addToTeam(targets.nodeTeam, Math.max(0, 1 - allocated), counted, restSums, restMeans);
            // The pool's slot: the whole charge, its rest's cost unallocated, its time shared by each policy.
            double unallocated = restSums[UNALLOCATED_COST];
            Arrays.fill(restSums, 0);
            Arrays.fill(restMeans, 0);
            charged.addTo(restSums, restMeans);
            restSums[UNALLOCATED_COST] += unallocated;
            for (SharePolicy policy : POLICIES) {
                if (sharedSeconds[policy.ordinal()] != 0) {
                    restSums[Sum.sharedSeconds(policy).ordinal()] += sharedSeconds[policy.ordinal()];
                }
            }
            samples[pool] = counted;
            shares[pool] = 1;
        }

        private void clear(int slots) {
            Arrays.fill(samples, 0, slots, 0);
            Arrays.fill(shares, 0, slots, 0);
            for (int slot = 0; slot < slots; slot++) {
                Arrays.fill(sums[slot], 0);
                Arrays.fill(means[slot], 0);
            }
            Arrays.fill(givenSums, 0);
            Arrays.fill(givenMeans, 0);
            Arrays.fill(sharedSeconds, 0);
        }

        /** Counts a part's GPU time as shared by {@code policy}. */
        private void markShared(double[] partSums, SharePolicy policy) {
            double seconds = partSums[GPU_SECONDS];
            sharedSeconds[policy.ordinal()] += seconds;
            partSums[Sum.sharedSeconds(policy).ordinal()] += seconds;
        }

        /** Adds a part to a team's slot: the sample counts once in a team, however many of its jobs shared it. */
        private void addToTeam(int slot, double share, long counted, double[] partSums, double[] partMeans) {
            add(sums[slot], means[slot], partSums, partMeans);
            samples[slot] = counted;
            shares[slot] += share;
        }

        private static void add(double[] toSums, double[] toMeans, double[] moreSums, double[] moreMeans) {
            for (int k = 0; k < toSums.length; k++) {
                toSums[k] += moreSums[k];
            }
            for (int k = 0; k < toMeans.length; k++) {
                toMeans[k] += moreMeans[k];
            }
        }
    }
}
