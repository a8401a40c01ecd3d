package io.gpuledger.ingest.sim;

import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Offer;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.TelemetrySample;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;

/**
 * A simulated fleet built from the instance types of a price catalog: instances in turn of every
 * type, bought on-demand, spot or reserved where the catalog prices that, every fourth instance
 * (from the second on) idle. The same size and seed always give the same fleet, GPU UUIDs included.
 */
public final class Fleet {

    private static final List<Lifecycle> LIFECYCLE_TURNS =
            List.of(Lifecycle.ON_DEMAND, Lifecycle.SPOT, Lifecycle.ON_DEMAND, Lifecycle.RESERVED);

    private final List<SimulatedGpu> gpus;

    private Fleet(List<SimulatedGpu> gpus) {
        this.gpus = List.copyOf(gpus);
    }

    public static Fleet of(List<SimulatedGpu> gpus) {
        return new Fleet(gpus);
    }

    /** A fleet of exactly {@code gpuCount} GPUs on the instance types priced in {@code catalog}. */
    public static Fleet generate(int gpuCount, List<PriceQuote> catalog, long seed) {
        if (gpuCount <= 0) {
            throw new IllegalArgumentException("a fleet needs at least one GPU, asked for " + gpuCount);
        }
        Map<String, PriceQuote> types = new LinkedHashMap<>();
        catalog.stream()
                .sorted(Comparator.comparing(PriceQuote::provider).thenComparing(PriceQuote::instanceType))
                .forEach(q -> types.putIfAbsent(q.provider() + "/" + q.region() + "/" + q.instanceType(), q));
        if (types.isEmpty()) {
            throw new IllegalArgumentException("the price catalog names no instance type to simulate");
        }
        Set<String> pricedOffers = catalog.stream().map(q -> q.offer().key()).collect(Collectors.toSet());
        List<PriceQuote> typeList = new ArrayList<>(types.values());
        Random random = new Random(seed);
        List<SimulatedGpu> gpus = new ArrayList<>();
        for (int instance = 0; gpus.size() < gpuCount; instance++) {
            PriceQuote type = typeList.get(instance % typeList.size());
            Lifecycle lifecycle = LIFECYCLE_TURNS.get(instance / typeList.size() % LIFECYCLE_TURNS.size());
            Offer offer = new Offer(type.provider(), type.region(), type.instanceType(), lifecycle);
            if (!pricedOffers.contains(offer.key())) {
                lifecycle = Lifecycle.ON_DEMAND;
            }
            // The second instance is idle, and every fourth after it: even a small fleet has one.
            boolean idleInstance = instance % 4 == 1;
            String instanceId = instanceId(type.provider(), seed, instance);
            String host = String.format("gpu-node-%04d", instance);
            String jobId = idleInstance ? "notebook-" + instance : "train-" + type.instanceType().replace('.', '-') + "-" + instance;
            double base = 0.55 + random.nextDouble() * 0.37;
            for (int index = 0; index < type.gpuCount() && gpus.size() < gpuCount; index++) {
                gpus.add(new SimulatedGpu(gpuUuid(instanceId, index), index, type.gpuModel(), host, instanceId,
                        type.instanceType(), type.provider(), type.region(), lifecycle, jobId, idleInstance, base,
                        maxPowerWatts(type.gpuModel())));
            }
        }
        return new Fleet(gpus);
    }

    public List<SimulatedGpu> gpus() {
        return gpus;
    }

    /** One sample per GPU, each covering the {@code intervalSeconds} that end at {@code end}. */
    public List<TelemetrySample> samplesAt(Instant end, double intervalSeconds, Random random) {
        List<TelemetrySample> samples = new ArrayList<>(gpus.size());
        for (SimulatedGpu gpu : gpus) {
            samples.add(gpu.sample(end, intervalSeconds, random));
        }
        return samples;
    }

    /** AWS-style {@code i-0…} ids on AWS, short {@code ins-…} ids elsewhere. */
    private static String instanceId(String provider, long seed, int instance) {
        String hex = UUID.nameUUIDFromBytes((provider + seed + "/" + instance).getBytes(StandardCharsets.UTF_8))
                .toString().replace("-", "");
        return provider.equals("aws") ? "i-0" + hex.substring(0, 16) : "ins-" + hex.substring(0, 8);
    }

    /** nvidia-smi's form: {@code GPU-} and a UUID. */
    private static String gpuUuid(String instanceId, int index) {
        return "GPU-" + UUID.nameUUIDFromBytes((instanceId + "/gpu/" + index).getBytes(StandardCharsets.UTF_8));
    }

    /** Board power limits, to make simulated power plausible. */
    private static double maxPowerWatts(String gpuModel) {
        String model = gpuModel == null ? "" : gpuModel.toUpperCase();
        if (model.startsWith("H100") || model.startsWith("H200")) {
            return 700;
        }
        if (model.startsWith("A100")) {
            return 400;
        }
        if (model.startsWith("A10")) {
            return 300;
        }
        if (model.startsWith("T4")) {
            return 70;
        }
        return 300;
    }
}
