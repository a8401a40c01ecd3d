package io.gpuledger.bench.backtest;

import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Offer;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;

/**
 * The world the backtest's fleet runs in, drawn for each run from its own seed and from ranges the
 * rules never read, chosen to differ from the rules' defaults on purpose (docs/benchmarks.md sets
 * them side by side):
 * <ul>
 *   <li>spot: each spot offer's instances are taken back at a rate drawn from half the lower edge
 *       of its published band to three times the upper edge (a band is last month's history, and
 *       capacity crunches happen); where no band is published, from 0.01 to 0.08 an instance-hour.
 *       Each interruption is noticed two minutes ahead, waits for capacity from 2 minutes to 3 hours
 *       (log-uniform), and restarts in 3 to 10 minutes; the rules assume 15 minutes in all;</li>
 *   <li>GPU speeds: the world's own ratios ({@link TrueSpeed}), each drawn within ±12%;</li>
 *   <li>networks: a share of 2% to 12% of a job's communication time does not scale with bandwidth
 *       (latency), where the rules scale all of it;</li>
 *   <li>serving: the fleet was built with 10% to 45% of capacity above its peak, and once moved its
 *       autoscaler keeps a spare of its own, drawn apart from the same range (the rules take the fleet to
 *       keep the spare it has); its GPUs show 55% to 90% SM activity at full load;</li>
 *   <li>pools: after a commitment, each pool's use drifts linearly to 0.85 to 1.4 times its last
 *       week over the year of the term;</li>
 *   <li>jobs end: a job with an end window ends on a day drawn in it.</li>
 * </ul>
 * Interruptions, waits and restarts are drawn as the run goes, from the same seed.
 */
final class BacktestWorld {

    static final double BAND_LOW_STRETCH = 0.5;
    static final double BAND_HIGH_STRETCH = 3.0;
    /** The least monthly share a band's lower stretch goes down to. */
    static final double BAND_FLOOR = 0.005;
    static final double UNBANDED_RATE_LOW = 0.01;
    static final double UNBANDED_RATE_HIGH = 0.08;
    static final double WAIT_MINUTES_LOW = 2;
    static final double WAIT_MINUTES_HIGH = 180;
    static final int RESTART_MINUTES_LOW = 3;
    static final int RESTART_MINUTES_HIGH = 10;
    /** AWS's two minutes of notice before a spot instance is taken back. */
    static final int NOTICE_MINUTES = 2;
    static final double LATENCY_SHARE_LOW = 0.02;
    static final double LATENCY_SHARE_HIGH = 0.12;
    static final double SERVING_HEADROOM_LOW = 0.10;
    static final double SERVING_HEADROOM_HIGH = 0.45;
    static final double FULL_ACTIVITY_LOW = 0.55;
    static final double FULL_ACTIVITY_HIGH = 0.90;
    static final double DRIFT_LOW = 0.85;
    static final double DRIFT_HIGH = 1.4;
    static final double SPEED_SPREAD = 0.12;

    /** What the world draws as the run goes: interruptions, waits, the noise of work reports. */
    interface Draws {
        /**
         * Whether a spot job on {@code instances} instances of {@code spot} loses one in the minute from
         * {@code minute}.
         */
        boolean interrupted(Instant minute, Offer spot, int instances, double ratePerInstanceHour);

        /** Minutes from an interruption until work resumes: the wait for capacity, then the restart. */
        int[] waitAndRestartMinutes();

        /** A work report's rate over its true one. */
        double noise();
    }

    private final Random random;
    private final Draws draws;
    final TrueSpeed speed;
    /** Share of communication time that does not scale with the network's bandwidth. */
    final double latencyShare;
    /** Capacity the serving fleet was built with above its peak. */
    final double servingHeadroom;
    /** Capacity a serving fleet's autoscaler keeps above its peak once the fleet has moved. */
    final double targetHeadroom;
    /** SM activity of a serving GPU at full load. */
    final double fullActivity;
    private final Map<Offer, Double> spotRates;
    private final Map<Offer, Double> drift;

    /** The world of seed {@code seed}, drawn from the ranges above. */
    BacktestWorld(long seed, OfferPrices prices) {
        this.random = new Random(seed * 7919 + 17);
        this.draws = new Seeded(random);
        this.speed = TrueSpeed.seed().jittered(random, SPEED_SPREAD);
        this.latencyShare = uniform(LATENCY_SHARE_LOW, LATENCY_SHARE_HIGH);
        this.servingHeadroom = uniform(SERVING_HEADROOM_LOW, SERVING_HEADROOM_HIGH);
        this.fullActivity = uniform(FULL_ACTIVITY_LOW, FULL_ACTIVITY_HIGH);
        this.targetHeadroom = uniform(SERVING_HEADROOM_LOW, SERVING_HEADROOM_HIGH);
        this.spotRates = new HashMap<>();
        this.drift = new HashMap<>();
        for (OfferPrices.OfferPrice price : prices.all()) {
            if (price.offer().lifecycle() == Lifecycle.SPOT) {
                spotRates.put(price.offer(), price.bandHigh() == null
                        ? logUniform(UNBANDED_RATE_LOW, UNBANDED_RATE_HIGH)
                        : logUniform(Math.max(BAND_FLOOR, price.bandLow() * BAND_LOW_STRETCH),
                                price.bandHigh() * BAND_HIGH_STRETCH) / 720);
            } else if (price.offer().lifecycle() == Lifecycle.ON_DEMAND) {
                drift.put(price.offer(), uniform(DRIFT_LOW, DRIFT_HIGH));
            }
        }
    }

    /** A world set by hand, for tests: every offer's spot rate and every pool's drift as given. */
    BacktestWorld(TrueSpeed speed, double latencyShare, double servingHeadroom, double targetHeadroom,
            double fullActivity, Map<Offer, Double> spotRates, Map<Offer, Double> drift, Draws draws) {
        this.random = new Random(1);
        this.draws = draws;
        this.speed = speed;
        this.latencyShare = latencyShare;
        this.servingHeadroom = servingHeadroom;
        this.targetHeadroom = targetHeadroom;
        this.fullActivity = fullActivity;
        this.spotRates = Map.copyOf(spotRates);
        this.drift = Map.copyOf(drift);
    }

    /** How often an instance of the spot offer is taken back, per hour. */
    double interruptionsPerInstanceHour(Offer spot) {
        return spotRates.getOrDefault(spot, UNBANDED_RATE_HIGH);
    }

    /** What the on-demand pool's use comes to, as a share of its last week, by the end of a year's term. */
    double drift(Offer pool) {
        return drift.getOrDefault(pool, 1.0);
    }

    /** Whether a spot job on {@code instances} instances loses one in the minute from {@code minute}. */
    boolean interrupted(Instant minute, Offer spot, int instances) {
        return draws.interrupted(minute, spot, instances, interruptionsPerInstanceHour(spot));
    }

    int[] waitAndRestartMinutes() {
        return draws.waitAndRestartMinutes();
    }

    double noise() {
        return draws.noise();
    }

    /** When a job whose end falls between day {@code fromDay} and {@code toDay} of the run ends. */
    Instant endBetween(Instant start, int fromDay, int toDay) {
        double day = uniform(fromDay, toDay);
        return start.plus(Duration.ofMinutes(Math.round(day * 1440)));
    }

    /** The draws of a seeded world: exponential interruptions, log-uniform waits, ±2% noise. */
    private record Seeded(Random random) implements Draws {

        @Override
        public boolean interrupted(Instant minute, Offer spot, int instances, double ratePerInstanceHour) {
            return random.nextDouble() < -Math.expm1(-ratePerInstanceHour * instances / 60);
        }

        @Override
        public int[] waitAndRestartMinutes() {
            double low = Math.log(WAIT_MINUTES_LOW);
            double wait = Math.exp(low + random.nextDouble() * (Math.log(WAIT_MINUTES_HIGH) - low));
            return new int[] {(int) Math.round(wait),
                    RESTART_MINUTES_LOW + random.nextInt(RESTART_MINUTES_HIGH - RESTART_MINUTES_LOW + 1)};
        }

        @Override
        public double noise() {
            return 1 + 0.02 * random.nextGaussian();
        }
    }

    private double uniform(double low, double high) {
        return low + random.nextDouble() * (high - low);
    }

    private double logUniform(double low, double high) {
        return Math.exp(uniform(Math.log(low), Math.log(high)));
    }
}
