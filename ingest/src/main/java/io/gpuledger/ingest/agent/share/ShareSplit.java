package io.gpuledger.ingest.agent.share;

import io.gpuledger.ingest.agent.usage.GpuUser;
import io.gpuledger.ingest.agent.usage.GpuUsers;
import io.gpuledger.ingest.agent.usage.Owner;
import io.gpuledger.model.Allocation;
import io.gpuledger.model.SharePolicy;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Splits a GPU's interval among the jobs whose processes (or containers) used it, by the pool's policy:
 * <ul>
 *   <li>{@code sm}: each job's share of the GPU's SM time; time no process used is idle, unallocated;</li>
 *   <li>{@code memory}: each job's memory over the GPU's memory; memory nobody holds is unallocated;</li>
 *   <li>{@code even}: each process present counts alike, so the shares add up to 1.</li>
 * </ul>
 * A process nobody could map to a job is unattributed: its part is measured like any other's and left
 * unallocated, never given to a job. Where the source measured no SM time (a MIG slice: NVML has no
 * per-process utilisation there; a GPU pmon does not watch), {@code sm} falls back to {@code memory}, and
 * {@code memory} without every process's memory and the GPU's total to {@code even}; each allocation says what
 * its share was measured by. Parts that add up to more than the whole (samples of overlapping windows, MPS
 * clients running at once) are scaled down together, unattributed ones included, so the shares add up to at
 * most 1.
 *
 * <p>One job alone, with no unattributed process, is a plain sample of that job, as before shares existed. A
 * GPU whose users are all unattributed names no job from them: it is sampled as without shares.
 */
public final class ShareSplit {

    private ShareSplit() {
    }

    /** The split of a GPU whose users' owners have been looked for ({@link GpuUser#owner()} null: unattributed). */
    public static Split split(GpuUsers gpu, SharePolicy policy) {
        List<GpuUser> users = gpu.users();
        Map<String, Owner> jobs = new LinkedHashMap<>();
        boolean unattributed = false;
        for (GpuUser user : users) {
            if (user.attributed()) {
                jobs.putIfAbsent(user.owner().jobId(), user.owner());
            } else {
                unattributed = true;
            }
        }
        if (jobs.isEmpty()) {
            return Split.none();
        }
        if (jobs.size() == 1 && !unattributed) {
            return Split.sole(jobs.values().iterator().next());
        }
        SharePolicy measuredBy = measurable(policy, gpu);
        double[] parts = new double[users.size()];
        double whole = 0;
        for (int i = 0; i < users.size(); i++) {
            parts[i] = part(users.get(i), measuredBy, users.size(), gpu.memoryTotalBytes());
            whole += parts[i];
        }
        double scale = whole > 1 ? 1 / whole : 1;
        Map<String, Double> shares = new LinkedHashMap<>();
        jobs.keySet().forEach(job -> shares.put(job, 0.0));
        for (int i = 0; i < users.size(); i++) {
            GpuUser user = users.get(i);
            if (user.attributed()) {
                shares.merge(user.owner().jobId(), parts[i] * scale, Double::sum);
            }
        }
        List<Allocation> allocations = new ArrayList<>();
        shares.forEach((job, share) -> allocations.add(
                new Allocation(job, jobs.get(job).team(), Math.min(1, share), measuredBy)));
        return Split.shared(allocations);
    }

    /** The policy the users' readings allow: SM time needs every user's, memory every user's and the total. */
    static SharePolicy measurable(SharePolicy policy, GpuUsers gpu) {
        boolean smKnown = !gpu.migSlice() && gpu.users().stream().allMatch(u -> u.smRatio() != null);
        boolean memoryKnown = gpu.memoryTotalBytes() != null && gpu.memoryTotalBytes() > 0
                && gpu.users().stream().allMatch(u -> u.memoryBytes() != null);
        if (policy == SharePolicy.SM && smKnown) {
            return SharePolicy.SM;
        }
        if (policy != SharePolicy.EVEN && memoryKnown) {
            return SharePolicy.MEMORY;
        }
        return SharePolicy.EVEN;
    }

    private static double part(GpuUser user, SharePolicy measuredBy, int users, Double memoryTotalBytes) {
        return switch (measuredBy) {
            case SM -> user.smRatio();
            case MEMORY -> user.memoryBytes() / memoryTotalBytes;
            case EVEN -> 1.0 / users;
        };
    }
}
