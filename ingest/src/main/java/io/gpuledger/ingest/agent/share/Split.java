package io.gpuledger.ingest.agent.share;

import io.gpuledger.ingest.agent.usage.Owner;
import io.gpuledger.model.Allocation;
import java.util.List;

/**
 * How a GPU's interval is charged: to one job alone (a plain sample of that job, as before shares existed),
 * shared among jobs ({@code allocations}, the rest unallocated), or, when no job is known to have used it, as
 * the sample would be without shares (its collector's labels, a job's claim, the node's job).
 *
 * @param soleOwner   the one job that used it, nothing else; null otherwise
 * @param allocations the jobs' shares of a shared GPU; empty otherwise
 */
public record Split(Owner soleOwner, List<Allocation> allocations) {

    private static final Split NONE = new Split(null, List.of());

    public Split {
        allocations = List.copyOf(allocations);
    }

    public static Split none() {
        return NONE;
    }

    public static Split sole(Owner owner) {
        return new Split(owner, List.of());
    }

    public static Split shared(List<Allocation> allocations) {
        return new Split(null, allocations);
    }

    public boolean shared() {
        return !allocations.isEmpty();
    }
}
