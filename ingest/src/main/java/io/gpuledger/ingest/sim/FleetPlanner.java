package io.gpuledger.ingest.sim;

import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.PriceQuote;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Lays out a fleet of an exact size, group by group: each group is one job (or one piece of idle
 * capacity) on instances of one pool. The next group is always of the kind furthest below its
 * share of the GPUs laid out so far ({@link Shape}), among the kinds that still fit, so a fleet of
 * any size comes out close to the shares; sizes, pools and job figures are drawn from the seed.
 * Instance types are taken in turn, so every type of the catalog appears once the fleet has a few
 * hundred GPUs. The first group is always busy and the second an idle notebook on on-demand
 * capacity, so that even a two-GPU fleet has an idle GPU that no spot interruption takes away.
 * Shared GPUs, when asked for, are one more kind, the others' shares scaled down to make room.
 */
final class FleetPlanner {

    static final List<String> TEAMS = List.of("search", "ads", "vision", "speech", "llm", "recsys", "research");

    /** A kind of group, and the share of the fleet's GPUs it should take. */
    private enum Shape {
        MULTI_NODE_TRAINING(Workload.DISTRIBUTED_TRAINING, true, 0.45),
        NODE_TRAINING(Workload.TRAINING, true, 0.10),
        GPU_TRAINING(Workload.TRAINING, false, 0.05),
        SERVING(Workload.INFERENCE, false, 0.22),
        NOTEBOOK(Workload.NOTEBOOK, false, 0.08),
        SPARE_GPU(Workload.UNALLOCATED, false, 0.05),
        SPARE_NODE(Workload.UNALLOCATED, true, 0.05),
        /** Its share is the planner's shared fraction, the others' shares scaled down to make room for it. */
        SHARED_GPU(Workload.SHARED, false, 0);

        final Workload workload;
        final boolean multiGpu;
        final double gpuShare;

        Shape(Workload workload, boolean multiGpu, double gpuShare) {
            this.workload = workload;
            this.multiGpu = multiGpu;
            this.gpuShare = gpuShare;
        }
    }

    private final List<InstanceType> multiGpuTypes = new ArrayList<>();
    private final List<InstanceType> singleGpuTypes = new ArrayList<>();
    private final long seed;
    private final double sharedFraction;
    private final SplittableRandom random;
    private final List<SimulatedInstance> instances = new ArrayList<>();
    private final List<SimulatedJob> jobs = new ArrayList<>();
    private final int[] gpusByShape = new int[Shape.values().length];
    private int nextMulti;
    private int nextSingle;
    private int gpus;
    private int fleetSize;

    /** @param sharedFraction the share of the fleet's GPUs time-sliced among several jobs, 0 to 1 */
    FleetPlanner(List<PriceQuote> catalog, long seed, double sharedFraction) {
        if (!(sharedFraction >= 0 && sharedFraction <= 1)) {
            throw new IllegalArgumentException("the shared fraction is 0 to 1, was " + sharedFraction);
        }
        this.sharedFraction = sharedFraction;
        for (InstanceType type : InstanceType.of(catalog)) {
            (type.gpuCount() > 1 ? multiGpuTypes : singleGpuTypes).add(type);
        }
        if (multiGpuTypes.isEmpty() && singleGpuTypes.isEmpty()) {
            throw new IllegalArgumentException("the price catalog names no instance type to simulate");
        }
        this.seed = seed;
        this.random = new SplittableRandom(seed);
    }

    Fleet plan(int gpuCount) {
        fleetSize = gpuCount;
        for (int group = 0; gpus < gpuCount; group++) {
            int budget = gpuCount - gpus;
            if (group == 1) {
                addIdleNotebook(budget);
            } else if (group == 0) {
                // Keep one GPU for the idle notebook that always comes second.
                addGroup(gpuCount > 1 ? budget - 1 : budget, true);
            } else {
                addGroup(budget, false);
            }
        }
        return new Fleet(instances, jobs);
    }

    private void addGroup(int budget, boolean busy) {
        Shape shape = mostWanted(budget, busy);
        if (shape == null) {
            // Only multi-GPU types and too few GPUs left for a whole one: a job on part of an instance.
            InstanceType type = takeMulti();
            add(Shape.NODE_TRAINING, type, drawLifecycle(type), 1, budget);
            return;
        }
        switch (shape) {
            case MULTI_NODE_TRAINING -> {
                InstanceType type = takeMulti();
                // One job should not be the whole of a small fleet: no more than its share of it,
                // but two nodes at least.
                int largest = Math.max(2, (int) (shape.gpuShare * fleetSize / type.gpuCount()));
                int nodes = Math.min(2 + random.nextInt(7), Math.min(largest, budget / type.gpuCount()));
                add(shape, type, drawLifecycle(type), nodes, type.gpuCount());
            }
            case NODE_TRAINING, SPARE_NODE -> {
                InstanceType type = takeMulti();
                add(shape, type, drawLifecycle(type), 1, type.gpuCount());
            }
            case SERVING -> {
                InstanceType type = takeSingle();
                add(shape, type, drawLifecycle(type), Math.min(1 + random.nextInt(4), budget), 1);
            }
            default -> {
                InstanceType type = takeSingle();
                add(shape, type, drawLifecycle(type), 1, 1);
            }
        }
    }

    private void addIdleNotebook(int budget) {
        InstanceType type = singleGpuTypes.isEmpty() ? takeMulti() : takeSingle();
        add(Shape.NOTEBOOK, type, type.priced(Lifecycle.ON_DEMAND), 1, Math.min(budget, type.gpuCount()));
    }

    /**
     * The shape furthest below its share of the GPUs laid out so far, among those that fit in
     * {@code budget} (and are busy, if asked); ties go to the larger share. Null when none fits.
     */
    private Shape mostWanted(int budget, boolean busy) {
        Shape wanted = null;
        double wantedDeficit = Double.NEGATIVE_INFINITY;
        for (Shape shape : Shape.values()) {
            double share = share(shape);
            if (share == 0 || !fits(shape, budget) || busy && shape.workload.idle()) {
                continue;
            }
            double deficit = share * gpus - gpusByShape[shape.ordinal()];
            if (deficit > wantedDeficit || deficit == wantedDeficit && share > share(wanted)) {
                wanted = shape;
                wantedDeficit = deficit;
            }
        }
        return wanted;
    }

    /** The share of the fleet's GPUs {@code shape} should take; without shared GPUs, its own. */
    private double share(Shape shape) {
        return shape == Shape.SHARED_GPU ? sharedFraction : shape.gpuShare * (1 - sharedFraction);
    }

    private boolean fits(Shape shape, int budget) {
        if (!shape.multiGpu) {
            return !singleGpuTypes.isEmpty();
        }
        if (multiGpuTypes.isEmpty()) {
            return false;
        }
        int nodeGpus = multiGpuTypes.get(nextMulti % multiGpuTypes.size()).gpuCount();
        return budget >= (shape == Shape.MULTI_NODE_TRAINING ? 2 * nodeGpus : nodeGpus);
    }

    private InstanceType takeMulti() {
        return multiGpuTypes.get(nextMulti++ % multiGpuTypes.size());
    }

    private InstanceType takeSingle() {
        return singleGpuTypes.get(nextSingle++ % singleGpuTypes.size());
    }

    /** Bought on-demand for four groups in ten, on spot for three or four, reserved for the rest. */
    private Lifecycle drawLifecycle(InstanceType type) {
        double draw = random.nextDouble();
        Lifecycle wanted = draw < 0.40 ? Lifecycle.ON_DEMAND : draw < 0.75 ? Lifecycle.SPOT : Lifecycle.RESERVED;
        return type.priced(wanted);
    }

    private void add(Shape shape, InstanceType type, Lifecycle lifecycle, int nodes, int gpusPerNode) {
        SimulatedJob job = job(shape.workload, type, lifecycle, nodes, gpusPerNode);
        jobs.add(job);
        for (int rank = 0; rank < nodes; rank++) {
            SimulatedInstance instance = SimulatedInstance.launch(instances.size(), seed, job, rank);
            instances.add(instance);
            gpus += instance.gpus().size();
            gpusByShape[shape.ordinal()] += instance.gpus().size();
        }
    }

    private SimulatedJob job(Workload workload, InstanceType type, Lifecycle lifecycle, int nodes, int gpusPerNode) {
        // A shared node is the platform's: the time its GPU's jobs leave unused is no team's.
        String team = workload == Workload.UNALLOCATED || workload == Workload.SHARED ? null
                : TEAMS.get(random.nextInt(TEAMS.size()));
        String id = String.format("%s-%s-%05d", workload.jobIdPrefix(), team == null ? "pool" : team, jobs.size() + 1);
        String model = type.gpuModel();
        double speed = GpuSpecs.relativeSpeed(model);
        boolean reportsWork = random.nextDouble() < 0.85;
        SimulatedJob.Builder job = SimulatedJob.builder().id(id).team(team).workload(workload)
                .offer(type.offer(lifecycle)).gpuModel(model).nodes(nodes).gpusPerNode(gpusPerNode);
        return switch (workload) {
            case DISTRIBUTED_TRAINING, TRAINING -> {
                boolean memoryBound = random.nextDouble() < 0.2;
                boolean collectives = nodes * gpusPerNode > 1;
                // Across nodes the network is the bottleneck; inside one node NVLink keeps the overhead lower.
                double overhead = !collectives ? 0 : nodes > 1 ? between(0.10, 0.40) : between(0.05, 0.15);
                double busBandwidth = !collectives ? 0 : between(0.6, 0.9)
                        * (nodes > 1 ? GpuSpecs.networkBusBandwidth(model) : GpuSpecs.nodeBusBandwidth(model));
                double stepSeconds = nodes > 1 ? between(0.8, 4) : between(0.3, 2);
                String unit = memoryBound || random.nextDouble() < 0.4 ? "samples" : "tokens";
                double perA100Second = unit.equals("tokens") ? between(2500, 6000) : between(400, 1500);
                double unitsPerGpuStep = perA100Second * speed * stepSeconds * (1 - overhead);
                yield job.unit(unit).reportsWork(reportsWork).memoryBound(memoryBound)
                        .computeSmActive(memoryBound ? between(0.40, 0.58) : between(0.80, 0.95))
                        .computeDramActive(memoryBound ? between(0.65, 0.90) : between(0.25, 0.45))
                        .memoryShare(between(0.70, 0.95)).commOverheadRatio(overhead).stepSeconds(stepSeconds)
                        .unitsPerGpuStep(unitsPerGpuStep).busBandwidth(busBandwidth).build();
            }
            case INFERENCE -> {
                // Large GPUs serve language models (tokens), small ones request-sized models.
                String unit = speed >= 1 ? "tokens" : "requests";
                double perBatch = (unit.equals("tokens") ? between(400, 1600) : between(8, 64)) * Math.max(speed, 0.5);
                yield job.unit(unit).reportsWork(reportsWork).computeSmActive(between(0.35, 0.65))
                        .computeDramActive(between(0.45, 0.80)).memoryShare(between(0.40, 0.90))
                        .stepSeconds(between(0.02, 0.25)).unitsPerGpuStep(perBatch)
                        .loadPeriodSeconds(between(600, 3600)).loadPhase(between(0, 2 * Math.PI)).build();
            }
            case NOTEBOOK -> job.memoryShare(between(0.05, 0.30)).build();
            case UNALLOCATED -> job.build();
            case SHARED -> job.tenants(tenants(id.substring(id.lastIndexOf('-') + 1), speed)).build();
        };
    }

    /**
     * Two to four jobs time-sliced on one GPU: an inference replica that stays, and replicas or notebooks that come
     * and go, named after their GPU's group {@code group}. The replicas report their work, in tokens on large GPUs
     * and requests on small ones, as the fleet's serving jobs do, at a rate that follows the GPU's {@code speed}
     * and the replica's SM intensity (drawn from nothing more, so that the tenants are those of before).
     */
    private List<SharedTenant> tenants(String group, double speed) {
        int count = 2 + random.nextInt(3);
        List<SharedTenant> tenants = new ArrayList<>(count);
        for (int k = 1; k <= count; k++) {
            boolean serving = k == 1 || random.nextDouble() < 0.5;
            Workload workload = serving ? Workload.INFERENCE : Workload.NOTEBOOK;
            String team = !serving && random.nextDouble() < 0.2 ? null : TEAMS.get(random.nextInt(TEAMS.size()));
            String id = String.format("%s-%s-%s-%d", workload.jobIdPrefix(), team == null ? "pool" : team, group, k);
            if (serving) {
                double demand = between(0.15, 0.45);
                double smIntensity = between(0.5, 0.9);
                double memoryShare = between(0.1, 0.3);
                String unit = speed >= 1 ? "tokens" : "requests";
                double perGpuSecond = (unit.equals("tokens") ? 3000 : 60) * Math.max(speed, 0.5) * smIntensity;
                tenants.add(new SharedTenant(id, team, workload, demand, smIntensity, memoryShare, k == 1,
                        between(600, 3600), between(0, 2 * Math.PI), unit, perGpuSecond));
            } else {
                tenants.add(new SharedTenant(id, team, workload, between(0.2, 0.6), between(0.3, 0.8),
                        between(0.05, 0.2), false, 0, 0, null, 0));
            }
        }
        return tenants;
    }

    private double between(double low, double high) {
        return low + random.nextDouble() * (high - low);
    }
}
