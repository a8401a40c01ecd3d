package io.gpuledger.ingest.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gpuledger.ingest.price.PriceCatalog;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.PriceQuote;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FleetTest {

    private static final List<PriceQuote> CATALOG = PriceCatalog.loadDefault().quotes();

    @Test
    void shouldBuildTheSameFleetOfExactlyTheAskedSizeFromTheSameSeed() {
        // Given the same size, catalog and seed
        // When a fleet is laid out twice
        Fleet first = Fleet.generate(50, CATALOG, 7);
        Fleet second = Fleet.generate(50, CATALOG, 7);

        // Then it is the same fleet, GPU UUIDs included, of exactly that size
        assertThat(first.gpus()).hasSize(50).isEqualTo(second.gpus());
        assertThat(first.jobs()).isEqualTo(second.jobs());
        assertThat(first.gpus()).extracting(SimulatedGpu::uuid).doesNotHaveDuplicates()
                .allMatch(uuid -> uuid.matches("GPU-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"));
        assertThat(Fleet.generate(50, CATALOG, 8).gpus()).extracting(SimulatedGpu::uuid)
                .doesNotContainAnyElementsOf(first.gpus().stream().map(SimulatedGpu::uuid).toList());
    }

    @Test
    void shouldSpreadAThousandsOfGpusFleetOverEveryCatalogTypeAndLifecycle() {
        // Given the shipped catalog
        // When a fleet of five thousand GPUs is laid out
        Fleet fleet = Fleet.generate(5000, CATALOG, 1);

        // Then every instance type and every way of buying shows up, and instance ids are unique
        assertThat(fleet.gpus()).hasSize(5000);
        assertThat(fleet.gpus()).extracting(SimulatedGpu::instanceType).contains(
                "GN10Xp", "veGPU", "GCS.AI.8", "p4d.24xlarge", "p5.48xlarge", "g4dn.xlarge", "g5.xlarge");
        assertThat(fleet.gpus()).extracting(SimulatedGpu::lifecycle).contains(Lifecycle.values());
        assertThat(fleet.instances()).extracting(SimulatedInstance::instanceId).doesNotHaveDuplicates();
    }

    @Test
    void shouldGiveEvenATwoGpuFleetOneBusyAndOneIdleGpu() {
        // When the smallest fleet with room for both is laid out
        Fleet fleet = Fleet.generate(2, CATALOG, 5);

        // Then the first GPU works and the second idles
        assertThat(fleet.gpus()).extracting(SimulatedGpu::idle).containsExactly(false, true);
    }

    @Test
    void shouldKeepTheAlwaysPresentIdleGpuOffSpotCapacity() {
        // When fleets of several sizes are laid out
        for (int size : List.of(2, 12, 48, 300)) {
            Fleet fleet = Fleet.generate(size, CATALOG, 42);

            // Then the second job is an idle notebook that no spot interruption can take away
            SimulatedJob second = fleet.jobs().get(1);
            assertThat(second.workload()).as("fleet of %d", size).isEqualTo(Workload.NOTEBOOK);
            assertThat(second.offer().lifecycle()).isEqualTo(Lifecycle.ON_DEMAND);
        }
    }

    @Test
    void shouldMixMultiNodeTrainingSingleNodeTrainingInferenceAndIdleGpus() {
        // When a large fleet is laid out
        Fleet fleet = Fleet.generate(5000, CATALOG, 3);

        // Then its GPUs split roughly as the planner aims: most train, a fifth serve, some idle
        Map<Workload, Integer> byWorkload = fleet.gpusByWorkload();
        assertThat(share(byWorkload, Workload.DISTRIBUTED_TRAINING)).isCloseTo(0.45, within(0.05));
        assertThat(share(byWorkload, Workload.TRAINING)).isCloseTo(0.15, within(0.05));
        assertThat(share(byWorkload, Workload.INFERENCE)).isCloseTo(0.22, within(0.05));
        assertThat(share(byWorkload, Workload.NOTEBOOK) + share(byWorkload, Workload.UNALLOCATED))
                .isCloseTo(0.18, within(0.05));
        // And every job but spare capacity belongs to a team, and some busy jobs report no work at all
        assertThat(fleet.jobs()).filteredOn(job -> job.workload() != Workload.UNALLOCATED)
                .allMatch(job -> FleetPlanner.TEAMS.contains(job.team()));
        assertThat(fleet.jobs()).filteredOn(job -> !job.idle()).anyMatch(SimulatedJob::publishesProgress)
                .anyMatch(job -> !job.publishesProgress());
        assertThat(fleet.jobs()).filteredOn(SimulatedJob::idle).noneMatch(SimulatedJob::publishesProgress);
    }

    @Test
    void shouldRunMultiNodeTrainingOnTwoToEightWholeEightGpuInstancesOfOnePool() {
        // When a large fleet is laid out
        Fleet fleet = Fleet.generate(3000, CATALOG, 11);

        // Then every data-parallel job spans 2 to 8 whole 8-GPU nodes, all bought from its own pool
        List<SimulatedJob> distributed = fleet.jobs().stream()
                .filter(job -> job.workload() == Workload.DISTRIBUTED_TRAINING).toList();
        assertThat(distributed).isNotEmpty();
        for (SimulatedJob job : distributed) {
            List<SimulatedInstance> nodes = fleet.instances().stream().filter(i -> i.job() == job).toList();
            assertThat(nodes).hasSize(job.nodes()).hasSizeBetween(2, 8);
            assertThat(nodes).allSatisfy(node -> {
                assertThat(node.gpus()).hasSize(8);
                assertThat(node.offer()).isEqualTo(job.offer());
            });
            assertThat(nodes).extracting(SimulatedInstance::nodeRank).containsExactlyElementsOf(
                    java.util.stream.IntStream.range(0, job.nodes()).boxed().toList());
        }
    }

    @Test
    void shouldFixEachTrainingJobsCommunicationOverheadBetweenFiveAndFortyPercent() {
        // When a large fleet is laid out
        Fleet fleet = Fleet.generate(5000, CATALOG, 13);

        // Then training over several GPUs spends 5–40% of each step in exposed communication, more
        // across nodes than inside one, and a lone GPU none
        List<SimulatedJob> training = fleet.jobs().stream().filter(job -> job.workload().training()).toList();
        assertThat(training).filteredOn(job -> job.gpus() > 1).isNotEmpty()
                .allSatisfy(job -> assertThat(job.commOverheadRatio()).isBetween(0.05, 0.40));
        assertThat(training).filteredOn(job -> job.nodes() > 1)
                .allSatisfy(job -> assertThat(job.commOverheadRatio()).isBetween(0.10, 0.40));
        assertThat(training).filteredOn(job -> job.gpus() == 1)
                .isNotEmpty().allSatisfy(job -> assertThat(job.commOverheadRatio()).isZero());
    }

    private static double share(Map<Workload, Integer> counts, Workload workload) {
        int total = counts.values().stream().mapToInt(Integer::intValue).sum();
        return counts.getOrDefault(workload, 0) / (double) total;
    }
}
