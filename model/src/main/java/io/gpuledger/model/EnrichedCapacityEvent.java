package io.gpuledger.model;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A capacity notice with what ran on its instance when it arrived. Keyed on
 * {@link Topics#CAPACITY_EVENTS_ENRICHED} by the instance id; published once per notice received.
 *
 * <p>An instance is bought at one price, so its amounts are in one currency: that of its first
 * priced GPU. A GPU with no known price, or priced in another currency, is listed and counted in
 * its job's GPUs but not added to any amount; {@code unpricedGpus} counts them, so that a total
 * that leaves something out says so.
 *
 * @param event               the notice as received
 * @param placementStatus     whether the GPUs and jobs below are known, and if not, why
 * @param placementUpdatedAt  end of the newest usage window known for the instance, listed or
 *                            not; null when none is known
 * @param gpus                the instance's GPUs that reported recently, by index
 * @param jobs                the distinct jobs on those GPUs, most GPUs first: a shared GPU's jobs each
 *                            count it, with their part of its cost per hour
 * @param costPerHour         what the listed GPUs cost together, in {@code currency}
 * @param currency            null when no listed GPU has a price
 */
public record EnrichedCapacityEvent(
        int schemaVersion,
        CapacityEvent event,
        PlacementStatus placementStatus,
        Instant placementUpdatedAt,
        List<PlacedGpu> gpus,
        List<PlacedJob> jobs,
        double costPerHour,
        String currency,
        int unpricedGpus) {

    public static final int SCHEMA_VERSION = 1;

    public EnrichedCapacityEvent {
        if (schemaVersion < 1) {
            throw new InvalidRecordException("schemaVersion", "must be at least 1, was " + schemaVersion);
        }
        Check.present("event", event);
        Check.present("placementStatus", placementStatus);
        gpus = gpus == null ? List.of() : List.copyOf(gpus);
        jobs = jobs == null ? List.of() : List.copyOf(jobs);
        if (placementStatus != PlacementStatus.CURRENT && !gpus.isEmpty()) {
            throw new InvalidRecordException("gpus", "must be empty when the placement is " + placementStatus);
        }
        Check.nonNegative("costPerHour", costPerHour);
        if (currency != null) {
            Check.currency("currency", currency);
        }
        if (unpricedGpus < 0 || unpricedGpus > gpus.size()) {
            throw new InvalidRecordException("unpricedGpus",
                    "must be between 0 and the GPUs listed, was " + unpricedGpus);
        }
    }

    /**
     * A notice for an instance of which usage is known. {@code gpus} are those that reported
     * recently; none at all makes the placement {@link PlacementStatus#OUTDATED}.
     */
    public static EnrichedCapacityEvent placed(CapacityEvent event, Instant placementUpdatedAt, List<PlacedGpu> gpus) {
        List<PlacedGpu> byIndex = gpus.stream()
                .sorted(Comparator.comparingInt(PlacedGpu::gpuIndex).thenComparing(PlacedGpu::gpuUuid))
                .toList();
        String currency = byIndex.stream().filter(PlacedGpu::priced).map(PlacedGpu::currency).findFirst().orElse(null);
        Map<String, int[]> gpusOfJob = new LinkedHashMap<>();
        Map<String, Double> costOfJob = new LinkedHashMap<>();
        double total = 0;
        int unpriced = 0;
        for (PlacedGpu gpu : byIndex) {
            boolean counted = gpu.priced() && gpu.currency().equals(currency);
            double cost = counted ? gpu.costPerHour() : 0;
            total += cost;
            unpriced += counted ? 0 : 1;
            if (!gpu.sharedBy().isEmpty()) {
                // A shared GPU is each of its jobs', for their parts of its cost; the rest is no job's.
                for (JobShare share : gpu.sharedBy()) {
                    gpusOfJob.computeIfAbsent(share.jobId(), job -> new int[1])[0]++;
                    costOfJob.merge(share.jobId(), cost * share.share(), Double::sum);
                }
            } else if (!TelemetrySample.SHARED_JOB.equals(gpu.jobId())) {
                gpusOfJob.computeIfAbsent(gpu.jobId(), job -> new int[1])[0]++;
                costOfJob.merge(gpu.jobId(), cost, Double::sum);
            }
            // (Shared, yet no job it lists took a part of it: all of it is the unallocated rest.)
        }
        List<PlacedJob> jobs = new ArrayList<>();
        gpusOfJob.forEach((job, count) -> jobs.add(new PlacedJob(job, count[0], costOfJob.get(job))));
        jobs.sort(Comparator.comparingInt(PlacedJob::gpus).reversed().thenComparing(PlacedJob::jobId));
        PlacementStatus status = byIndex.isEmpty() ? PlacementStatus.OUTDATED : PlacementStatus.CURRENT;
        return builder().event(event).placementStatus(status).placementUpdatedAt(placementUpdatedAt).gpus(byIndex)
                .jobs(jobs).costPerHour(total).currency(currency).unpricedGpus(unpriced).build();
    }

    /** A notice for an instance of which no usage is known: nothing to list, and it says so. */
    public static EnrichedCapacityEvent unplaced(CapacityEvent event) {
        return builder().event(event).placementStatus(PlacementStatus.UNKNOWN).build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Fluent construction at the current schema version: nothing listed, nothing priced unless set. */
    public static final class Builder {
        private int schemaVersion = SCHEMA_VERSION;
        private CapacityEvent event;
        private PlacementStatus placementStatus;
        private Instant placementUpdatedAt;
        private List<PlacedGpu> gpus;
        private List<PlacedJob> jobs;
        private double costPerHour;
        private String currency;
        private int unpricedGpus;

        private Builder() {
        }

        public Builder schemaVersion(int value) { schemaVersion = value; return this; }
        public Builder event(CapacityEvent value) { event = value; return this; }
        public Builder placementStatus(PlacementStatus value) { placementStatus = value; return this; }
        public Builder placementUpdatedAt(Instant value) { placementUpdatedAt = value; return this; }
        public Builder gpus(List<PlacedGpu> value) { gpus = value; return this; }
        public Builder jobs(List<PlacedJob> value) { jobs = value; return this; }
        public Builder costPerHour(double value) { costPerHour = value; return this; }
        public Builder currency(String value) { currency = value; return this; }
        public Builder unpricedGpus(int value) { unpricedGpus = value; return this; }

        public EnrichedCapacityEvent build() {
            return new EnrichedCapacityEvent(schemaVersion, event, placementStatus, placementUpdatedAt, gpus, jobs,
                    costPerHour, currency, unpricedGpus);
        }
    }
}
