package io.gpuledger.ingest.sim;

import io.gpuledger.model.JobProgress;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.TelemetrySample;
import io.gpuledger.model.UsageRollup;
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
 * its own {@code spare-…} id. Pools are keyed by {@code provider|region|instanceType|lifecycle}. Each job's team is
 * kept beside it ({@link #teams()}); a team's jobs may run in several currencies, so its cost is theirs, per currency.
 *
 * <p>A time-sliced GPU's cost goes to the jobs that used it, each for the time the simulated scheduler gave it
 * ({@link TimeSlicedGpu}), and the rest, which no job used, to the GPU's {@link #unallocatedByGpu}
 * and {@link #unallocatedByPool}: the GPU and its pool are charged whole, its jobs with their parts.
 */
public final class GroundTruth {

    private final Map<String, Tally> byGpu = new HashMap<>();
    private final Map<String, Tally> byJob = new HashMap<>();
    private final Map<String, Tally> byPool = new HashMap<>();
    private final Map<String, String> teams = new HashMap<>();
    private final Map<String, Tally> unallocatedByGpu = new HashMap<>();
    private final Map<String, Tally> unallocatedByPool = new HashMap<>();
    private final Map<String, Work> workByJob = new HashMap<>();

    /** Charges a sample {@code gpu} published at {@code price}, the version in force at the middle of its interval. */
    void charge(SimulatedGpu gpu, TelemetrySample sample, PriceQuote price) {
        double gpuSeconds = sample.intervalSeconds() * sample.chargedFraction();
        Tally charged = Tally.of(gpuSeconds, price);
        byGpu.merge(sample.gpuUuid(), charged, Tally::plus);
        byJob.merge(gpu.job().id(), charged, Tally::plus);
        teams.put(gpu.job().id(), teamKey(gpu.job().team()));
        byPool.merge(sample.offer().key(), charged, Tally::plus);
    }

    /**
     * Charges a sample of a time-sliced GPU, whose interval {@code round} says what the simulated world did: each
     * tenant its time, from the scheduler's grants (not from the shares the sample carries, which the cost engine
     * reads), the rest unallocated.
     */
    void chargeShared(SimulatedGpu gpu, TelemetrySample sample, PriceQuote price, SharedGpuRound round) {
        double fraction = sample.chargedFraction();
        Tally whole = Tally.of(sample.intervalSeconds() * fraction, price);
        byGpu.merge(sample.gpuUuid(), whole, Tally::plus);
        byPool.merge(sample.offer().key(), whole, Tally::plus);
        for (SharedGpuRound.Grant grant : round.grants()) {
            Tally used = Tally.of(grant.millis() / 1000.0 * fraction, price);
            byJob.merge(grant.tenant().id(), used, Tally::plus);
            teams.put(grant.tenant().id(), teamKey(grant.tenant().team()));
        }
        Tally unallocated = Tally.of(round.unallocatedMillis() / 1000.0 * fraction, price);
        unallocatedByGpu.merge(sample.gpuUuid(), unallocated, Tally::plus);
        unallocatedByPool.merge(sample.offer().key(), unallocated, Tally::plus);
    }

    private static String teamKey(String team) {
        return team == null ? UsageRollup.NO_TEAM : team;
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

    /** The team of every job in {@link #byJob()}, {@link UsageRollup#NO_TEAM} for jobs of none. */
    public Map<String, String> teams() {
        return Collections.unmodifiableMap(teams);
    }

    /** Per shared GPU, the time no job used and its cost; GPUs of one job have none. */
    public Map<String, Tally> unallocatedByGpu() {
        return Collections.unmodifiableMap(unallocatedByGpu);
    }

    /** Per pool, the time of its shared GPUs that no job used, and its cost. */
    public Map<String, Tally> unallocatedByPool() {
        return Collections.unmodifiableMap(unallocatedByPool);
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
