package io.gpuledger.ingest.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gpuledger.ingest.price.PriceCatalog;
import io.gpuledger.model.Allocation;
import io.gpuledger.model.JobProgress;
import io.gpuledger.model.Json;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.SharePolicy;
import io.gpuledger.model.TelemetrySample;
import io.gpuledger.model.UsageRollup;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The simulated fleet's shared GPUs: what their samples say, and what the ground truth charges their jobs. */
class SharedGpuSimulationTest {

    private static final List<PriceQuote> CATALOG = PriceCatalog.loadDefault().quotes();
    private static final Instant T0 = Instant.parse("2026-03-01T12:00:00Z");
    private static final Duration TEN_SECONDS = Duration.ofSeconds(10);
    /**
     * The SHA-256 of every record of {@link #busyFleet} over its first half hour, as the simulator wrote them before
     * it shared GPUs.
     */
    private static final String RECORDS_BEFORE_SHARING =
            "4bba330ec73de037fd08ce765ef2a35d54de5807320c526b363c35ea4e7c70bc";

    @Test
    void shouldPublishTheVeryRecordsOfBeforeWhenNoGpuIsShared() throws Exception {
        // Given the fleet of a size and seed, with no GPU shared
        FleetSimulation simulation = busyFleet(Fleet.generate(300, CATALOG, 9));

        // When it runs for half an hour
        MessageDigest digest = MessageDigest.getInstance("SHA-256");
        List<SimulationStep> steps = steps(simulation, Duration.ofMinutes(30));
        for (SimulationStep step : steps) {
            digest.update(Json.MAPPER.writeValueAsBytes(step));
        }

        // Then it publishes byte for byte what it published before shared GPUs existed, none with allocations
        assertThat(HexFormat.of().formatHex(digest.digest())).isEqualTo(RECORDS_BEFORE_SHARING);
        assertThat(steps).flatExtracting(SimulationStep::telemetry).noneMatch(TelemetrySample::shared);
        assertThat(Fleet.generate(300, CATALOG, 9, 0).instances()).isEqualTo(simulation.fleet().instances());
    }

    @Test
    void shouldShareTheAskedPartOfTheFleetAmongTwoToFourJobsAGpu() {
        // When a fleet of 2,000 GPUs is laid out with a quarter of them shared
        Fleet fleet = Fleet.generate(2000, CATALOG, 3, 0.25);

        // Then about a quarter of its GPUs are shared, each by an inference replica that stays and up to three others
        assertThat(fleet.gpus()).hasSize(2000);
        long shared = fleet.gpus().stream().filter(gpu -> gpu.job().shared()).count();
        assertThat(shared / 2000.0).isCloseTo(0.25, within(0.02));
        assertThat(fleet.jobs()).filteredOn(SimulatedJob::shared).allSatisfy(job -> {
            assertThat(job.nodes() * job.gpusPerNode()).isOne();
            assertThat(job.team()).isNull();
            assertThat(job.tenants()).hasSizeBetween(2, 4);
            assertThat(job.tenants().get(0).resident()).isTrue();
            assertThat(job.tenants().get(0).workload()).isEqualTo(Workload.INFERENCE);
        });
        // And every tenant's id is its own, apart from the fleet's jobs
        Set<String> ids = new HashSet<>();
        fleet.jobs().forEach(job -> ids.add(job.id()));
        fleet.tenants().forEach(tenant -> assertThat(ids.add(tenant.id())).as(tenant.id()).isTrue());
        // And the other kinds of work keep their parts of the rest
        assertThat(fleet.gpusByWorkload().get(Workload.DISTRIBUTED_TRAINING) / 2000.0)
                .isCloseTo(0.45 * 0.75, within(0.05));
    }

    @Test
    void shouldReportSharesOfAtMostTheWholeGpuWithJobsComingAndGoing() {
        // Given a fleet of which a quarter is shared
        FleetSimulation simulation = steadyFleet(Fleet.generate(200, CATALOG, 5, 0.25));

        // When two hours go by
        List<TelemetrySample> shared = steps(simulation, Duration.ofHours(2)).stream()
                .flatMap(step -> step.telemetry().stream()).filter(TelemetrySample::shared).toList();

        // Then each shared GPU's sample names the shared job and its jobs' shares by SM time, adding up to at most 1
        assertThat(shared).isNotEmpty().allSatisfy(sample -> {
            assertThat(sample.jobId()).isEqualTo(TelemetrySample.SHARED_JOB);
            assertThat(sample.team()).isNull();
            assertThat(sample.allocations()).extracting(Allocation::measuredBy).containsOnly(SharePolicy.SM);
            assertThat(sumOfShares(sample)).isLessThanOrEqualTo(1 + TelemetrySample.SHARES_TOLERANCE);
        });
        // And the GPUs are idle part of the time, and now and then busy with a process of no job
        assertThat(shared).anyMatch(sample -> sumOfShares(sample) < 0.5);
        assertThat(shared).anyMatch(sample -> sample.gpuUtilization() > sumOfShares(sample) + 0.02);
        // And some allocations name no team
        assertThat(shared).flatExtracting(TelemetrySample::allocations).anyMatch(a -> a.team() == null);
        // And jobs come and go: a GPU's set of jobs is not the same in every sample
        Map<String, Set<List<String>>> jobSets = new HashMap<>();
        shared.forEach(sample -> jobSets.computeIfAbsent(sample.gpuUuid(), uuid -> new HashSet<>())
                .add(sample.allocations().stream().map(Allocation::jobId).toList()));
        assertThat(jobSets.values()).anyMatch(sets -> sets.size() > 1);
    }

    @Test
    void shouldChargeEachJobOfASharedGpuItsShareAndLeaveTheRestUnallocated() {
        // Given a fleet of which a quarter is shared, whose spot prices move
        FleetSimulation simulation = new FleetSimulation(Fleet.generate(120, CATALOG, 11, 0.25), CATALOG,
                SimulationSettings.defaults(TEN_SECONDS).withSpotInterruptionsPerInstanceHour(0)
                        .withSpotPriceChangesPerOfferHour(12), 11, T0);

        // When an hour goes by
        List<SimulationStep> steps = steps(simulation, Duration.ofHours(1));

        // Then, worked out by hand from the samples: each shared GPU's cost at the price in force at each sample's
        // middle, each job's share of it, and what is left of it
        Map<String, List<PriceQuote>> versions = new HashMap<>();
        CATALOG.forEach(q -> versions.computeIfAbsent(q.offer().key(), k -> new ArrayList<>()).add(q));
        steps.forEach(step -> step.priceChanges().forEach(q -> versions.get(q.offer().key()).add(q)));
        Map<String, Double> gpuCost = new HashMap<>();
        Map<String, Double> jobCost = new HashMap<>();
        Map<String, Double> jobSeconds = new HashMap<>();
        Map<String, Double> unallocatedCost = new HashMap<>();
        Map<String, Set<String>> jobsOfGpu = new HashMap<>();
        for (SimulationStep step : steps) {
            for (TelemetrySample sample : step.telemetry()) {
                if (!sample.shared()) {
                    continue;
                }
                Instant middle = sample.time().minusSeconds(5).truncatedTo(ChronoUnit.SECONDS);
                PriceQuote inForce = versions.get(sample.offer().key()).stream()
                        .filter(q -> !q.validFrom().isAfter(middle))
                        .max(Comparator.comparing(PriceQuote::validFrom)).orElseThrow();
                double cost = inForce.pricePerGpuHour() * 10 / 3600;
                gpuCost.merge(sample.gpuUuid(), cost, Double::sum);
                unallocatedCost.merge(sample.gpuUuid(), cost * (1 - sumOfShares(sample)), Double::sum);
                for (Allocation allocation : sample.allocations()) {
                    jobCost.merge(allocation.jobId(), cost * allocation.share(), Double::sum);
                    jobSeconds.merge(allocation.jobId(), 10 * allocation.share(), Double::sum);
                    jobsOfGpu.computeIfAbsent(sample.gpuUuid(), uuid -> new HashSet<>()).add(allocation.jobId());
                }
            }
        }
        GroundTruth truth = simulation.groundTruth();
        assertThat(jobCost).isNotEmpty();
        jobCost.forEach((job, cost) -> {
            assertThat(truth.byJob().get(job).cost()).as(job).isCloseTo(cost, within(1e-9 * cost + 1e-12));
            assertThat(truth.byJob().get(job).gpuSeconds()).as(job).isCloseTo(jobSeconds.get(job), within(1e-9));
        });
        assertThat(truth.unallocatedByGpu().keySet()).isEqualTo(gpuCost.keySet());
        gpuCost.forEach((gpu, cost) -> {
            // And the GPU is charged whole, its jobs' parts and the unallocated rest adding up to it
            Tally whole = truth.byGpu().get(gpu);
            assertThat(whole.cost()).as(gpu).isCloseTo(cost, within(1e-9 * cost));
            double unallocated = truth.unallocatedByGpu().get(gpu).cost();
            assertThat(unallocated).as(gpu).isCloseTo(unallocatedCost.get(gpu), within(1e-9 * cost));
            double jobs = jobsOfGpu.get(gpu).stream().mapToDouble(job -> truth.byJob().get(job).cost()).sum();
            assertThat(jobs + unallocated).as(gpu).isCloseTo(whole.cost(), within(1e-9 * cost));
        });
        // And every job has its team, and the jobs with the shared GPUs' unallocated rest add up to the pools
        assertThat(truth.teams().keySet()).isEqualTo(truth.byJob().keySet());
        simulation.fleet().tenants().forEach(tenant -> assertThat(truth.teams().get(tenant.id()))
                .isEqualTo(tenant.team() == null ? UsageRollup.NO_TEAM : tenant.team()));
        Map<String, Double> pools = costByCurrency(truth.byPool());
        Map<String, Double> jobsAndUnallocated = costByCurrency(truth.byJob());
        costByCurrency(truth.unallocatedByPool()).forEach((currency, cost) ->
                jobsAndUnallocated.merge(currency, cost, Double::sum));
        assertThat(jobsAndUnallocated.keySet()).isEqualTo(pools.keySet());
        pools.forEach((currency, cost) -> assertThat(jobsAndUnallocated.get(currency)).as(currency)
                .isCloseTo(cost, within(1e-9 * cost)));
    }

    @Test
    void shouldReportEachReplicasWorkForTheTimeItWasGivenAndNoNotebooksWork() {
        // Given a fleet of which a quarter is shared
        FleetSimulation simulation = steadyFleet(Fleet.generate(200, CATALOG, 5, 0.25));
        Map<String, SharedTenant> tenants = new HashMap<>();
        simulation.fleet().tenants().forEach(tenant -> tenants.put(tenant.id(), tenant));

        // When two hours go by
        List<SimulationStep> steps = steps(simulation, Duration.ofHours(2));

        // Then the replicas on shared GPUs report their work, one report per interval each was on its GPU, naming
        // that GPU, and the notebooks report none
        List<JobProgress> reports = steps.stream().flatMap(step -> step.progress().stream())
                .filter(report -> tenants.containsKey(report.jobId())).toList();
        assertThat(reports).isNotEmpty().allSatisfy(report -> {
            SharedTenant tenant = tenants.get(report.jobId());
            assertThat(tenant.workload()).isEqualTo(Workload.INFERENCE);
            assertThat(report.unit()).isIn("tokens", "requests");
            assertThat(report.gpuUuids()).hasSize(1);
            assertThat(report.team()).isEqualTo(tenant.team());
        });
        Map<String, Long> intervalsOn = new HashMap<>();
        steps.forEach(step -> step.telemetry().stream().filter(TelemetrySample::shared)
                .flatMap(sample -> sample.allocations().stream())
                .filter(allocation -> tenants.get(allocation.jobId()).workload() == Workload.INFERENCE)
                .forEach(allocation -> intervalsOn.merge(allocation.jobId(), 1L, Long::sum)));
        Map<String, Long> reported = new HashMap<>();
        reports.forEach(report -> reported.merge(report.jobId(), 1L, Long::sum));
        assertThat(reported).isEqualTo(intervalsOn);

        // And each one's work is what it does in the GPU time the scheduler gave it (whole units, so within half a
        // unit a report), which the ground truth keeps
        GroundTruth truth = simulation.groundTruth();
        reported.forEach((job, count) -> {
            Work work = truth.work(job).orElseThrow();
            double units = reports.stream().filter(report -> report.jobId().equals(job))
                    .mapToDouble(JobProgress::workUnits).sum();
            assertThat(work.units()).as(job).isEqualTo(units);
            double expected = truth.byJob().get(job).gpuSeconds() * tenants.get(job).unitsPerGpuSecond();
            assertThat(work.units()).as(job).isCloseTo(expected, within(0.5 * count + 1e-6));
        });
        tenants.values().stream().filter(tenant -> tenant.workload() == Workload.NOTEBOOK)
                .forEach(tenant -> assertThat(truth.work(tenant.id())).as(tenant.id()).isEmpty());
    }

    @Test
    void shouldGiveEveryDemandWhenTheyFitAndSplitTheGpuFairlyWhenTheyDoNot() {
        assertThat(TimeSlicedGpu.fairShares(1000, new long[] {200, 300, 0})).containsExactly(200, 300, 0);
        // The smallest demand in full, the rest split evenly between the two larger ones
        assertThat(TimeSlicedGpu.fairShares(1000, new long[] {900, 100, 700})).containsExactly(450, 100, 450);
        // Whole milliseconds only: what does not divide evenly goes to the last
        assertThat(TimeSlicedGpu.fairShares(1000, new long[] {800, 800, 800})).containsExactly(333, 333, 334);
    }

    private static Map<String, Double> costByCurrency(Map<String, Tally> tallies) {
        Map<String, Double> costs = new HashMap<>();
        tallies.values().stream().filter(tally -> tally.currency() != null)
                .forEach(tally -> costs.merge(tally.currency(), tally.cost(), Double::sum));
        return costs;
    }

    private static double sumOfShares(TelemetrySample sample) {
        return sample.allocations().stream().mapToDouble(Allocation::share).sum();
    }

    /** Spot capacity interrupted and spot prices moving often, as in the simulator's own determinism test. */
    private static FleetSimulation busyFleet(Fleet fleet) {
        SimulationSettings busy = SimulationSettings.defaults(TEN_SECONDS)
                .withSpotInterruptionsPerInstanceHour(2).withSpotPriceChangesPerOfferHour(6);
        return new FleetSimulation(fleet, CATALOG, busy, 9, T0);
    }

    private static FleetSimulation steadyFleet(Fleet fleet) {
        return new FleetSimulation(fleet, CATALOG,
                SimulationSettings.defaults(TEN_SECONDS).withSpotInterruptionsPerInstanceHour(0), 5, T0);
    }

    private static List<SimulationStep> steps(FleetSimulation simulation, Duration span) {
        List<SimulationStep> steps = new ArrayList<>();
        simulation.run(span, steps::add);
        return steps;
    }
}
