package io.gpuledger.alerts.recommend;

import io.gpuledger.model.Check;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Offer;
import java.util.List;

/**
 * How many instances of one on-demand pool were in use, hour by hour, over a lookback: what a
 * reservation would have covered.
 *
 * @param pool                 the on-demand offer (provider, region, instance type)
 * @param instancesPerHour     the average number of its instances in use in each clock hour of the
 *                             lookback, oldest first; 2.5 is two instances all hour and a third for half
 *                             of it, 0 an hour in which none ran
 * @param currency             ISO 4217 code of the amounts the pool's hours are reported in: what
 *                             a recommendation for it is priced in
 */
public record PoolUsage(Offer pool, List<Double> instancesPerHour, String currency) {

    public PoolUsage {
        Check.present("pool", pool);
        if (pool.lifecycle() != Lifecycle.ON_DEMAND) {
            throw new IllegalArgumentException("pool must be an on-demand offer, was " + pool.key());
        }
        Check.present("instancesPerHour", instancesPerHour);
        for (Double count : instancesPerHour) {
            Check.nonNegative("instancesPerHour", Check.present("instancesPerHour", count));
        }
        instancesPerHour = List.copyOf(instancesPerHour);
        Check.currency("currency", currency);
    }

    public int hours() {
        return instancesPerHour.size();
    }

    /** Hours of the lookback in which no instance was in use. */
    public int idleHours() {
        return (int) instancesPerHour.stream().filter(count -> count == 0).count();
    }

    /** The most instances in use in any hour, rounded up to a whole instance. */
    public int peakInstances() {
        return (int) Math.ceil(instancesPerHour.stream().mapToDouble(Double::doubleValue).max().orElse(0));
    }

    /**
     * The share of the lookback's hours the {@code k}-th instance (1-based) was in use: in an
     * hour with {@code n} instances on average it is in use for {@code min(1, max(0, n − k + 1))}
     * of the hour. With whole counts this is the share of hours with at least {@code k} instances.
     */
    public double utilizationOfInstance(int k) {
        if (instancesPerHour.isEmpty()) {
            return 0;
        }
        double used = 0;
        for (double count : instancesPerHour) {
            used += Math.min(1, Math.max(0, count - k + 1));
        }
        return used / instancesPerHour.size();
    }
}
