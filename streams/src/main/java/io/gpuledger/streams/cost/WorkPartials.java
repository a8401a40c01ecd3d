package io.gpuledger.streams.cost;

import io.gpuledger.model.JobProgress;
import io.gpuledger.model.WorkTotals;
import io.gpuledger.streams.deadletter.Parsed;
import io.gpuledger.streams.state.LiveStore;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/**
 * Each valid work report as its job's partial for the minute that holds its middle; keeps the
 * latest such time of the task's reports, so that the task's progress ({@link SourceProgress},
 * sent by {@link GpuWindows}) vouches for its reports as well as for its samples.
 */
final class WorkPartials implements Processor<String, Parsed<JobProgress>, String, RollupInput> {

    /** The latest event time of a report this task read, in the clock store. */
    static final String LATEST = "latest-work-time";

    private final String currency;
    private ProcessorContext<String, RollupInput> context;
    private LiveStore<Long> clock;
    /** As stored; read once after the task starts. */
    private Long latest;

    WorkPartials(String currency) {
        this.currency = currency;
    }

    @Override
    public void init(ProcessorContext<String, RollupInput> context) {
        this.context = context;
        this.clock = context.getStateStore(CostTopology.CLOCK_STORE);
        this.latest = null;
    }

    @Override
    public void process(Record<String, Parsed<JobProgress>> record) {
        JobProgress report = record.value().value();
        long at = JobEconomicsFlow.eventTime(report);
        RollupPartial work = RollupPartial.work(report.jobId(), EventTime.periodStart(at, GpuState.MINUTE_MILLIS),
                currency, WorkTotals.NONE.add(report));
        context.forward(record.<String>withKey(work.rollupKey()).<RollupInput>withValue(work));
        if (latest == null) {
            Long stored = clock.get(LATEST);
            latest = stored == null ? Long.MIN_VALUE : stored;
        }
        if (at > latest) {
            latest = at;
            clock.put(LATEST, at);
        }
    }
}
