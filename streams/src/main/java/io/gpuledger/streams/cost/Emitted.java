package io.gpuledger.streams.cost;

import io.gpuledger.model.GpuUsage;
import io.gpuledger.model.JobEconomics;
import io.gpuledger.model.UsageRollup;

/**
 * What the engine's processors send on: from the GPU windows, usage updates, roll-up partials and
 * their task's progress, samples refused as late or from the future; from the roll-ups, roll-ups
 * and job economics.
 */
sealed interface Emitted {

    record Usage(GpuUsage usage) implements Emitted {
    }

    /** A roll-up partial, or the progress of the task that sends them. */
    record Partial(RollupInput input) implements Emitted {
    }

    /** A sample as received; the reason is in the record's dead-letter headers. */
    record Refused(byte[] raw) implements Emitted {
    }

    record Rollup(UsageRollup rollup) implements Emitted {
    }

    record Economics(JobEconomics economics) implements Emitted {
    }
}
