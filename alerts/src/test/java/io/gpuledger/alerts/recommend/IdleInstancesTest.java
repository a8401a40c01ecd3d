package io.gpuledger.alerts.recommend;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuledger.alerts.UsageWindows;
import io.gpuledger.model.GpuUsage;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Placement;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which instances a job ran on, as a release acknowledged takes them: the job's own, not its capacity back. */
class IdleInstancesTest {

    private static final Instant T0 = Instant.parse("2026-03-01T12:00:00Z");

    private final IdleInstances instances = new IdleInstances();

    @Test
    void shouldCountAnInstanceOfTheJobThatNeverCompletedAMinuteAsOneItRan() {
        // Given job-1 on two 2-GPU instances, the first complete, the second with one GPU that sends nothing (its
        // exporter broke), so never complete; and job-2 on a third, complete
        assertThat(instances.add(period("i-1", "GPU-1a", "job-1"), 2)).isEmpty();
        assertThat(instances.add(period("i-1", "GPU-1b", "job-1"), 2)).isPresent();
        assertThat(instances.add(period("i-2", "GPU-2a", "job-1"), 2)).isEmpty();
        instances.add(period("i-3", "GPU-3a", "job-2"), 1);

        // Then the job ran on both of its instances, the incomplete one too: its windows are the job's own, not
        // capacity it gave back coming again; and not on the other job's
        assertThat(instances.ranJob("job-1", T0)).containsExactlyInAnyOrder("i-1", "i-2");
        assertThat(instances.ranJob("job-2", T0)).containsExactly("i-3");
        // and not on instances whose GPUs it has not been heard on for longer than they count as there
        assertThat(instances.ranJob("job-1", T0.plusSeconds(181))).isEmpty();
    }

    /** A GPU's closed minute ending at {@code T0}, at 1%, as the period it ends. */
    private static IdlePeriod period(String instance, String gpu, String job) {
        Placement placement = new Placement("node-" + instance, instance, "g5.12xlarge", "aws", "us-east-1",
                Lifecycle.ON_DEMAND);
        GpuUsage window = UsageWindows.minute(placement, gpu, job, "team-a", T0.minusSeconds(60), 5.672, 0.01, true);
        return new IdlePeriod(window, T0.minusSeconds(60), T0, 60, 0.01, 60, 5.672 / 60, List.of(job),
                T0.minusSeconds(60));
    }
}
