package io.gpuledger.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuledger.model.CloudEvent;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Offer;
import io.gpuledger.model.Placement;
import io.gpuledger.model.Recommendation;
import io.gpuledger.model.RecommendationAction;
import io.gpuledger.model.RecommendationKind;
import io.gpuledger.model.RecommendationStatus;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ExampleHookTest {

    private static final Instant T0 = Instant.parse("2026-11-30T09:00:00Z");

    private final ByteArrayOutputStream printed = new ByteArrayOutputStream();
    private final ExampleHook hook = new ExampleHook(new PrintStream(printed, true, StandardCharsets.UTF_8),
            Optional.empty(), "");

    @Test
    void shouldActOnEachStateOnceAndIgnoreRedeliveries() {
        // Given an evacuation, delivered twice, then withdrawn
        Recommendation evacuate = Recommendation.open(RecommendationKind.EVACUATE,
                Recommendation.Target.instance(new Placement("node-1", "i-1", "p4d.24xlarge", "aws", "us-east-1",
                        Lifecycle.SPOT)),
                "evacuate", new RecommendationAction.Evacuate("i-1", T0.plusSeconds(120), true,
                        List.of(new RecommendationAction.JobToMove("train", 8, false)),
                        RecommendationAction.PricedOffer.unpriced(Offer.fromKey("aws|us-east-1|p4d.24xlarge|on-demand"),
                                null)),
                T0.plusSeconds(120), 0, "USD", 0.95, T0, T0.plusSeconds(120), null);
        Recommendation withdrawn = evacuate.withStatus(RecommendationStatus.WITHDRAWN, T0.plusSeconds(30),
                evacuate.expiresAt());

        // When the hook reads them
        var first = hook.onEvent(event(evacuate));
        var again = hook.onEvent(event(evacuate));
        var cancel = hook.onEvent(event(withdrawn));

        // Then it acts once, ignores the redelivery, and cancels
        assertThat(first).hasValueSatisfying(line -> assertThat(line).contains("drain instance i-1")
                .contains("train").contains("before 2026-11-30T09:02:00Z").contains("aws|us-east-1|p4d.24xlarge"));
        assertThat(again).isEmpty();
        assertThat(cancel).hasValueSatisfying(line -> assertThat(line).startsWith("cancel"));
        assertThat(printed.toString(StandardCharsets.UTF_8).lines()).hasSize(2);
    }

    @Test
    void shouldSayWhatToReleaseInWholeInstancesAndWhenToCheckpointInsteadOfMoving() {
        // Given a job told to shrink to one of its two instances, and one told to checkpoint more often
        Recommendation shrink = Recommendation.open(RecommendationKind.RECLAIM_IDLE, Recommendation.Target.job("wide"),
                "shrink", RecommendationAction.ReclaimIdle.ofJob("wide", List.of("i-b"), 1, List.of()), null, 23_594.4,
                "USD", 0.8, T0, T0.plusSeconds(600), null);
        Recommendation checkpoint = Recommendation.open(RecommendationKind.MOVE_TO_SPOT,
                Recommendation.Target.job("gang"), "checkpoint",
                RecommendationAction.MoveToSpot.checkpointEvery("gang", 8, "aws|us-east-1|p4d.24xlarge|on-demand",
                        1800.0),
                null, 0, "USD", 0.5, T0, T0.plusSeconds(600), null);

        // When the hook plans them
        String release = ExampleHook.plan(shrink);
        String more = ExampleHook.plan(checkpoint);

        // Then it releases the idle instance by name and keeps one; and it changes the checkpoints, not the pool
        assertThat(release).contains("shrink job wide to 1 instance(s): release [i-b]");
        assertThat(more).contains("checkpoint job gang every 1800.0 s").doesNotContain("move job");
    }

    private static CloudEvent<Recommendation> event(Recommendation r) {
        return CloudEvent.json(r).id(r.id() + "@" + r.updatedAt().toEpochMilli()).source("/gpu-ledger/alerts")
                .type("io.gpuledger.recommendation.v1").subject("instance/i-1").time(r.updatedAt()).build();
    }
}
