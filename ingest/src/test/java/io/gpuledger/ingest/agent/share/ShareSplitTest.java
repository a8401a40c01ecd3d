package io.gpuledger.ingest.agent.share;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gpuledger.ingest.agent.usage.GpuUser;
import io.gpuledger.ingest.agent.usage.GpuUsers;
import io.gpuledger.ingest.agent.usage.Owner;
import io.gpuledger.model.Allocation;
import io.gpuledger.model.SharePolicy;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Shares worked out by hand for each policy; the expected values are written out, not computed. */
class ShareSplitTest {

    private static final Owner A = new Owner("train-a", "vision");
    private static final Owner B = new Owner("serve-b", "chat");
    private static final double GIB = 1024.0 * 1024 * 1024;

    @Test
    void shouldSplitBySmTimeAndLeaveIdleAndUnattributedTimeUnallocated() {
        GpuUsers gpu = gpu(null, owned(A, 0.30, 4 * GIB), owned(B, 0.45, 8 * GIB), unattributed(0.10, 2 * GIB));

        Split split = ShareSplit.split(gpu, SharePolicy.SM);

        assertThat(split.soleOwner()).isNull();
        assertThat(split.allocations()).containsExactly(
                new Allocation("train-a", "vision", 0.30, SharePolicy.SM),
                new Allocation("serve-b", "chat", 0.45, SharePolicy.SM));
    }

    @Test
    void shouldAddAJobsProcessesAndScaleDownPartsAddingUpToMoreThanTheWhole() {
        // MPS clients overlapping: 0.5 + 0.2 for A, 0.6 for B = 1.3; A 0.7/1.3 = 7/13, B 6/13
        GpuUsers gpu = gpu(null, owned(A, 0.5, null), owned(B, 0.6, null), owned(A, 0.2, null));

        List<Allocation> allocations = ShareSplit.split(gpu, SharePolicy.SM).allocations();

        assertThat(allocations).extracting(Allocation::jobId).containsExactly("train-a", "serve-b");
        assertThat(allocations.get(0).share()).isCloseTo(0.5384615384615384, within(1e-12));
        assertThat(allocations.get(1).share()).isCloseTo(0.46153846153846156, within(1e-12));
        assertThat(allocations.get(0).share() + allocations.get(1).share()).isLessThanOrEqualTo(1 + 1e-12);
    }

    @Test
    void shouldSplitByMemoryOverTheGpusWholeMemory() {
        GpuUsers gpu = gpu(24 * GIB, owned(A, 0.9, 6 * GIB), owned(B, 0.0, 3 * GIB), unattributed(0.0, 3 * GIB));

        assertThat(ShareSplit.split(gpu, SharePolicy.MEMORY).allocations()).containsExactly(
                new Allocation("train-a", "vision", 0.25, SharePolicy.MEMORY),
                new Allocation("serve-b", "chat", 0.125, SharePolicy.MEMORY));
    }

    @Test
    void shouldSplitEvenlyAmongTheProcessesPresentWhateverTheyDid() {
        GpuUsers gpu = gpu(null, owned(A, 0.0, null), owned(A, 0.0, null), owned(B, null, null),
                unattributed(null, null));

        assertThat(ShareSplit.split(gpu, SharePolicy.EVEN).allocations()).containsExactly(
                new Allocation("train-a", "vision", 0.5, SharePolicy.EVEN),
                new Allocation("serve-b", "chat", 0.25, SharePolicy.EVEN));
    }

    @Test
    void shouldSplitAMigSliceByMemoryAndSaySoWhenSmTimeIsAskedFor() {
        GpuUsers slice = new GpuUsers("GPU-x/mig/3", "dcgm-exporter",
                List.of(owned(A, null, 2 * GIB), owned(B, null, 6 * GIB)), 10 * GIB);

        assertThat(ShareSplit.split(slice, SharePolicy.SM).allocations()).containsExactly(
                new Allocation("train-a", "vision", 0.2, SharePolicy.MEMORY),
                new Allocation("serve-b", "chat", 0.6, SharePolicy.MEMORY));
    }

    @Test
    void shouldSplitEvenlyWhereNeitherSmTimeNorTheWholeMemoryIsKnown() {
        GpuUsers slice = new GpuUsers("GPU-x/mig/3", "dcgm-exporter",
                List.of(owned(A, null, 2 * GIB), owned(B, null, 6 * GIB)), null);

        assertThat(ShareSplit.split(slice, SharePolicy.SM).allocations()).containsExactly(
                new Allocation("train-a", "vision", 0.5, SharePolicy.EVEN),
                new Allocation("serve-b", "chat", 0.5, SharePolicy.EVEN));
    }

    @Test
    void shouldKeepAGpuOfOneJobAloneAPlainSampleOfThatJob() {
        Split split = ShareSplit.split(gpu(null, owned(A, 0.2, null), owned(A, 0.3, null)), SharePolicy.SM);

        assertThat(split.shared()).isFalse();
        assertThat(split.soleOwner()).isEqualTo(A);
    }

    @Test
    void shouldShareAGpuOfOneJobWithAnUnattributedProcessAndLeaveThatPartUnallocated() {
        Split split = ShareSplit.split(gpu(null, owned(A, 0.2, null), unattributed(0.3, null)), SharePolicy.SM);

        assertThat(split.allocations()).containsExactly(new Allocation("train-a", "vision", 0.2, SharePolicy.SM));
    }

    @Test
    void shouldNameNoJobForAGpuOnlyUnattributedProcessesUsed() {
        Split split = ShareSplit.split(gpu(null, unattributed(0.9, null), unattributed(0.1, null)), SharePolicy.SM);

        assertThat(split).isEqualTo(Split.none());
    }

    private static GpuUsers gpu(Double memoryTotalBytes, GpuUser... users) {
        return new GpuUsers("GPU-x", "nvidia-smi", List.of(users), memoryTotalBytes);
    }

    private static GpuUser owned(Owner owner, Double sm, Double memory) {
        return new GpuUser(1, owner, sm, memory);
    }

    private static GpuUser unattributed(Double sm, Double memory) {
        return GpuUser.process(2, sm, memory);
    }
}
