package io.gpuledger.streams.cost;

import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;

/**
 * The children the engine's windowing processors forward to, each by its name and each given only
 * its own kind of record. {@link GpuWindows} sends usage updates and closed windows, roll-up
 * partials with its task's progress, each GPU's own views, and the samples it refuses as received;
 * {@link RollupWindows} sends roll-ups and job economics.
 */
final class Outputs {

    /** {@code GpuUsage}: a window's update, or its closed record. */
    static final String USAGE = "usage-records";
    /** {@code RollupInput}: a roll-up partial, or the progress of the task that sends them. */
    static final String PARTIALS = "rollup-partial-records";
    /** {@code UsageRollup}: a GPU's own rolling five minutes or hour. */
    static final String GPU_VIEWS = "gpu-view-records";
    /** {@code GpuHour}: a GPU's closed hour, with where it ran and each job's part. */
    static final String HOURS = "gpu-hour-records";
    /** {@code byte[]}: a sample as received; the reason is in the record's dead-letter headers. */
    static final String REFUSED = "telemetry-refused-bytes";
    /** {@code UsageRollup}: a job's, team's or pool's minute, rolling five minutes or hour. */
    static final String ROLLUPS = "rollup-records";
    /** {@code JobEconomics}: a job's closed minute. */
    static final String ECONOMICS = "job-economics-records";

    private Outputs() {
    }

    /** The child {@code name} of {@code processor}, whose records are all of {@code type}. */
    static <T> KStream<String, T> child(KStream<String, Object> processor, String name, Class<T> type) {
        return processor.mapValues(type::cast, Named.as(name));
    }
}
