package io.gpuledger.alerts.webhook;

import java.util.concurrent.atomic.AtomicLong;

/** What happened to one receiver's deliveries since the dispatcher was created; read from any thread. */
public final class ReceiverCounters {

    private final AtomicLong delivered = new AtomicLong();
    private final AtomicLong retries = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();
    private final AtomicLong alreadyDelivered = new AtomicLong();

    /** Anomalies the receiver took (a 2xx answer). */
    public long delivered() {
        return delivered.get();
    }

    /** Tries that failed and were retried: no answer, 408, 429 or 5xx. */
    public long retries() {
        return retries.get();
    }

    /** Anomalies the receiver refused for good (another 3xx or 4xx); recorded and not tried again. */
    public long refused() {
        return refused.get();
    }

    /** Anomaly records not sent because the anomaly had reached (or been refused by) this receiver before. */
    public long alreadyDelivered() {
        return alreadyDelivered.get();
    }

    void countDelivered() {
        delivered.incrementAndGet();
    }

    void countRetry() {
        retries.incrementAndGet();
    }

    void countRefused() {
        refused.incrementAndGet();
    }

    void countAlreadyDelivered() {
        alreadyDelivered.incrementAndGet();
    }
}
