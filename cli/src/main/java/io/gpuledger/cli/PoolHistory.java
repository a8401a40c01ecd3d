package io.gpuledger.cli;

import io.gpuledger.ingest.sim.Fleet;
import io.gpuledger.ingest.sim.FleetSimulation;
import io.gpuledger.ingest.sim.SimulatedJob;
import io.gpuledger.ingest.sim.SimulationSettings;
import io.gpuledger.ingest.sim.Workload;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Offer;
import io.gpuledger.model.PriceQuote;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * The past week of one pool of the demo's fleet, sent before the fleet starts. The reserve-capacity
 * rule judges a pool on a week of clock hours, which no demo of minutes could show otherwise; with
 * this history it judges the demo's pool as it would a deployment's, on the deployment's look-back.
 *
 * <p>The pool is that of the fleet's first busy job on on-demand instances whose type the catalog
 * also sells reserved, for less: a serving job if there is one, as serving runs around the clock
 * and is the baseline reservations are bought for. Its GPUs report a sample, and the job a work
 * report, every five minutes, for the {@link #SPAN} that ends where the live fleet begins, so that
 * the job goes on without a gap; they are the same GPUs as the live fleet's, from the same seed.
 */
final class PoolHistory {

    /** A week of clock hours, and two more: the hours still open when the fleet starts are not judged. */
    static final Duration SPAN = Duration.ofHours(170);
    /** A sample every five minutes, each charged over the minutes it covers: a week of one GPU is 2,040. */
    static final Duration INTERVAL = Duration.ofMinutes(5);

    /**
     * Two hours of the history a second, all of it in under a minute and a half. The cost engine
     * keeps a pool's open minutes in one state record until its next update (every two seconds)
     * closes them: a week of them at once outgrows the largest record Kafka takes (1 MiB). Each
     * history minute makes a dozen records of the engine's (windows, roll-ups, economics, state):
     * faster, a busy two-core machine's broker answers its transactions late.
     */
    static final Duration PACE = Duration.ofHours(2);

    private final SimulatedJob job;
    private final FleetSimulation past;
    private final Instant until;

    private PoolHistory(SimulatedJob job, FleetSimulation past, Instant until) {
        this.job = job;
        this.past = past;
        this.until = until;
    }

    /** The history of {@code fleet}'s steady pool up to {@code until}; empty when the fleet has none. */
    static Optional<PoolHistory> of(Fleet fleet, List<PriceQuote> quotes, long seed, Instant until) {
        return fleet.jobs().stream()
                .filter(job -> !job.idle() && job.offer().lifecycle() == Lifecycle.ON_DEMAND
                        && reservedForLess(job.offer(), quotes, until))
                .min(Comparator.comparing((SimulatedJob job) -> job.workload() != Workload.INFERENCE))
                .map(job -> new PoolHistory(job, new FleetSimulation(fleet.of(job), quotes,
                        SimulationSettings.defaults(INTERVAL).withSpotInterruptionsPerInstanceHour(0)
                                .withSpotPriceChangesPerOfferHour(0), seed, until.minus(SPAN)), until));
    }

    /** Whether the catalog sells the on-demand pool's type reserved for less, in one currency, at {@code at}. */
    private static boolean reservedForLess(Offer onDemand, List<PriceQuote> quotes, Instant at) {
        Optional<PriceQuote> perHour = inForce(onDemand, quotes, at);
        Optional<PriceQuote> reserved = inForce(new Offer(onDemand.provider(), onDemand.region(),
                onDemand.instanceType(), Lifecycle.RESERVED), quotes, at);
        return perHour.isPresent() && reserved.isPresent()
                && perHour.get().currency().equals(reserved.get().currency())
                && reserved.get().pricePerHour() < perHour.get().pricePerHour();
    }

    private static Optional<PriceQuote> inForce(Offer offer, List<PriceQuote> quotes, Instant at) {
        return quotes.stream().filter(quote -> quote.offer().equals(offer) && !quote.validFrom().isAfter(at))
                .max(Comparator.comparing(PriceQuote::validFrom));
    }

    /** The pool's job. */
    SimulatedJob job() {
        return job;
    }

    /** The pool's past, stepped a round at a time; it ends at {@link #until()}. */
    FleetSimulation simulation() {
        return past;
    }

    /** Where the history ends and the live fleet begins. */
    Instant until() {
        return until;
    }

    /** What the demo says of it, in two lines. */
    String describe() {
        return "History        the past " + SPAN.toHours() + " h of pool " + job.offer().key() + " (job " + job.id()
                + ", " + job.gpus() + " GPUs), a sample every " + INTERVAL.toMinutes() + " minutes, sent first,\n"
                + "               " + PACE.toHours() + " h of it a second: reserve-capacity judges a week of a"
                + " pool's clock hours, more than a demo lasts";
    }
}
