package io.gpuledger.ingest.sim;

import io.gpuledger.model.PriceQuote;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * A simulated fleet as it starts: instances of the catalog's types, each a node of one job, and
 * the jobs. About three GPUs in five train (most of them in data-parallel jobs over several whole
 * 8-GPU nodes), one in five serves, and the rest idle in notebooks or unallocated. Instances are
 * bought on-demand, spot or reserved where the catalog prices that. The same size and seed always
 * give the same fleet, GPU UUIDs included. A fleet may also have shared GPUs, each time-sliced among inference
 * replicas and notebooks ({@link Workload#SHARED}); the others then take their shares of what is left.
 */
public final class Fleet {

    private final List<SimulatedInstance> instances;
    private final List<SimulatedJob> jobs;
    private final List<SimulatedGpu> gpus;

    Fleet(List<SimulatedInstance> instances, List<SimulatedJob> jobs) {
        this.instances = List.copyOf(instances);
        this.jobs = List.copyOf(jobs);
        this.gpus = instances.stream().flatMap(instance -> instance.gpus().stream()).toList();
    }

    /** A fleet of exactly {@code gpuCount} GPUs on the instance types priced in {@code catalog}, none shared. */
    public static Fleet generate(int gpuCount, List<PriceQuote> catalog, long seed) {
        return generate(gpuCount, catalog, seed, 0);
    }

    /**
     * As above, with about {@code sharedFraction} of the GPUs time-sliced among several jobs (on the catalog's
     * one-GPU instance types); with 0, the very fleet of {@link #generate(int, List, long)}.
     */
    public static Fleet generate(int gpuCount, List<PriceQuote> catalog, long seed, double sharedFraction) {
        if (gpuCount <= 0) {
            throw new IllegalArgumentException("a fleet needs at least one GPU, asked for " + gpuCount);
        }
        return new FleetPlanner(catalog, seed, sharedFraction).plan(gpuCount);
    }

    /** The part of this fleet that runs {@code job}: its instances as they started, GPU UUIDs included. */
    public Fleet of(SimulatedJob job) {
        if (!jobs.contains(job)) {
            throw new IllegalArgumentException("job " + job.id() + " is not of this fleet");
        }
        return new Fleet(instances.stream().filter(instance -> instance.job().equals(job)).toList(), List.of(job));
    }

    public List<SimulatedInstance> instances() {
        return instances;
    }

    public List<SimulatedJob> jobs() {
        return jobs;
    }

    public List<SimulatedGpu> gpus() {
        return gpus;
    }

    /** The jobs time-sliced on the shared GPUs, which are not among {@link #jobs()}: each GPU's tenants. */
    public List<SharedTenant> tenants() {
        return jobs.stream().flatMap(job -> job.tenants().stream()).toList();
    }

    public Map<Workload, Integer> gpusByWorkload() {
        Map<Workload, Integer> counts = new EnumMap<>(Workload.class);
        for (SimulatedGpu gpu : gpus) {
            counts.merge(gpu.job().workload(), 1, Integer::sum);
        }
        return counts;
    }
}
