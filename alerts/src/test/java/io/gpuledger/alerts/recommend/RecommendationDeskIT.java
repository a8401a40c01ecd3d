package io.gpuledger.alerts.recommend;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuledger.alerts.feed.TopicReplay;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Placement;
import io.gpuledger.model.Recommendation;
import io.gpuledger.model.RecommendationAction;
import io.gpuledger.model.RecommendationKind;
import io.gpuledger.model.RecommendationStatus;
import io.gpuledger.model.Topics;
import io.gpuledger.testing.BrokerExtension;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The desk against a real broker: what it published survives a restart of the service. */
class RecommendationDeskIT {

    private static final Instant T0 = Instant.parse("2026-11-30T09:00:00Z");

    @RegisterExtension
    static final BrokerExtension broker = BrokerExtension.withTopics(2);

    @Test
    void shouldNeitherRepeatNorForgetAcrossARestart() {
        Clock clock = Clock.fixed(T0, ZoneOffset.UTC);
        Recommendation idle = idle("i-restart-1", T0);
        Recommendation other = idle("i-restart-2", T0);

        // Given a first run that raised two recommendations and dismissed one of them
        try (RecommendationDesk first = RecommendationDesk.open(broker.bootstrap(), Duration.ofDays(7),
                new SimpleMeterRegistry(), clock, "USD")) {
            assertThat(first.raise(idle)).isPresent();
            assertThat(first.raise(other)).isPresent();
            assertThat(first.dismiss(other.id())).isPresent();
            first.flush();
        }

        // When the service restarts a minute later and its rules see the same situations
        Clock later = Clock.fixed(T0.plusSeconds(60), ZoneOffset.UTC);
        try (RecommendationDesk second = RecommendationDesk.open(broker.bootstrap(), Duration.ofDays(7),
                new SimpleMeterRegistry(), later, "USD")) {
            // Then neither is published again, and the dismissal still holds
            assertThat(second.raise(idle("i-restart-1", T0.plusSeconds(60)))).isEmpty();
            assertThat(second.raise(idle("i-restart-2", T0.plusSeconds(60)))).isEmpty();
            assertThat(second.get(other.id())).hasValueSatisfying(
                    r -> assertThat(r.status()).isEqualTo(RecommendationStatus.DISMISSED));
            second.flush();
        }

        // And the topic holds each state once: two raised, one dismissed
        List<Recommendation> onTopic = new ArrayList<>();
        TopicReplay.replay(broker.bootstrap(), Topics.RECOMMENDATIONS.name(), Duration.ofSeconds(30),
                record -> onTopic.add(Topics.RECOMMENDATIONS.valueSerde().deserializer()
                        .deserialize(record.topic(), record.value()).data()));
        assertThat(onTopic.stream().filter(r -> r.id().startsWith("reclaim_idle:instance:i-restart"))
                .map(r -> r.target().id() + " " + r.status().wire()))
                .containsExactlyInAnyOrder("i-restart-1 open", "i-restart-2 open", "i-restart-2 dismissed");
    }

    private static Recommendation idle(String instance, Instant now) {
        return Recommendation.open(RecommendationKind.RECLAIM_IDLE,
                Recommendation.Target.instance(new Placement("node-1", instance, "g5.xlarge", "aws", "us-east-1",
                        Lifecycle.ON_DEMAND)),
                "idle", RecommendationAction.ReclaimIdle.instance(instance, List.of()), null, 700, "USD", 0.9, now,
                now.plus(Duration.ofMinutes(10)), null);
    }
}
