package io.gpuledger.ingest.sim;

import io.gpuledger.model.JobProgress;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.TelemetrySample;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * What the simulation published adds up to, kept as it publishes: GPU time and cost per GPU, per
 * job and per pool, at the price versions it published, and the work each job reported. It is
 * what accounting downstream should arrive at from the same records.
 *
 * <p>Jobs are keyed by their {@link SimulatedJob#id() simulated id}, so each sits in one pool and
 * one currency; spare capacity, which reports the job {@code unknown} on the wire, is kept under
 * its own {@code spare-…} id. Pools are keyed by {@code provider|region|instanceType|lifecycle}.
 */
public final class GroundTruth {

    private final Map<String, Tally> byGpu = new HashMap<>();
    private final Map<String, Tally> byJob = new HashMap<>();
    private final Map<String, Tally> byPool = new HashMap<>();
    private final Map<String, Work> workByJob = new HashMap<>();

    /** Charges a sample {@code gpu} published at {@code price}, the version in force at the middle of its interval. */
    void charge(SimulatedGpu gpu, TelemetrySample sample, PriceQuote price) {
        double gpuSeconds = sample.intervalSeconds() * sample.chargedFraction();
        Tally charged = Tally.of(gpuSeconds, price);
        byGpu.merge(sample.gpuUuid(), charged, Tally::plus);
        byJob.merge(gpu.job().id(), charged, Tally::plus);
        byPool.merge(sample.offer().key(), charged, Tally::plus);
    }

    void credit(JobProgress progress) {
        workByJob.merge(progress.jobId(), Work.of(progress), Work::plus);
    }

    public Map<String, Tally> byGpu() {
        return Collections.unmodifiableMap(byGpu);
    }

    public Map<String, Tally> byJob() {
        return Collections.unmodifiableMap(byJob);
    }

    public Map<String, Tally> byPool() {
        return Collections.unmodifiableMap(byPool);
    }

    /** The work a job reported; empty for a job that reported none: "no throughput reported". */
    public Optional<Work> work(String jobId) {
        return Optional.ofNullable(workByJob.get(jobId));
    }

    public Map<String, Work> workByJob() {
        return Collections.unmodifiableMap(workByJob);
    }

    /** Total cost per currency over the whole fleet. */
    public Map<String, Double> costByCurrency() {
        Map<String, Double> totals = new HashMap<>();
        byPool.values().stream().filter(tally -> tally.currency() != null)
                .forEach(tally -> totals.merge(tally.currency(), tally.cost(), Double::sum));
        return totals;
    }
}
