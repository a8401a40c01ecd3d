package io.gpuledger.ingest.agent.share;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuledger.ingest.agent.collect.GpuReading;
import io.gpuledger.ingest.agent.owners.ProcessOwners;
import io.gpuledger.ingest.agent.usage.GpuUser;
import io.gpuledger.ingest.agent.usage.GpuUsers;
import io.gpuledger.ingest.agent.usage.Owner;
import io.gpuledger.ingest.agent.usage.UsageSource;
import io.gpuledger.model.Allocation;
import io.gpuledger.model.SharePolicy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class GpuSharingTest {

    private final List<String> read = new ArrayList<>();

    @Test
    void shouldTakeEachGpusUsersFromTheFirstSourceThatSeesAnyAndReadLaterSourcesOnlyWhenNeeded() {
        GpuUsers byCollector = new GpuUsers("GPU-a", "dcgm-exporter",
                List.of(GpuUser.container(new Owner("p", "x"), 0.1, null)), null);
        GpuReading a = GpuReading.builder("GPU-a").users(byCollector).build();
        GpuReading b = GpuReading.builder("GPU-b").build();
        UsageSource first = source("hami", Map.of("GPU-a", users("GPU-a", 1), "GPU-b", users("GPU-b", 2)));
        UsageSource second = source("nvidia-smi", Map.of("GPU-b", users("GPU-b", 3)));
        ProcessOwners owners = pid -> pid == 2 ? Optional.of(new Owner("job-2", null)) : Optional.empty();

        GpuSharing.Round round = new GpuSharing(SharePolicy.SM, true, List.of(first, second), owners)
                .users(List.of(a, b));

        assertThat(round.users().get("GPU-a")).isEqualTo(byCollector);
        assertThat(round.users().get("GPU-b").users()).containsExactly(
                new GpuUser(2, new Owner("job-2", null), 0.5, null));
        assertThat(read).containsExactly("hami");
    }

    @Test
    void shouldTakeTheGpusMemoryFromItsOwnReadingWhereTheSourceDoesNotSayIt() {
        double gib = 1024.0 * 1024 * 1024;
        // 40 GiB, as the GPU's collector read it; HAMi's page says nothing of it
        double gpuMemory = 40 * gib;
        List<GpuUser> containers = List.of(GpuUser.container(new Owner("llm-0", "ai"), 0.5, 10 * gib),
                GpuUser.container(new Owner("nb-3", "lab"), 0.2, 4 * gib));
        UsageSource hami = source("hami", Map.of("GPU-a", new GpuUsers("GPU-a", "hami", containers, null),
                "GPU-b", new GpuUsers("GPU-b", "hami", containers, 80 * gib)));
        GpuSharing sharing = new GpuSharing(SharePolicy.MEMORY, true, List.of(hami), pid -> Optional.empty());

        GpuSharing.Round round = sharing.users(List.of(
                GpuReading.builder("GPU-a").memoryTotalBytes(gpuMemory).build(),
                GpuReading.builder("GPU-b").memoryTotalBytes(gpuMemory).build()));

        assertThat(round.users().get("GPU-a").memoryTotalBytes()).isEqualTo(gpuMemory);
        assertThat(round.users().get("GPU-b").memoryTotalBytes()).as("the source's own").isEqualTo(80 * gib);
        // 10 GiB and 4 GiB of 40 GiB
        assertThat(sharing.split(round.users().get("GPU-a")).allocations()).containsExactly(
                new Allocation("llm-0", "ai", 0.25, SharePolicy.MEMORY),
                new Allocation("nb-3", "lab", 0.1, SharePolicy.MEMORY));
    }

    @Test
    void shouldNotTakeAHolderWhoseJobNoSampleCanNameAndSaySoOnce() {
        // a pod's job with its namespace: 63 + 1 + 200 characters, over the 256 a job id holds
        Owner tooLong = new Owner("n".repeat(63) + "/" + "p".repeat(200), "team-a");
        GpuSharing.GpuHolders holders = gpu -> Optional.of(gpu.equals("GPU-h") ? tooLong : new Owner("ok", "team-a"));
        GpuSharing sharing = new GpuSharing(SharePolicy.SM, true, List.of(), pid -> Optional.empty(), holders);
        List<GpuReading> readings = List.of(GpuReading.builder("GPU-h").build(), GpuReading.builder("GPU-k").build());

        GpuSharing.Round first = sharing.users(readings);
        GpuSharing.Round second = sharing.users(readings);

        assertThat(first.holderOf("GPU-h")).isEmpty();
        assertThat(first.holderOf("GPU-k")).contains(new Owner("ok", "team-a"));
        assertThat(first.problems()).singleElement().satisfies(problem -> assertThat(problem.message())
                .startsWith("GPU GPU-h: the pod its DRA claim is reserved for, job 'nnnn")
                .contains("is not taken as its job").contains("longer than 256"));
        assertThat(second.holderOf("GPU-h")).isEmpty();
        assertThat(second.problems()).as("said once").isEmpty();
    }

    @Test
    void shouldTakeAUserWhoseJobIsNamedAsNoJobIsAsUnattributed() {
        // Given a GPU three pods share, two of them named as the contract names no job: "unknown" (no job known) and
        // "unlisted" (a window's jobs past those it lists)
        List<GpuUser> containers = List.of(GpuUser.container(new Owner("llm-0", "ai"), 0.5, null),
                GpuUser.container(new Owner("unknown", "lab"), 0.2, null),
                GpuUser.container(new Owner("unlisted", "lab"), 0.1, null));
        UsageSource hami = source("hami", Map.of("GPU-a", new GpuUsers("GPU-a", "hami", containers, null)));
        GpuSharing sharing = new GpuSharing(SharePolicy.SM, true, List.of(hami), pid -> Optional.empty());

        GpuSharing.Round round = sharing.users(List.of(GpuReading.builder("GPU-a").build()));

        // Then their use stays unallocated, said, and the sample of the GPU is made
        assertThat(sharing.split(round.users().get("GPU-a")).allocations()).containsExactly(
                new Allocation("llm-0", "ai", 0.5, SharePolicy.SM));
        assertThat(round.problems()).hasSize(2).allSatisfy(problem -> assertThat(problem.message())
                .contains("is counted as unattributed"));
    }

    @Test
    void shouldKeepTheRoundWhenASourceOrALookupFails() {
        UsageSource broken = new UsageSource() {
            public String name() {
                return "hami";
            }

            public Result read() {
                throw new IllegalStateException("bug");
            }
        };
        UsageSource processes = source("nvidia-smi", Map.of("GPU-b", users("GPU-b", 3)));
        ProcessOwners failing = pid -> {
            throw new IllegalArgumentException("no job");
        };

        GpuSharing.Round round = new GpuSharing(SharePolicy.SM, true, List.of(broken, processes), failing)
                .users(List.of(GpuReading.builder("GPU-b").build()));

        assertThat(round.users().get("GPU-b").users()).containsExactly(GpuUser.process(3, 0.5, null));
        assertThat(round.problems()).extracting(GpuSharing.Problem::source)
                .containsExactly("hami", "process-owners");
    }

    private UsageSource source(String name, Map<String, GpuUsers> byGpu) {
        return new UsageSource() {
            public String name() {
                return name;
            }

            public Result read() {
                read.add(name);
                return new Result(byGpu, List.of());
            }
        };
    }

    private static GpuUsers users(String gpu, int pid) {
        return new GpuUsers(gpu, "test", List.of(GpuUser.process(pid, 0.5, null)), null);
    }
}
