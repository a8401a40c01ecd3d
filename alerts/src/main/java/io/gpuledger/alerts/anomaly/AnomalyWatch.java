package io.gpuledger.alerts.anomaly;

import io.gpuledger.alerts.AlertSettings;
import io.gpuledger.model.CostAnomaly;
import io.gpuledger.model.GpuUsage;
import io.gpuledger.model.JobEconomics;
import io.gpuledger.model.PriceQuote;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * The anomaly detectors, fed with what the cost engine publishes: closed GPU windows add up to
 * each team's, job's and pool's spend per minute (spend rate, budget burn), each job minute's
 * final economics (cost per throughput), and price versions (price spikes). Returns what they
 * find; the {@link AnomalyDesk} publishes each anomaly once.
 *
 * <p>Not thread-safe: fed by one reader thread.
 */
public final class AnomalyWatch {

    private final ClosedMinutes minutes = new ClosedMinutes();
    private final FinalWindows<JobEconomics> jobMinutes;
    private final SpendRateDetector spendRate;
    private final BudgetBurn budgets;
    private final CostPerThroughputDetector costPerThroughput;
    private final PriceSpikeDetector priceSpikes;

    /**
     * Each detector reads its own part of {@code settings.anomaly()}; the jobs whose minutes wait to be final are
     * at most {@code metrics.max-series}.
     */
    public AnomalyWatch(Collection<BudgetBurn.Budget> budgets, AlertSettings settings) {
        AlertSettings.Anomaly anomaly = settings.anomaly();
        this.spendRate = new SpendRateDetector(anomaly.spendRate());
        this.budgets = new BudgetBurn(budgets);
        this.costPerThroughput = new CostPerThroughputDetector(anomaly.costPerThroughput());
        this.priceSpikes = new PriceSpikeDetector(anomaly.priceSpike());
        this.jobMinutes = new FinalWindows<>(settings.metrics().maxSeries(),
                settings.metrics().staleAfter());
    }

    /** A GPU window: once its minute is complete, every team's, job's and pool's spend in it is judged. */
    public List<CostAnomaly> onWindow(GpuUsage window, Instant now) {
        List<CostAnomaly> found = new ArrayList<>();
        for (SpendMinute minute : minutes.add(window)) {
            spendRate.observe(minute, now).ifPresent(found::add);
            budgets.observe(minute, now).ifPresent(found::add);
        }
        return found;
    }

    /**
     * A version of a job minute's economics: judged once the minute is final, with the last minutes of jobs that
     * ended.
     */
    public List<CostAnomaly> onEconomics(JobEconomics economics, Instant now) {
        List<CostAnomaly> found = new ArrayList<>();
        for (JobEconomics minute : jobMinutes.offer(economics.jobId(), economics.windowStart(), economics, now)) {
            found.addAll(costPerThroughput.observe(minute, now));
        }
        return found;
    }

    public Optional<CostAnomaly> onPrice(PriceQuote quote, Instant now) {
        return priceSpikes.observe(quote, now);
    }

    /** Closed windows that came after their minute had been judged. */
    public long lateWindows() {
        return minutes.late();
    }
}
