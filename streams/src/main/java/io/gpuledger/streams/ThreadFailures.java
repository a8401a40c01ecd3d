package io.gpuledger.streams;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.function.Consumer;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.streams.errors.MissingSourceTopicException;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;

/**
 * What the engine does when a stream thread dies: it replaces the thread (its tasks restart from
 * their last commit), unless a new thread cannot do better. Then it stops the whole engine, which
 * goes to {@code ERROR}: the liveness probe says DOWN and {@link CostEngineMain} exits with status
 * 1, so that a supervisor, and a person, see it. Cannot be cured by a new thread:
 *
 * <ul>
 *   <li>a refusal of the cluster: authorization (topic, group, transactional id, cluster) or
 *       authentication; an API the brokers do not have;</li>
 *   <li>a record the engine's own serializers cannot write: the next thread fails on it again;</li>
 *   <li>input topics missing for longer than {@link #topicsWait};</li>
 *   <li>anything else once more than {@link #MAX_REPLACEMENTS} threads died within
 *       {@link #REPLACEMENT_WINDOW}: a loop, not a passing fault.</li>
 * </ul>
 */
final class ThreadFailures implements StreamsUncaughtExceptionHandler {

    static final int MAX_REPLACEMENTS = 5;
    static final Duration REPLACEMENT_WINDOW = Duration.ofMinutes(10);

    private final Duration topicsWait;
    private final Clock clock;
    private final Consumer<String> say;
    /** When threads were replaced, within the last window. */
    private final Deque<Long> replaced = new ArrayDeque<>();
    /** When input topics were first found missing since the last failure of another kind; null if not. */
    private Long missingSince;

    /**
     * @param topicsWait how long missing input topics are waited for before the engine stops
     * @param say        where each decision is told, one line
     */
    ThreadFailures(Duration topicsWait, Clock clock, Consumer<String> say) {
        this.topicsWait = topicsWait;
        this.clock = clock;
        this.say = say;
    }

    @Override
    public synchronized StreamThreadExceptionResponse handle(Throwable failure) {
        long now = clock.millis();
        String incurable = incurable(failure);
        if (incurable != null) {
            say.accept("cost engine: stopping: " + incurable + " (" + failure + ")");
            return StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
        }
        if (causeOf(failure, MissingSourceTopicException.class) != null) {
            if (missingSince == null) {
                missingSince = now;
            } else if (now - missingSince > topicsWait.toMillis()) {
                say.accept("cost engine: stopping: input topics missing for more than " + topicsWait.toSeconds()
                        + " s (" + failure.getMessage() + "); create them (docs/operations.md#topics)");
                return StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
            }
            return StreamThreadExceptionResponse.REPLACE_THREAD;
        }
        missingSince = null;
        while (!replaced.isEmpty() && replaced.peekFirst() <= now - REPLACEMENT_WINDOW.toMillis()) {
            replaced.removeFirst();
        }
        if (replaced.size() >= MAX_REPLACEMENTS) {
            say.accept("cost engine: stopping: " + (replaced.size() + 1) + " stream threads failed within "
                    + REPLACEMENT_WINDOW.toMinutes() + " min, the last with " + failure);
            return StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
        }
        replaced.addLast(now);
        say.accept("cost engine: replacing a stream thread that failed with " + failure
                + "; its tasks restart from their last commit");
        return StreamThreadExceptionResponse.REPLACE_THREAD;
    }

    /** Why no new thread can get past {@code failure}; null when one may. */
    static String incurable(Throwable failure) {
        if (causeOf(failure, AuthorizationException.class) != null) {
            return "the cluster refuses this engine's principal an operation it needs (ACLs: docs/operations.md"
                    + "#securing-kafka)";
        }
        if (causeOf(failure, AuthenticationException.class) != null) {
            return "the cluster does not accept this engine's credentials";
        }
        if (causeOf(failure, UnsupportedVersionException.class) != null) {
            return "the brokers lack an API the engine needs (exactly-once needs Kafka 2.5 or later)";
        }
        if (causeOf(failure, SerializationException.class) != null) {
            return "a record the engine made cannot be written; a new thread would fail on it again";
        }
        return null;
    }

    private static Throwable causeOf(Throwable failure, Class<? extends Throwable> type) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (type.isInstance(cause)) {
                return cause;
            }
        }
        return null;
    }
}
