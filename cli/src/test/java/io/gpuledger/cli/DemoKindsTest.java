package io.gpuledger.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuledger.ingest.price.PriceCatalog;
import io.gpuledger.ingest.sim.FleetSimulation;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.Recommendation;
import io.gpuledger.model.RecommendationAction;
import io.gpuledger.model.RecommendationEvidence;
import io.gpuledger.model.RecommendationKind;
import io.gpuledger.model.RecommendationStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The demo as a newcomer starts it, with no option, run in this JVM on a simulated clock
 * ({@link DemoPipeline}): its fleet, with the history it sends first, through the engine into the
 * rules as the demo configures the alert service.
 */
class DemoKindsTest {

    private static final Duration TEN_MINUTES = Duration.ofMinutes(10);

    @Test
    void shouldRaiseEveryKindOfRecommendationWithinTenMinutesOfTheDefaultDemo() {
        // Given the demo's defaults and catalog, started at 10:00:17 as Demo starts them: the pool's history
        // first, ending where the fleet's first round begins
        DemoOptions options = DemoOptions.parse(new String[0], Map.of());
        List<PriceQuote> catalog = PriceCatalog.loadDefault().quotes();
        Instant now = Instant.parse("2026-03-02T10:00:17Z");
        Instant start = now.minus(options.interval());
        FleetSimulation fleet = SimulatedFleet.simulation(options, catalog, start);
        PoolHistory history = PoolHistory.of(fleet.fleet(), catalog, SimulatedFleet.SEED, start).orElseThrow();

        Map<RecommendationKind, Recommendation> first = new EnumMap<>(RecommendationKind.class);
        Map<RecommendationKind, Recommendation> latest = new EnumMap<>(RecommendationKind.class);
        try (DemoPipeline demo = new DemoPipeline(options, catalog, now)) {
            // When the history is sent, then the fleet runs for ten minutes
            demo.backfill(history.simulation(), history.until(), PoolHistory.PACE);
            demo.run(fleet, now.plus(TEN_MINUTES));

            for (Recommendation published : demo.published()) {
                if (published.status() == RecommendationStatus.OPEN) {
                    first.putIfAbsent(published.kind(), published);
                }
                latest.put(published.kind(), published);
            }
        }

        // Then every kind was raised within the ten minutes
        assertThat(first.keySet()).containsExactlyInAnyOrder(RecommendationKind.values());
        assertThat(first.values()).allSatisfy(r -> assertThat(r.createdAt()).isBefore(now.plus(TEN_MINUTES)));
        // The reservation, as it stands at the end, on a deployment's look-back: a week of clock hours
        // (7 x 24 = 168) of the pool whose history was sent, every instance of its job (busy all week)
        Recommendation reserve = latest.get(RecommendationKind.RESERVE_CAPACITY);
        assertThat(reserve.status()).isEqualTo(RecommendationStatus.OPEN);
        assertThat(reserve.target().id()).isEqualTo(history.job().offer().key());
        assertThat(((RecommendationEvidence.ReserveCapacity) reserve.evidence()).lookbackHours()).isEqualTo(168);
        assertThat(((RecommendationAction.ReserveCapacity) reserve.action()).reserveInstances())
                .isEqualTo(history.job().nodes());
        // Every rule judged on closed minutes: each period ended before its recommendation was made
        for (Recommendation r : first.values()) {
            periodEnd(r).ifPresent(end -> assertThat(end).as(r.kind() + " period end")
                    .isBeforeOrEqualTo(r.createdAt()));
        }
    }

    /** The end of the period a rule added its figures up over; empty for a kind judged on no period. */
    private static Optional<Instant> periodEnd(Recommendation recommendation) {
        if (recommendation.evidence() instanceof RecommendationEvidence.ReclaimIdle idle) {
            return Optional.of(idle.periodEnd());
        }
        if (recommendation.evidence() instanceof RecommendationEvidence.OverPeriod job && job.period() != null) {
            return Optional.of(job.period().periodEnd());
        }
        return Optional.empty();
    }
}
