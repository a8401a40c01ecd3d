package io.gpuledger.alerts.recommend;

import io.gpuledger.model.Recommendation;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The live recommendations, by id. A recommendation is (re)published only when it is new, or
 * when its live copy has used up half of its time to live: the same situation, seen on every
 * window update, does not flood the topic, yet stays alive for as long as it lasts.
 */
public final class RecommendationBook {

    private final Map<String, Recommendation> live = new ConcurrentHashMap<>();

    /** Takes {@code candidate} in if it should be published now; false when its live copy still stands. */
    public boolean offer(Recommendation candidate, Instant now) {
        boolean[] accepted = {false};
        live.compute(candidate.id(), (id, current) -> {
            if (current != null && now.isBefore(refreshAt(current))) {
                return current;
            }
            accepted[0] = true;
            return candidate;
        });
        return accepted[0];
    }

    /** The situation is over (the GPU works again): the recommendation stops being served. */
    public boolean withdraw(String id) {
        return live.remove(id) != null;
    }

    /** Unexpired recommendations, the most valuable first. */
    public List<Recommendation> current(Instant now) {
        live.values().removeIf(r -> !now.isBefore(r.expiresAt()));
        return live.values().stream()
                .sorted(Comparator.comparingDouble(Recommendation::estimatedMonthlySaving).reversed()
                        .thenComparing(Recommendation::id))
                .toList();
    }

    private static Instant refreshAt(Recommendation recommendation) {
        Duration ttl = Duration.between(recommendation.createdAt(), recommendation.expiresAt());
        return recommendation.createdAt().plus(ttl.dividedBy(2));
    }
}
