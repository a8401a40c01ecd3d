package io.gpuledger.alerts.recommend;

import io.gpuledger.model.Recommendation;
import io.gpuledger.model.RecommendationKind;
import io.gpuledger.model.RecommendationStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * The latest state of every recommendation that has not expired, by id; the service's memory of
 * what it told automation. Each method answers the record to publish, or nothing when the
 * published state still stands, so that:
 * <ul>
 *   <li>the same situation seen on every window update does not flood the topic: it is published
 *       again only when its figures change materially or its live copy has used up half its time
 *       to live;</li>
 *   <li>a situation that is over is withdrawn once, and one that someone dismissed is not raised
 *       again until the dismissal expires;</li>
 *   <li>after a restart, the book read back from the topic ({@link #restore}) gives the same answers.</li>
 * </ul>
 * Thread-safe: rules, the API and the read-back share it.
 */
public final class RecommendationBook {

    /** A change of the estimated saving by more than this share is news worth publishing. */
    static final double MATERIAL_CHANGE = 0.10;

    private final Duration dismissFor;
    private final Map<String, Recommendation> byId = new HashMap<>();

    /** @param dismissFor how long a dismissed situation stays quiet at least */
    public RecommendationBook(Duration dismissFor) {
        this.dismissFor = dismissFor;
    }

    /** Takes a record read back from the topic: the latest published state of an id wins. */
    public synchronized void restore(Recommendation published) {
        byId.merge(published.id(), published,
                (known, other) -> other.updatedAt().isBefore(known.updatedAt()) ? known : other);
    }

    /** What to publish for a rule's {@code candidate} seen at {@code now}; empty when the published state stands. */
    public synchronized Optional<Recommendation> offer(Recommendation candidate, Instant now) {
        Recommendation current = live(candidate.id(), now);
        if (current == null || current.status() == RecommendationStatus.WITHDRAWN) {
            return keep(candidate);
        }
        if (current.status() == RecommendationStatus.DISMISSED) {
            return Optional.empty();
        }
        if (now.isBefore(refreshAt(current)) && !materiallyDifferent(current, candidate)) {
            return Optional.empty();
        }
        return keep(current.supersededBy(candidate.withStatus(current.status(), now, candidate.expiresAt())));
    }

    /** The situation of {@code id} is over: the withdrawal to publish, if it was actionable. */
    public synchronized Optional<Recommendation> withdraw(String id, Instant now) {
        Recommendation current = live(id, now);
        if (current == null || !current.status().actionable()) {
            return Optional.empty();
        }
        return keep(current.withStatus(RecommendationStatus.WITHDRAWN, now, current.expiresAt()));
    }

    /** Someone acts on {@code id}: the acknowledgement to publish; empty when there is nothing to act on. */
    public synchronized Optional<Recommendation> acknowledge(String id, Instant now) {
        Recommendation current = live(id, now);
        if (current == null || !current.status().actionable()) {
            return Optional.empty();
        }
        return keep(current.withStatus(RecommendationStatus.ACKNOWLEDGED, now, current.expiresAt()));
    }

    /** Someone says not to act on {@code id}: the dismissal to publish, quiet for at least {@code dismissFor}. */
    public synchronized Optional<Recommendation> dismiss(String id, Instant now) {
        Recommendation current = live(id, now);
        if (current == null || current.status() == RecommendationStatus.WITHDRAWN) {
            return Optional.empty();
        }
        Instant until = current.expiresAt().isAfter(now.plus(dismissFor)) ? current.expiresAt() : now.plus(dismissFor);
        return keep(current.withStatus(RecommendationStatus.DISMISSED, now, until));
    }

    /** The unexpired record of {@code id}, in whatever state. */
    public synchronized Optional<Recommendation> get(String id, Instant now) {
        return Optional.ofNullable(live(id, now));
    }

    /** Unexpired records that pass {@code filter}, the most valuable first. */
    public synchronized List<Recommendation> list(Predicate<Recommendation> filter, Instant now) {
        dropExpired(now);
        return byId.values().stream().filter(filter)
                .sorted(Comparator.comparingDouble(Recommendation::estimatedMonthlySaving).reversed()
                        .thenComparing(Recommendation::id))
                .toList();
    }

    /** Unexpired actionable recommendations of {@code kind}, in no order (the gauges read this at every scrape). */
    public synchronized List<Recommendation> actionable(RecommendationKind kind, Instant now) {
        dropExpired(now);
        return byId.values().stream().filter(r -> r.kind() == kind && r.status().actionable()).toList();
    }

    private void dropExpired(Instant now) {
        byId.values().removeIf(r -> !now.isBefore(r.expiresAt()));
    }

    private Recommendation live(String id, Instant now) {
        Recommendation current = byId.get(id);
        if (current != null && !now.isBefore(current.expiresAt())) {
            byId.remove(id);
            return null;
        }
        return current;
    }

    private Optional<Recommendation> keep(Recommendation recommendation) {
        byId.put(recommendation.id(), recommendation);
        return Optional.of(recommendation);
    }

    private static boolean materiallyDifferent(Recommendation published, Recommendation candidate) {
        double before = published.estimatedMonthlySaving();
        double after = candidate.estimatedMonthlySaving();
        boolean savingMoved = Math.abs(after - before) > MATERIAL_CHANGE * Math.max(Math.abs(before), 1e-9);
        return savingMoved || !Objects.equals(published.action(), candidate.action())
                || !Objects.equals(published.deadline(), candidate.deadline());
    }

    private static Instant refreshAt(Recommendation recommendation) {
        Duration ttl = Duration.between(recommendation.updatedAt(), recommendation.expiresAt());
        return recommendation.updatedAt().plus(ttl.dividedBy(2));
    }
}
