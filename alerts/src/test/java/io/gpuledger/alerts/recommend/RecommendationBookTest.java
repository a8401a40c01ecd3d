package io.gpuledger.alerts.recommend;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Placement;
import io.gpuledger.model.Recommendation;
import io.gpuledger.model.RecommendationAction;
import io.gpuledger.model.RecommendationKind;
import io.gpuledger.model.RecommendationStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class RecommendationBookTest {

    private static final Instant T0 = Instant.parse("2026-03-01T12:00:00Z");
    private static final Duration TTL = Duration.ofMinutes(10);
    private static final Recommendation.Target GPU = Recommendation.Target.gpu("GPU-1",
            new Placement("node-1", "i-1", "g4dn.xlarge", "aws", "us-east-1", Lifecycle.ON_DEMAND));

    private final RecommendationBook book = new RecommendationBook(Duration.ofDays(7));

    @Test
    void shouldPublishTheSameSituationOnceUntilHalfItsLifeHasPassed() {
        // Given a published idle-GPU recommendation
        assertThat(book.offer(idle(T0, 1440), T0)).isPresent();

        // When the rule sees the same situation a minute later, then after half the time to live
        var minuteLater = book.offer(idle(T0.plusSeconds(60), 1440), T0.plusSeconds(60));
        var halfLife = book.offer(idle(T0.plusSeconds(300), 1440), T0.plusSeconds(300));

        // Then only the second is news, and it keeps the first-seen time with a fresh expiry
        assertThat(minuteLater).isEmpty();
        assertThat(halfLife).hasValueSatisfying(r -> {
            assertThat(r.createdAt()).isEqualTo(T0);
            assertThat(r.updatedAt()).isEqualTo(T0.plusSeconds(300));
            assertThat(r.expiresAt()).isEqualTo(T0.plusSeconds(300).plus(TTL));
        });
        assertThat(book.list(r -> true, T0.plusSeconds(300).plus(TTL))).isEmpty();
    }

    @Test
    void shouldPublishAgainAtOnceWhenTheSavingMovesMaterially() {
        book.offer(idle(T0, 1000), T0);

        // 9% more is the same situation; 11% more is news
        assertThat(book.offer(idle(T0.plusSeconds(60), 1090), T0.plusSeconds(60))).isEmpty();
        assertThat(book.offer(idle(T0.plusSeconds(120), 1110), T0.plusSeconds(120)))
                .hasValueSatisfying(r -> assertThat(r.estimatedMonthlySaving()).isEqualTo(1110));
    }

    @Test
    void shouldWithdrawOnceAndRaiseAnewWhenTheSituationReturns() {
        Recommendation first = book.offer(idle(T0, 1440), T0).orElseThrow();

        var withdrawn = book.withdraw(first.id(), T0.plusSeconds(60));
        var again = book.withdraw(first.id(), T0.plusSeconds(61));
        var back = book.offer(idle(T0.plusSeconds(120), 1440), T0.plusSeconds(120));

        assertThat(withdrawn).hasValueSatisfying(r -> assertThat(r.status()).isEqualTo(RecommendationStatus.WITHDRAWN));
        assertThat(again).isEmpty();
        assertThat(back).hasValueSatisfying(r -> {
            assertThat(r.status()).isEqualTo(RecommendationStatus.OPEN);
            assertThat(r.createdAt()).isEqualTo(T0.plusSeconds(120));
        });
    }

    @Test
    void shouldKeepADismissedSituationQuietUntilTheDismissalExpires() {
        Recommendation first = book.offer(idle(T0, 1440), T0).orElseThrow();

        Recommendation dismissed = book.dismiss(first.id(), T0.plusSeconds(10)).orElseThrow();

        assertThat(dismissed.status()).isEqualTo(RecommendationStatus.DISMISSED);
        assertThat(dismissed.expiresAt()).isEqualTo(T0.plusSeconds(10).plus(Duration.ofDays(7)));
        Instant dayLater = T0.plus(Duration.ofDays(1));
        assertThat(book.offer(idle(dayLater, 5000), dayLater)).isEmpty();
        Instant weekLater = dismissed.expiresAt();
        assertThat(book.offer(idle(weekLater, 1440), weekLater))
                .hasValueSatisfying(r -> assertThat(r.status()).isEqualTo(RecommendationStatus.OPEN));
    }

    @Test
    void shouldKeepAnAcknowledgementThroughRefreshes() {
        Recommendation first = book.offer(idle(T0, 1440), T0).orElseThrow();
        book.acknowledge(first.id(), T0.plusSeconds(30)).orElseThrow();

        var refreshed = book.offer(idle(T0.plusSeconds(400), 1440), T0.plusSeconds(400));

        assertThat(refreshed).hasValueSatisfying(r -> assertThat(r.status())
                .isEqualTo(RecommendationStatus.ACKNOWLEDGED));
        assertThat(book.acknowledge("reclaim_idle:gpu:GPU-2", T0)).isEmpty();
    }

    @Test
    void shouldGiveTheSameAnswersAfterARestartFromThePublishedRecords() {
        // Given what a first run published: raised, then dismissed
        Recommendation raised = book.offer(idle(T0, 1440), T0).orElseThrow();
        Recommendation dismissed = book.dismiss(raised.id(), T0.plusSeconds(5)).orElseThrow();

        // When a new book reads them back, in any order
        RecommendationBook restarted = new RecommendationBook(Duration.ofDays(7));
        restarted.restore(dismissed);
        restarted.restore(raised);

        // Then it stays quiet about the dismissed situation, as the first one would
        assertThat(restarted.offer(idle(T0.plusSeconds(600), 1440), T0.plusSeconds(600))).isEmpty();
        assertThat(restarted.get(raised.id(), T0.plusSeconds(600)))
                .hasValueSatisfying(r -> assertThat(r.status()).isEqualTo(RecommendationStatus.DISMISSED));
    }

    private static Recommendation idle(Instant now, double saving) {
        return Recommendation.open(RecommendationKind.RECLAIM_IDLE, GPU, "idle",
                RecommendationAction.ReclaimIdle.instance("i-1", List.of("GPU-1")), null, saving, "USD", 0.9, now,
                now.plus(TTL), null);
    }
}
