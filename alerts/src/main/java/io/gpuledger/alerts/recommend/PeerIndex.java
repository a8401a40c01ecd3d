package io.gpuledger.alerts.recommend;

import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Offer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.DoublePredicate;
import java.util.function.IntPredicate;
import java.util.function.Predicate;

/**
 * Other jobs' pictures as the switch-instance-type rule compares a job with them: those that
 * report throughput, grouped by what must match (unit, currency, how capacity is bought and the
 * workload), cheapest per million units first, each group also kept per provider and region (a
 * job stays in its own unless the deployment allows others). A job's peers worth switching to are
 * then the head of its group, and counting them is a binary search, where a scan of every peer for
 * every job's record grew with the square of the fleet's jobs.
 *
 * <p>Built once per snapshot of the peers ({@link JobBook#peers}); not safe for concurrent
 * building, safe for concurrent reading once built.
 */
final class PeerIndex {

    /**
     * What a peer must share with the job; {@code workload} is null in the groups of every workload,
     * {@code region} ({@code provider|region}) in the groups of every region.
     */
    private record Group(String unit, String currency, Lifecycle lifecycle, String workload, String region) {

        static Group of(JobView job, boolean byWorkload, boolean byRegion) {
            return new Group(job.unit(), job.currency(), job.pool().lifecycle(), byWorkload ? job.workload() : null,
                    byRegion ? job.pool().provider() + "|" + job.pool().region() : null);
        }
    }

    /** Where a job runs, as the rule tells places apart: the instance type's case does not count. */
    private record Place(String provider, String region, String instanceType) {

        static Place of(Offer pool) {
            return new Place(pool.provider(), pool.region(), pool.instanceType().toLowerCase(Locale.ROOT));
        }
    }

    /** Views cheapest first, and their costs and places in the same order. */
    private record Sorted(List<JobView> views, double[] costs, List<Place> places) {

        static Sorted of(List<JobView> views) {
            List<JobView> sorted = new ArrayList<>(views);
            sorted.sort(Comparator.comparingDouble(JobView::costPerMillionUnits));
            double[] costs = new double[sorted.size()];
            for (int i = 0; i < costs.length; i++) {
                costs[i] = sorted.get(i).costPerMillionUnits();
            }
            return new Sorted(List.copyOf(sorted), costs,
                    sorted.stream().map(view -> Place.of(view.pool())).toList());
        }

        /** How many views lead while {@code worthIt} holds of their cost (it must hold of a prefix). */
        int prefix(DoublePredicate worthIt) {
            int low = 0;
            int high = costs.length;
            while (low < high) {
                int middle = (low + high) >>> 1;
                if (worthIt.test(costs[middle])) {
                    low = middle + 1;
                } else {
                    high = middle;
                }
            }
            return low;
        }
    }

    private static final Sorted NONE = Sorted.of(List.of());

    /** The peers' own jobs' groups of one workload, of every workload, and of one workload in one place. */
    private final Map<Group, Sorted> byWorkload;
    private final Map<Group, Sorted> byUnit;
    private final Map<Group, Map<Place, Sorted>> byWorkloadAndPlace;
    private final Map<String, List<JobView>> byJob;

    private PeerIndex(Map<Group, Sorted> byWorkload, Map<Group, Sorted> byUnit,
            Map<Group, Map<Place, Sorted>> byWorkloadAndPlace, Map<String, List<JobView>> byJob) {
        this.byWorkload = byWorkload;
        this.byUnit = byUnit;
        this.byWorkloadAndPlace = byWorkloadAndPlace;
        this.byJob = byJob;
    }

    /** The index of {@code peers}, keeping their order among peers of equal cost. */
    static PeerIndex of(Collection<JobView> peers) {
        Map<Group, List<JobView>> byWorkload = new HashMap<>();
        Map<Group, List<JobView>> byUnit = new HashMap<>();
        Map<Group, Map<Place, List<JobView>>> byPlace = new HashMap<>();
        Map<String, List<JobView>> byJob = new HashMap<>();
        for (JobView peer : peers) {
            if (!peer.reportsThroughput()) {
                continue;
            }
            for (boolean byRegion : new boolean[] {false, true}) {
                Group group = Group.of(peer, true, byRegion);
                byWorkload.computeIfAbsent(group, key -> new ArrayList<>()).add(peer);
                byUnit.computeIfAbsent(Group.of(peer, false, byRegion), key -> new ArrayList<>()).add(peer);
                if (byRegion) {
                    // Places are counted within a region only: a job kept in its own region is what reads them.
                    byPlace.computeIfAbsent(group, key -> new HashMap<>())
                            .computeIfAbsent(Place.of(peer.pool()), key -> new ArrayList<>()).add(peer);
                }
            }
            byJob.computeIfAbsent(peer.jobId(), key -> new ArrayList<>()).add(peer);
        }
        Map<Group, Map<Place, Sorted>> sortedByPlace = new HashMap<>();
        byPlace.forEach((group, places) -> {
            Map<Place, Sorted> sorted = new HashMap<>();
            places.forEach((place, views) -> sorted.put(place, Sorted.of(views)));
            sortedByPlace.put(group, sorted);
        });
        return new PeerIndex(sorted(byWorkload), sorted(byUnit), sortedByPlace, byJob);
    }

    private static Map<Group, Sorted> sorted(Map<Group, List<JobView>> groups) {
        Map<Group, Sorted> sorted = new HashMap<>();
        groups.forEach((group, views) -> sorted.put(group, Sorted.of(views)));
        return sorted;
    }

    /** The cheapest peer worth switching to, and how many are. */
    record Comparison(Optional<JobView> cheapest, int worthIt) {
    }

    /**
     * The peers {@code job} may switch to: other jobs bought the same way, counting the same unit
     * in the same currency, on another instance type or region where {@code reach} lets it go, whose
     * cost per million units {@code worthIt} holds of; of the same workload when the job names one,
     * otherwise of any workload that {@code fits}.
     *
     * @param worthIt whether a cost per million units is worth switching to; it must hold of every
     *                cost below one it holds of (a saving grows as the cost falls)
     * @param fits    whether a peer's GPUs would hold the job; asked only when the job names no workload
     */
    Comparison compare(JobView job, DoublePredicate worthIt, Reach reach, Predicate<JobView> fits) {
        if (job.unit() == null) {
            return new Comparison(Optional.empty(), 0);
        }
        boolean byOwnWorkload = job.workload() != null;
        boolean ownRegion = !reach.otherRegions() && !reach.otherProviders();
        Sorted peers = (byOwnWorkload ? byWorkload : byUnit).getOrDefault(Group.of(job, byOwnWorkload, ownRegion),
                NONE);
        int cheaper = peers.prefix(worthIt);
        Place place = Place.of(job.pool());
        IntPredicate elsewhere = i -> !peers.views().get(i).jobId().equals(job.jobId())
                && !peers.places().get(i).equals(place);
        if (!ownRegion) {
            return scan(peers, cheaper, i -> elsewhere.test(i) && reach.allows(job.pool(), peers.views().get(i).pool())
                    && (byOwnWorkload || fits.test(peers.views().get(i))));
        }
        if (!byOwnWorkload) {
            return scan(peers, cheaper, i -> elsewhere.test(i) && fits.test(peers.views().get(i)));
        }
        JobView cheapest = null;
        for (int i = 0; i < cheaper && cheapest == null; i++) {
            if (elsewhere.test(i)) {
                cheapest = peers.views().get(i);
            }
        }
        if (cheapest == null) {
            return new Comparison(Optional.empty(), 0);
        }
        // The group's count, less its peers in the job's own place and the job's own pictures elsewhere.
        Group group = Group.of(job, true, true);
        int worthItCount = cheaper - byWorkloadAndPlace.getOrDefault(group, Map.of()).getOrDefault(place, NONE)
                .prefix(worthIt);
        for (JobView itself : byJob.getOrDefault(job.jobId(), List.of())) {
            if (!Place.of(itself.pool()).equals(place) && Group.of(itself, true, true).equals(group)
                    && worthIt.test(itself.costPerMillionUnits())) {
                worthItCount--;
            }
        }
        return new Comparison(Optional.of(cheapest), worthItCount);
    }

    /** Every one of the first {@code cheaper} views whose position {@code passes}, counted; the first kept. */
    private static Comparison scan(Sorted group, int cheaper, IntPredicate passes) {
        JobView cheapest = null;
        int count = 0;
        for (int i = 0; i < cheaper; i++) {
            if (passes.test(i)) {
                count++;
                if (cheapest == null) {
                    cheapest = group.views().get(i);
                }
            }
        }
        return new Comparison(Optional.ofNullable(cheapest), count);
    }
}
