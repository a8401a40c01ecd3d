package io.gpuledger.alerts.recommend;

import io.gpuledger.model.GpuUsage;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * What a GPU's closed minutes from {@code from} to {@code to} add up to. Seconds are wall-clock
 * seconds: a MIG slice's are counted as a whole GPU's.
 *
 * @param latest              its newest closed window: where the GPU is and what runs on it
 * @param secondsWithActivity time with an SM activity reading
 * @param smActive            mean SM activity over that time, 0–1
 * @param secondsObserved     time its samples covered
 * @param cost                what that time cost, in {@code latest.currency()}
 * @param jobs                the jobs that ran on it in any minute of the period, each once: its job, or each job
 *                            that took a part of it while it was shared
 * @param quietSince          the end of its latest minute with a sample at work (SM activity at or over the cost
 *                            engine's idle threshold, 5%: a cell run in a notebook, a burst of requests) or with no
 *                            activity reading at all, or when it was first followed for its current holder if none;
 *                            may lie before {@code from}
 */
public record IdlePeriod(GpuUsage latest, Instant from, Instant to, double secondsWithActivity, double smActive,
        double secondsObserved, double cost, List<String> jobs, Instant quietSince) {

    /** Whether no sample of the period was at work: the GPU stayed quiet throughout, not only on average. */
    public boolean quietThroughout() {
        return !quietSince.isAfter(from);
    }

    /** Whether it has been quiet for at least {@code quiet}, up to the period's end. */
    public boolean quietFor(Duration quiet) {
        return !quietSince.isAfter(to.minus(quiet));
    }

    /** Minutes of the period. */
    public long minutes() {
        return Duration.between(from, to).toMinutes();
    }

    /** What the GPU spent per hour it was observed over the period; 0 when it was not observed. */
    public double costPerHour() {
        return secondsObserved > 0 ? cost / (secondsObserved / 3600) : 0;
    }
}
