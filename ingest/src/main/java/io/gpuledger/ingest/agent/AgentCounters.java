package io.gpuledger.ingest.agent;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/** What the agent did since it started, for {@code GET /health} and {@code GET /metrics}. */
public final class AgentCounters {

    final AtomicLong rounds = new AtomicLong();
    final AtomicLong samplesCollected = new AtomicLong();
    final AtomicLong samplesActivityUnknown = new AtomicLong();
    final AtomicLong samplesSkipped = new AtomicLong();
    final AtomicLong samplesShared = new AtomicLong();
    final AtomicLong processesUnattributed = new AtomicLong();
    final AtomicLong progressReports = new AtomicLong();
    final AtomicLong progressRejected = new AtomicLong();
    final AtomicLong capacityEvents = new AtomicLong();
    final Map<String, AtomicLong> collectorErrors = new ConcurrentHashMap<>();

    void collectorError(String collector) {
        collectorErrors.computeIfAbsent(collector, c -> new AtomicLong()).incrementAndGet();
    }

    public long rounds() {
        return rounds.get();
    }

    public long samplesCollected() {
        return samplesCollected.get();
    }

    /** Samples made of a GPU without any activity reading: published with their activity unknown. */
    public long samplesActivityUnknown() {
        return samplesActivityUnknown.get();
    }

    /** Samples of a GPU several jobs used: published as shared, with their allocations. */
    public long samplesShared() {
        return samplesShared.get();
    }

    /** Processes seen on a GPU whose job nobody could tell, once a round each: their use stays unallocated. */
    public long processesUnattributed() {
        return processesUnattributed.get();
    }

    /** GPUs seen in a round whose readings could not make a valid sample (one out of the contract's range). */
    public long samplesSkipped() {
        return samplesSkipped.get();
    }

    public long progressReports() {
        return progressReports.get();
    }

    public long progressRejected() {
        return progressRejected.get();
    }

    public long capacityEvents() {
        return capacityEvents.get();
    }

    public long collectorErrors(String collector) {
        AtomicLong errors = collectorErrors.get(collector);
        return errors == null ? 0 : errors.get();
    }

    public Map<String, Long> collectorErrors() {
        Map<String, Long> copy = new java.util.TreeMap<>();
        collectorErrors.forEach((name, count) -> copy.put(name, count.get()));
        return copy;
    }
}
