package io.gpuledger.alerts.recommend;

import io.gpuledger.alerts.anomaly.FinalWindows;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Offer;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.UsageRollup;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * How many instances each on-demand pool used, hour by hour, over the lookback: what the
 * reserve-capacity rule weighs against the break-even. An hour counts once it is final (its pool
 * has a newer hour), as GPU-hours over the GPUs of one instance: two instances busy half the hour
 * count as one instance for that hour.
 *
 * <p>Not thread-safe: fed by one reader.
 */
public final class PoolHours {

    private final int lookbackHours;
    private final FinalWindows<UsageRollup> finalHours;
    private final Map<Offer, Deque<Double>> hours = new HashMap<>();

    public PoolHours(int lookbackHours, int maxPools) {
        this.lookbackHours = lookbackHours;
        this.finalHours = new FinalWindows<>(maxPools);
    }

    /**
     * Takes a pool's hourly roll-up; returns the usage of every pool whose hour this made final,
     * ready for the rule (a pool whose instance size or price is not known is left out).
     */
    public List<PoolUsage> onRollup(UsageRollup rollup, PriceBoard board, GpuCatalog catalog) {
        if (rollup.dimension() != UsageRollup.Dimension.POOL
                || Duration.between(rollup.windowStart(), rollup.windowEnd()).toSeconds() != 3600) {
            return List.of();
        }
        Offer pool = Offer.fromKey(rollup.id());
        if (pool.lifecycle() != Lifecycle.ON_DEMAND) {
            return List.of();
        }
        List<PoolUsage> ready = new ArrayList<>();
        for (UsageRollup hour : finalHours.offer(rollup.id(), rollup.windowStart(), rollup)) {
            Optional<PriceQuote> price = board.price(pool);
            Optional<Integer> perInstance = catalog.instance(pool).map(GpuCatalog.InstanceSpec::gpusPerInstance)
                    .or(() -> price.map(PriceQuote::gpuCount));
            if (price.isEmpty() || perInstance.isEmpty() || !price.get().currency().equals(hour.currency())) {
                continue;
            }
            Deque<Double> instances = hours.computeIfAbsent(pool, p -> new ArrayDeque<>());
            instances.addLast(hour.totals().gpuSeconds() / 3600.0 / perInstance.get());
            while (instances.size() > lookbackHours) {
                instances.removeFirst();
            }
            ready.add(new PoolUsage(pool, List.copyOf(instances), price.get().pricePerHour(), hour.currency()));
        }
        return ready;
    }
}
