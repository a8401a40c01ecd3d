package io.gpuledger.ingest.agent.delivery;

import java.util.concurrent.atomic.AtomicLong;

/** What happened to the records the agent made, for its health endpoint. */
public final class DeliveryCounters {

    final AtomicLong submitted = new AtomicLong();
    final AtomicLong sent = new AtomicLong();
    final AtomicLong spooled = new AtomicLong();
    final AtomicLong replayed = new AtomicLong();
    final AtomicLong failed = new AtomicLong();

    /** Records handed to delivery. */
    public long submitted() {
        return submitted.get();
    }

    /** Records Kafka acknowledged. */
    public long sent() {
        return sent.get();
    }

    /** Records written to the on-disk spool because Kafka could not take them then. */
    public long spooled() {
        return spooled.get();
    }

    /** Spooled records handed back to Kafka once it returned. */
    public long replayed() {
        return replayed.get();
    }

    /** Records Kafka refused for good (too large, not authorised): logged and counted, never retried. */
    public long failed() {
        return failed.get();
    }
}
