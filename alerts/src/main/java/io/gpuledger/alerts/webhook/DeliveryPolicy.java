package io.gpuledger.alerts.webhook;

import java.time.Duration;

/**
 * How hard a delivery is tried: HTTP timeouts, and the wait before each retry. There is no limit
 * on the number of tries: an anomaly is retried, with the wait capped at {@code maxBackoff}, until
 * its receiver takes or refuses it (see docs/webhooks.md).
 *
 * @param connectTimeout to open a connection to a receiver
 * @param requestTimeout for one try as a whole: connecting, sending, and the receiver's answer with its body
 * @param initialBackoff the wait after the first failed try; it doubles after each further one
 * @param maxBackoff     the longest wait between tries, unless the receiver asks for longer
 */
public record DeliveryPolicy(
        Duration connectTimeout, Duration requestTimeout, Duration initialBackoff, Duration maxBackoff) {

    /** The longest {@code Retry-After} obeyed: a receiver asking for more is tried again after this. */
    public static final Duration MAX_RETRY_AFTER = Duration.ofHours(1);

    public DeliveryPolicy {
        positive("connectTimeout", connectTimeout);
        positive("requestTimeout", requestTimeout);
        positive("initialBackoff", initialBackoff);
        positive("maxBackoff", maxBackoff);
        if (maxBackoff.compareTo(initialBackoff) < 0) {
            throw new IllegalArgumentException("maxBackoff " + maxBackoff + " is shorter than initialBackoff "
                    + initialBackoff);
        }
    }

    /** 5 s to connect, 10 s for the whole try; retries after 1 s, 2 s, 4 s … up to a minute apart. */
    public static DeliveryPolicy defaults() {
        return new DeliveryPolicy(Duration.ofSeconds(5), Duration.ofSeconds(10), Duration.ofSeconds(1),
                Duration.ofMinutes(1));
    }

    /**
     * The wait before the next try after {@code failures} failed ones: the exponential backoff,
     * drawn between half and all of it so that receivers that failed together are not all tried
     * again at the same instant, and no shorter than what the receiver asked for.
     *
     * @param retryAfter the receiver's {@code Retry-After}, or null
     * @param random     uniform in [0, 1)
     */
    public Duration retryDelay(int failures, Duration retryAfter, double random) {
        double doublings = Math.pow(2, Math.min(Math.max(failures, 1) - 1, 62));
        double backoff = Math.min(maxBackoff.toNanos(), initialBackoff.toNanos() * doublings);
        Duration jittered = Duration.ofNanos((long) (backoff / 2 * (1 + random)));
        if (retryAfter == null) {
            return jittered;
        }
        Duration asked = retryAfter.compareTo(MAX_RETRY_AFTER) > 0 ? MAX_RETRY_AFTER : retryAfter;
        return asked.compareTo(jittered) > 0 ? asked : jittered;
    }

    private static void positive(String name, Duration value) {
        if (value == null || value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(name + " must be a positive duration, was " + value);
        }
    }
}
