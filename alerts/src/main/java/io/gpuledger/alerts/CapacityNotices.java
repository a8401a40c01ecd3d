package io.gpuledger.alerts;

import io.gpuledger.alerts.anomaly.DarkGpus;
import io.gpuledger.alerts.fleet.FleetBoard;
import io.gpuledger.alerts.metrics.MetricCatalogue;
import io.gpuledger.alerts.recommend.RecommendationRules;
import io.gpuledger.model.CapacityEvent;
import io.gpuledger.model.EnrichedCapacityEvent;
import io.gpuledger.model.Json;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.prometheus.PrometheusMeterRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/** Capacity notices, as the agents publish them and as the cost engine joins them, into the rules. */
@ApplicationScoped
final class CapacityNotices {

    /** As the capacity stage: a GPU silent for longer before a notice is not counted on its instance. */
    private static final Duration PLACEMENT_MAX_AGE = Duration.ofMinutes(10);

    private final FleetBoard board;
    private final DarkGpus darkGpus;
    private final RecommendationRules rules;
    private final MeterRegistry registry;
    private final Clock clock;

    CapacityNotices(FleetBoard board, DarkGpus darkGpus, RecommendationRules rules, PrometheusMeterRegistry registry,
            Clock clock) {
        this.board = board;
        this.darkGpus = darkGpus;
        this.rules = rules;
        this.registry = registry;
        this.clock = clock;
    }

    /** Joined at once with the placement the board knows, so that its EVACUATE waits for no engine commit. */
    Instant onNotice(ConsumerRecord<String, byte[]> record) {
        CapacityEvent notice = Json.read(record.value(), CapacityEvent.class);
        MetricCatalogue.shipped().family("gpuledger_capacity_events_total").counter(registry,
                Tags.of("provider", notice.provider(), "kind", notice.kind().name())).increment();
        rules.onCapacityEvent(board.enrich(notice, PLACEMENT_MAX_AGE), clock.instant());
        darkGpus.onNotice(notice);
        return notice.noticedAt();
    }

    /** The cost engine's join of the same notice: it supersedes the quick one only where it tells more. */
    Instant onEnrichedNotice(ConsumerRecord<String, byte[]> record) {
        EnrichedCapacityEvent event = Json.read(record.value(), EnrichedCapacityEvent.class);
        rules.onCapacityEvent(event, clock.instant());
        return event.event().noticedAt();
    }
}
