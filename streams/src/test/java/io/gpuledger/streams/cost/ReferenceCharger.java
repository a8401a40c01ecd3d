package io.gpuledger.streams.cost;

import io.gpuledger.model.Allocation;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.TelemetrySample;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A second opinion on the cost engine's figures, deliberately naive and sharing none of its code:
 * it walks every second of every GPU, in the order the samples arrived, by the contract's rules
 * alone.
 *
 * <ul>
 *   <li>A sample covers the seconds whose middle lies in the interval it reports, from
 *       {@code time - intervalSeconds} (inclusive) to {@code time} (exclusive).</li>
 *   <li>A second is charged once, to the first sample that covered it; a later sample covering it
 *       again adds nothing.</li>
 *   <li>A second costs the hourly price of the GPU's offer in force at the second's middle (the
 *       version with the latest {@code validFrom} at or before it), divided by the instance's
 *       GPUs, times the sample's share of the GPU, over 3,600. No version in force: unpriced.</li>
 *   <li>Seconds between two covered seconds of a GPU, when no more than {@code maxGapSeconds}
 *       apart, are unmonitored, times the GPU's share, and cost what they would have: each at the
 *       price in force at its middle.</li>
 *   <li>A shared GPU's second (its sample lists allocations) is charged whole to the GPU and its pool, and
 *       to each allocation's job its share of it; to each allocation's team (the sample's own where it names
 *       none) its jobs' shares; what is left of 1 to the sample's team, as unallocated cost, which the pool
 *       counts too. Its unmonitored seconds are the GPU's, its pool's and its sample's team's: no job's.</li>
 *   <li>A minute closes once a sample taken before (one that was charged at least a second) has a
 *       middle at or after the minute's end plus the grace period; a second in a closed minute is
 *       not charged (it is late), and a sample charged no second moves nothing.</li>
 * </ul>
 * Samples it is told are refused (from the future, poison) are not charged.
 */
final class ReferenceCharger {

    /** What one subject (a GPU, job, team or pool) was charged. */
    static final class Charged {
        double cost;
        double seconds;
        double unpricedSeconds;
        double unmonitoredSeconds;
        double unmonitoredCost;
        double unallocatedCost;

        @Override
        public String toString() {
            return String.format("cost %.9f, seconds %.3f, unpriced %.3f, unmonitored %.3f costing %.9f,"
                    + " unallocated %.9f", cost, seconds, unpricedSeconds, unmonitoredSeconds, unmonitoredCost,
                    unallocatedCost);
        }
    }

    /** The totals the reference arrived at, by subject. */
    record Totals(Map<String, Charged> gpus, Map<String, Charged> jobs, Map<String, Charged> teams,
            Map<String, Charged> pools) {
    }

    private final Map<String, List<PriceQuote>> versionsByOffer = new HashMap<>();
    private final long maxGapSeconds;
    private final long graceMillis;
    /** The middle of the latest sample taken, in epoch millis: the clock that closes minutes. */
    private long latest = Long.MIN_VALUE;
    /** Per GPU: the sample that first covered each epoch second. */
    private final Map<String, TreeMap<Long, TelemetrySample>> owners = new HashMap<>();

    ReferenceCharger(List<PriceQuote> quotes, long maxGapSeconds, long graceMillis) {
        for (PriceQuote quote : quotes) {
            versionsByOffer.computeIfAbsent(offerOf(quote.provider(), quote.region(), quote.instanceType(),
                    quote.lifecycle().name()), k -> new ArrayList<>()).add(quote);
        }
        this.maxGapSeconds = maxGapSeconds;
        this.graceMillis = graceMillis;
    }

    /** Takes one accepted sample, in arrival order. */
    void accept(TelemetrySample sample) {
        long endMillis = sample.time().toEpochMilli();
        long fromMillis = endMillis - Math.round(sample.intervalSeconds() * 1000);
        TreeMap<Long, TelemetrySample> covered = owners.computeIfAbsent(sample.gpuUuid(), k -> new TreeMap<>());
        List<Long> charged = new ArrayList<>();
        // Every second from the one before the interval to the one after it, tested one by one.
        for (long second = Math.floorDiv(fromMillis, 1000) - 1; second <= Math.floorDiv(endMillis, 1000) + 1;
                second++) {
            long middle = second * 1000 + 500;
            long minuteEnd = (Math.floorDiv(second, 60) + 1) * 60_000;
            boolean closed = minuteEnd + graceMillis <= latest;
            if (middle >= fromMillis && middle < endMillis && !closed && !covered.containsKey(second)) {
                charged.add(second);
            }
        }
        for (long second : charged) {
            covered.put(second, sample);
        }
        if (!charged.isEmpty()) {
            latest = Math.max(latest, (fromMillis + endMillis) / 2);
        }
    }

    Totals totals() {
        Totals totals = new Totals(new HashMap<>(), new HashMap<>(), new HashMap<>(), new HashMap<>());
        for (Map.Entry<String, TreeMap<Long, TelemetrySample>> gpu : owners.entrySet()) {
            Long previous = null;
            for (Map.Entry<Long, TelemetrySample> second : gpu.getValue().entrySet()) {
                TelemetrySample owner = second.getValue();
                Double price = pricePerGpuHour(owner, second.getKey() * 1000 + 500);
                for (Part part : partsOf(totals, owner)) {
                    Charged charged = part.subject();
                    double share = owner.chargedFraction() * part.share();
                    charged.seconds += share;
                    if (price == null) {
                        charged.unpricedSeconds += share;
                    } else {
                        charged.cost += price * share / 3600;
                        charged.unallocatedCost += price * owner.chargedFraction() * part.unallocated() / 3600;
                    }
                    if (previous != null && part.unmonitored()) {
                        double whole = owner.chargedFraction();
                        long gap = second.getKey() - previous - 1;
                        if (gap > 0 && gap <= maxGapSeconds) {
                            charged.unmonitoredSeconds += gap * whole;
                            for (long unseen = previous + 1; unseen < second.getKey(); unseen++) {
                                Double unseenPrice = pricePerGpuHour(owner, unseen * 1000 + 500);
                                charged.unmonitoredCost += unseenPrice == null ? 0 : unseenPrice * whole / 3600;
                            }
                        }
                    }
                }
                previous = second.getKey();
            }
        }
        return totals;
    }

    /**
     * What a subject takes of a second: {@code share} of it, of which {@code unallocated} no job took, and
     * whether its unmonitored time too (then the whole GPU's).
     */
    private record Part(Charged subject, double share, double unallocated, boolean unmonitored) {
    }

    private static List<Part> partsOf(Totals totals, TelemetrySample owner) {
        List<Part> parts = new ArrayList<>(4);
        double left = 1;
        for (Allocation allocation : owner.allocations()) {
            left -= allocation.share();
            parts.add(new Part(totals.jobs().computeIfAbsent(allocation.jobId(), k -> new Charged()),
                    allocation.share(), 0, false));
            String team = allocation.team() != null ? allocation.team() : owner.team();
            if (team != null) {
                parts.add(new Part(totals.teams().computeIfAbsent(team, k -> new Charged()), allocation.share(), 0,
                        false));
            }
        }
        boolean shared = owner.shared();
        double unallocated = shared ? Math.max(0, left) : 0;
        parts.add(new Part(totals.gpus().computeIfAbsent(owner.gpuUuid(), k -> new Charged()), 1, unallocated, true));
        if (!shared) {
            parts.add(new Part(totals.jobs().computeIfAbsent(owner.jobId(), k -> new Charged()), 1, 0, true));
        }
        if (owner.team() != null) {
            parts.add(new Part(totals.teams().computeIfAbsent(owner.team(), k -> new Charged()),
                    shared ? unallocated : 1, unallocated, true));
        }
        parts.add(new Part(totals.pools().computeIfAbsent(poolOf(owner), k -> new Charged()), 1, unallocated, true));
        return parts;
    }

    /** The pool's id as the engine's roll-ups name it: provider, region, instance type and lifecycle. */
    static String poolOf(TelemetrySample sample) {
        return offerOf(sample.provider(), sample.region(), sample.instanceType(), sample.lifecycle().wire());
    }

    private Double pricePerGpuHour(TelemetrySample sample, long atMillis) {
        List<PriceQuote> versions = versionsByOffer.getOrDefault(offerOf(sample.provider(), sample.region(),
                sample.instanceType(), sample.lifecycle().name()), List.of());
        PriceQuote inForce = null;
        for (PriceQuote version : versions) {
            if (version.validFrom().toEpochMilli() <= atMillis
                    && (inForce == null || version.validFrom().isAfter(inForce.validFrom()))) {
                inForce = version;
            }
        }
        return inForce == null ? null : inForce.pricePerHour() / inForce.gpuCount();
    }

    private static String offerOf(String provider, String region, String instanceType, String lifecycle) {
        return provider + "|" + region + "|" + instanceType + "|" + lifecycle;
    }
}
