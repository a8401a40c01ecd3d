package io.gpuledger.ingest.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gpuledger.ingest.price.PriceCatalog;
import io.gpuledger.model.CapacityEvent;
import io.gpuledger.model.CapacityEventKind;
import io.gpuledger.model.JobProgress;
import io.gpuledger.model.Json;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.TelemetrySample;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class FleetSimulationTest {

    private static final List<PriceQuote> CATALOG = PriceCatalog.loadDefault().quotes();
    private static final Instant T0 = Instant.parse("2026-03-01T12:00:00Z");
    private static final Duration TEN_SECONDS = Duration.ofSeconds(10);
    /** No interruptions: every GPU reporting is one the fleet started with. */
    private static final SimulationSettings STEADY =
            SimulationSettings.defaults(TEN_SECONDS).withSpotInterruptionsPerInstanceHour(0);

    @Test
    void shouldProduceTheSameRecordsFromTheSameSeedAndClock() {
        // Given a fleet whose spot capacity is interrupted and whose spot prices move often
        SimulationSettings busy = SimulationSettings.defaults(TEN_SECONDS)
                .withSpotInterruptionsPerInstanceHour(2).withSpotPriceChangesPerOfferHour(6);
        FleetSimulation first = new FleetSimulation(Fleet.generate(200, CATALOG, 9), CATALOG, busy, 9, T0);
        FleetSimulation second = new FleetSimulation(Fleet.generate(200, CATALOG, 9), CATALOG, busy, 9, T0);
        FleetSimulation otherSeed = new FleetSimulation(Fleet.generate(200, CATALOG, 9), CATALOG, busy, 10, T0);

        // When each steps through the same hour
        List<SimulationStep> firstSteps = steps(first, Duration.ofHours(1));
        List<SimulationStep> secondSteps = steps(second, Duration.ofHours(1));
        List<SimulationStep> otherSteps = steps(otherSeed, Duration.ofHours(1));

        // Then the same seed and clock give the very same records, and another seed other readings
        assertThat(firstSteps).hasSize(360).isEqualTo(secondSteps);
        assertThat(firstSteps).flatExtracting(SimulationStep::capacityEvents).isNotEmpty();
        assertThat(firstSteps).flatExtracting(SimulationStep::priceChanges).isNotEmpty();
        assertThat(firstSteps.get(0).telemetry()).isNotEqualTo(otherSteps.get(0).telemetry());
    }

    @Test
    void shouldTileSimulatedTimeWithRoundsThatEachCoverOneInterval() {
        // Given a simulation starting at T0
        FleetSimulation simulation = simulation(20, SimulationSettings.defaults(TEN_SECONDS), 1);

        // When it steps through ten minutes
        List<SimulationStep> steps = steps(simulation, Duration.ofMinutes(10));

        // Then there is a round every ten seconds, and each sample covers the ten seconds before its round's end
        assertThat(steps).extracting(SimulationStep::end).containsExactlyElementsOf(
                IntStream.rangeClosed(1, 60).mapToObj(k -> T0.plusSeconds(10L * k)).toList());
        assertThat(steps).allSatisfy(step -> assertThat(step.telemetry()).allSatisfy(sample -> {
            assertThat(sample.time()).isEqualTo(step.end());
            assertThat(sample.intervalSeconds()).isEqualTo(10.0);
        }));
        assertThat(simulation.now()).isEqualTo(T0.plus(Duration.ofMinutes(10)));
    }

    @Test
    void shouldReportIdleGpusBelowTheIdleThresholdAndBusyOnesAboveIt() {
        // Given a fleet with idle and busy GPUs
        FleetSimulation simulation = simulation(300, STEADY, 3);
        Map<String, SimulatedGpu> gpus = byUuid(simulation.fleet());

        // When it reports for ten minutes
        List<SimulationStep> steps = steps(simulation, Duration.ofMinutes(10));

        // Then idle GPUs stay under 5% SM activity and busy ones above it, every time
        assertThat(steps).flatExtracting(SimulationStep::telemetry).allSatisfy(sample -> {
            SimulatedGpu gpu = gpus.get(sample.gpuUuid());
            if (gpu.idle()) {
                assertThat(sample.smActive()).isLessThan(0.05);
            } else {
                assertThat(sample.smActive()).isGreaterThan(0.05);
            }
        });
    }

    @Test
    void shouldReportWorkFromEveryNodeOfAJobThatReportsAndNothingFromOneThatDoesNot() {
        // Given a fleet where some jobs report their work and others do not
        FleetSimulation simulation = simulation(600, SimulationSettings.defaults(TEN_SECONDS), 4);

        // When one round is produced
        SimulationStep step = simulation.next();

        // Then there is one report per node of each reporting job, naming the node's GPUs and the job's team
        Set<String> expected = simulation.fleet().instances().stream().filter(i -> i.job().publishesProgress())
                .map(i -> i.job().id() + "@" + i.instanceId()).collect(Collectors.toSet());
        assertThat(step.progress()).extracting(p -> p.jobId() + "@" + p.instanceId())
                .containsExactlyInAnyOrderElementsOf(expected);
        Map<String, SimulatedInstance> instances = simulation.fleet().instances().stream()
                .collect(Collectors.toMap(SimulatedInstance::instanceId, Function.identity()));
        assertThat(step.progress()).allSatisfy(report -> {
            SimulatedInstance node = instances.get(report.instanceId());
            assertThat(report.gpuUuids()).isEqualTo(node.gpuUuids());
            assertThat(report.team()).isEqualTo(node.job().team());
            assertThat(report.host()).isEqualTo(node.placement().host());
        });
        // And jobs that do not report still run, so their GPUs cost money with "no throughput reported"
        List<SimulatedJob> silent = simulation.fleet().jobs().stream()
                .filter(job -> !job.idle() && !job.publishesProgress()).toList();
        assertThat(silent).isNotEmpty();
        steps(simulation, Duration.ofMinutes(5));
        assertThat(silent).allSatisfy(job -> {
            assertThat(simulation.groundTruth().work(job.id())).isEmpty();
            assertThat(simulation.groundTruth().byJob().get(job.id()).gpuSeconds()).isPositive();
        });
    }

    @Test
    void shouldReportEachTrainingJobsFixedOverheadRatioAndTheNcclBytesOfARingAllReduce() {
        // Given a fleet with training over several GPUs and nodes
        FleetSimulation simulation = simulation(2000, SimulationSettings.defaults(TEN_SECONDS), 5);
        Map<String, SimulatedJob> jobs = simulation.fleet().jobs().stream()
                .collect(Collectors.toMap(SimulatedJob::id, Function.identity()));

        // When it reports for five minutes
        List<JobProgress> reports = steps(simulation, Duration.ofMinutes(5)).stream()
                .flatMap(step -> step.progress().stream()).toList();

        // Then every training report has exposed communication at its job's fixed ratio of 5–40% of step time
        List<JobProgress> collective = reports.stream()
                .filter(p -> jobs.get(p.jobId()).workload().training() && jobs.get(p.jobId()).gpus() > 1).toList();
        assertThat(collective).isNotEmpty().allSatisfy(report -> {
            SimulatedJob job = jobs.get(report.jobId());
            if (report.steps() > 0) {
                assertThat(report.commSeconds() / report.stepSeconds())
                        .isCloseTo(job.commOverheadRatio(), within(1e-9)).isBetween(0.05, 0.40);
            }
            // And NCCL bytes are what a ring all-reduce over all the job's GPUs moves: 2(n−1)/n of the reduced bytes
            int n = job.gpus();
            double perGpuStep = 2.0 * (n - 1) / n * job.allReduceBytes();
            assertThat(report.ncclBytes())
                    .isCloseTo(report.steps() * report.gpuUuids().size() * perGpuStep, within(1e-3 * perGpuStep));
            // So that busbw = algbw × 2(n−1)/n
            assertThat(job.algorithmBandwidth() * 2.0 * (n - 1) / n)
                    .isCloseTo(job.busBandwidth(), within(1e-6 * job.busBandwidth()));
        });
        assertThat(collective).extracting(JobProgress::unit).containsAnyOf("tokens", "samples");
        // And serving reports requests or tokens without collectives
        assertThat(reports).filteredOn(p -> jobs.get(p.jobId()).workload() == Workload.INFERENCE).isNotEmpty()
                .allSatisfy(report -> {
                    assertThat(report.unit()).isIn("requests", "tokens");
                    assertThat(report.commSeconds()).isNull();
                    assertThat(report.stepSeconds()).isLessThanOrEqualTo(report.intervalSeconds());
                });
    }

    @Test
    void shouldShowCommunicationBoundMemoryBoundAndServingJobsInTheirGpuMetrics() {
        // Given a large fleet
        FleetSimulation simulation = simulation(5000, STEADY, 6);
        Map<String, SimulatedGpu> gpus = byUuid(simulation.fleet());

        // When it reports for two minutes
        List<TelemetrySample> samples = steps(simulation, Duration.ofMinutes(2)).stream()
                .flatMap(step -> step.telemetry().stream()).toList();

        // Then, on the same GPU model, communication-bound training shows lower SM activity and more NVLink traffic
        Map<String, List<TelemetrySample>> commBound = new HashMap<>();
        Map<String, List<TelemetrySample>> computeBound = new HashMap<>();
        for (TelemetrySample sample : samples) {
            SimulatedJob job = gpus.get(sample.gpuUuid()).job();
            if (job.workload() == Workload.DISTRIBUTED_TRAINING && !job.memoryBound()) {
                if (job.commOverheadRatio() > 0.3) {
                    commBound.computeIfAbsent(sample.gpuModel(), m -> new ArrayList<>()).add(sample);
                } else if (job.commOverheadRatio() < 0.2) {
                    computeBound.computeIfAbsent(sample.gpuModel(), m -> new ArrayList<>()).add(sample);
                }
            }
        }
        Set<String> models = new HashSet<>(commBound.keySet());
        models.retainAll(computeBound.keySet());
        assertThat(models).isNotEmpty();
        for (String model : models) {
            assertThat(mean(commBound.get(model), TelemetrySample::smActive))
                    .as("SM activity on %s", model)
                    .isLessThan(mean(computeBound.get(model), TelemetrySample::smActive));
            assertThat(mean(commBound.get(model), TelemetrySample::nvlinkTxBytesPerSecond))
                    .as("NVLink traffic on %s", model)
                    .isGreaterThan(mean(computeBound.get(model), TelemetrySample::nvlinkTxBytesPerSecond));
        }
        // And memory-bound training keeps DRAM busier than its SMs, compute-bound training the other way round
        List<TelemetrySample> training = samples.stream()
                .filter(s -> gpus.get(s.gpuUuid()).job().workload().training()).toList();
        List<TelemetrySample> memoryBound = training.stream().filter(s -> gpus.get(s.gpuUuid()).job().memoryBound())
                .toList();
        List<TelemetrySample> computeBoundTraining = training.stream()
                .filter(s -> !gpus.get(s.gpuUuid()).job().memoryBound()).toList();
        assertThat(memoryBound).isNotEmpty().allSatisfy(s -> assertThat(s.dramActive()).isGreaterThan(s.smActive()));
        assertThat(computeBoundTraining).allSatisfy(s -> assertThat(s.smActive()).isGreaterThan(s.dramActive()));
        // And serving runs its SMs less than training does
        List<TelemetrySample> serving = samples.stream()
                .filter(s -> gpus.get(s.gpuUuid()).job().workload() == Workload.INFERENCE).toList();
        assertThat(mean(serving, TelemetrySample::smActive))
                .isLessThan(mean(training, TelemetrySample::smActive) - 0.2);
    }

    @Test
    void shouldInterruptSpotInstancesAtRoughlyTheConfiguredRateOverALongRun() {
        // Given spot instances interrupted at 0.5 per instance-hour, in rounds of five minutes
        double rate = 0.5;
        FleetSimulation simulation = simulation(600, SimulationSettings.defaults(Duration.ofMinutes(5))
                .withSpotInterruptionsPerInstanceHour(rate), 7);

        // When two simulated days go by, counting the hours spot instances ran without a notice yet
        double exposedHours = 0;
        Set<String> noticed = new HashSet<>();
        for (int round = 0; round < 48 * 12; round++) {
            SimulationStep step = simulation.next();
            exposedHours += simulation.running().stream()
                    .filter(instance -> instance.spot() && !noticed.contains(instance.instanceId())).count() / 12.0;
            step.capacityEvents().forEach(event -> noticed.add(event.instanceId()));
            assertThat(step.capacityEvents())
                    .allSatisfy(event -> assertThat(event.lifecycle()).isEqualTo(Lifecycle.SPOT));
        }

        // Then the notices per exposed instance-hour come out near the rate
        // (a Poisson count near 2,000: ±10% is over 4σ)
        assertThat(exposedHours).isGreaterThan(2000);
        assertThat(noticed.size() / exposedHours).isCloseTo(rate, within(rate * 0.1));
        assertThat(simulation.interruptions()).isEqualTo(noticed.size());
    }

    @Test
    void shouldGiveNoticeBeforeAnInstanceStopsReportingAndBringAReplacementAfterIt() {
        // Given AWS and other clouds' spot capacity interrupted often, replaced a minute after each deadline
        SimulationSettings settings = SimulationSettings.defaults(TEN_SECONDS)
                .withSpotInterruptionsPerInstanceHour(1).withReplacement(true, Duration.ofMinutes(1));
        FleetSimulation simulation = simulation(400, settings, 8);
        Set<String> starting = simulation.fleet().instances().stream().map(SimulatedInstance::instanceId)
                .collect(Collectors.toSet());

        // When three hours go by
        List<SimulationStep> steps = steps(simulation, Duration.ofHours(3));
        Map<String, List<Instant>> reportTimes = new HashMap<>();
        Map<String, String> poolAndJob = new HashMap<>();
        for (SimulationStep step : steps) {
            for (TelemetrySample sample : step.telemetry()) {
                reportTimes.computeIfAbsent(sample.instanceId(), id -> new ArrayList<>()).add(sample.time());
                poolAndJob.put(sample.instanceId(), sample.offer().key() + " " + sample.jobId());
            }
        }
        List<CapacityEvent> notices = steps.stream()
                .flatMap(step -> step.capacityEvents().stream()).toList();
        Instant end = simulation.now();

        // Then AWS gives two minutes with its instance-action document, the others 30 seconds
        assertThat(notices).extracting(CapacityEvent::provider).contains("aws")
                .anyMatch(provider -> !provider.equals("aws"));
        assertThat(notices).allSatisfy(notice -> {
            if (notice.provider().equals("aws")) {
                assertThat(notice.kind()).isEqualTo(CapacityEventKind.SPOT_INTERRUPTION);
                assertThat(Duration.between(notice.noticedAt(), notice.deadline())).isEqualTo(Duration.ofMinutes(2));
                Map<String, Object> raw = rawJson(notice);
                assertThat(raw).containsEntry("action", "terminate")
                        .containsEntry("time", notice.deadline().toString());
            } else {
                assertThat(notice.kind()).isEqualTo(CapacityEventKind.PREEMPTION);
                assertThat(Duration.between(notice.noticedAt(), notice.deadline())).isEqualTo(Duration.ofSeconds(30));
            }
            assertThat(notice.eventId()).isEqualTo(CapacityEvent.idOf(notice.provider(),
                    notice.instanceId(), notice.kind(), notice.deadline().toString()));
            // And the instance keeps reporting until its deadline, then never again
            List<Instant> times = reportTimes.get(notice.instanceId());
            assertThat(times).allMatch(time -> !time.isAfter(notice.deadline()));
            if (!notice.deadline().isAfter(end)) {
                assertThat(times).contains(notice.deadline());
            }
        });
        // And a fresh instance of the same pool takes over each lost node once the delay has passed
        List<CapacityEvent> replaceable = notices.stream()
                .filter(n -> !n.deadline().plus(Duration.ofMinutes(1)).plus(TEN_SECONDS).isAfter(end)).toList();
        List<String> newcomers = reportTimes.keySet().stream().filter(id -> !starting.contains(id)).toList();
        assertThat(replaceable).isNotEmpty();
        assertThat(newcomers).hasSize(replaceable.size());
        assertThat(simulation.replacements()).isEqualTo(replaceable.size());
        for (CapacityEvent notice : replaceable) {
            Instant earliest = notice.deadline().plus(Duration.ofMinutes(1)).plus(TEN_SECONDS);
            assertThat(newcomers).as("replacement of %s", notice.instanceId()).anyMatch(id ->
                    poolAndJob.get(id).equals(poolAndJob.get(notice.instanceId()))
                            && !reportTimes.get(id).get(0).isBefore(earliest));
        }
    }

    @Test
    void shouldLetInterruptedInstancesGoForGoodWhenReplacementIsOff() {
        // Given interruptions without replacement
        FleetSimulation simulation = simulation(200, SimulationSettings.defaults(TEN_SECONDS)
                .withSpotInterruptionsPerInstanceHour(2).withReplacement(false, Duration.ZERO), 12);
        int starting = simulation.fleet().instances().size();

        // When an hour goes by
        long notices = steps(simulation, Duration.ofHours(1)).stream().mapToLong(s -> s.capacityEvents().size()).sum();

        // Then every instance interrupted before the last two minutes is gone, and no new one came
        assertThat(notices).isPositive();
        assertThat(simulation.running()).hasSizeBetween(starting - (int) notices, starting - 1)
                .allMatch(instance -> instance.serial() < starting);
        assertThat(simulation.replacements()).isZero();
    }

    @Test
    void shouldPublishNewSpotPriceVersionsAtRoughlyTheConfiguredRate() {
        // Given spot prices that move six times an offer-hour
        FleetSimulation simulation = simulation(50, SimulationSettings.defaults(TEN_SECONDS)
                .withSpotPriceChangesPerOfferHour(6), 2);
        Map<String, PriceQuote> catalogSpot = CATALOG.stream().filter(q -> q.lifecycle() == Lifecycle.SPOT)
                .collect(Collectors.toMap(q -> q.offer().key(), Function.identity()));

        // When ten hours go by
        List<SimulationStep> steps = steps(simulation, Duration.ofHours(10));

        // Then about 60 new versions of each spot offer appear, each valid from the end of its round
        List<PriceQuote> changes = steps.stream().flatMap(step -> step.priceChanges().stream()).toList();
        assertThat(changes.size() / (double) catalogSpot.size()).isCloseTo(60, within(12.0));
        assertThat(steps).allSatisfy(step -> assertThat(step.priceChanges())
                .allSatisfy(quote -> assertThat(quote.validFrom()).isEqualTo(step.end())));
        // And each is a new version of a catalog spot offer: its own key, the same GPUs and currency, a sane price
        assertThat(changes).extracting(PriceQuote::key).doesNotHaveDuplicates()
                .doesNotContainAnyElementsOf(CATALOG.stream().map(PriceQuote::key).toList());
        assertThat(changes).allSatisfy(quote -> {
            PriceQuote catalog = catalogSpot.get(quote.offer().key());
            assertThat(catalog).isNotNull();
            assertThat(quote.gpuCount()).isEqualTo(catalog.gpuCount());
            assertThat(quote.currency()).isEqualTo(catalog.currency());
            assertThat(quote.pricePerHour()).isBetween(catalog.pricePerHour() * 0.6, catalog.pricePerHour() * 1.6);
        });
        // And every version moves the price: none repeats the one before it
        Map<String, PriceQuote> previous = new HashMap<>(catalogSpot);
        for (PriceQuote change : changes) {
            assertThat(change.pricePerHour()).isNotEqualTo(previous.put(change.offer().key(), change).pricePerHour());
        }
    }

    @Test
    void shouldConfirmThePriceInForceOfEveryOfferInItsFirstRoundAndEveryTenMinutesAfter() {
        // Given spot prices that move six times an offer-hour
        FleetSimulation simulation = simulation(50, SimulationSettings.defaults(TEN_SECONDS)
                .withSpotPriceChangesPerOfferHour(6), 2);

        // When an hour goes by
        List<SimulationStep> steps = steps(simulation, Duration.ofHours(1));

        // Then prices were confirmed in the first round and every ten minutes after it, and in no other round
        assertThat(steps).filteredOn(step -> !step.priceConfirmations().isEmpty()).extracting(SimulationStep::end)
                .containsExactly(IntStream.range(0, 6).mapToObj(i -> T0.plusSeconds(10 + 600L * i))
                        .toArray(Instant[]::new));
        // And each confirmation is the version in force of one offer when the round ended, under its
        // key, observed then: every offer of the catalog, once
        Map<String, List<PriceQuote>> versions = new HashMap<>();
        CATALOG.forEach(q -> versions.computeIfAbsent(q.offer().key(), k -> new ArrayList<>()).add(q));
        for (SimulationStep step : steps) {
            assertThat(step.priceConfirmations()).allSatisfy(confirmation -> {
                PriceQuote inForce = versions.get(confirmation.offer().key()).stream()
                        .max(Comparator.comparing(PriceQuote::validFrom)).orElseThrow();
                assertThat(confirmation).isEqualTo(inForce.confirmedAt(step.end()));
            });
            if (!step.priceConfirmations().isEmpty()) {
                assertThat(step.priceConfirmations()).extracting(q -> q.offer().key())
                        .containsExactlyInAnyOrderElementsOf(versions.keySet());
            }
            step.priceChanges().forEach(q -> versions.get(q.offer().key()).add(q));
        }
    }

    @Test
    void shouldKeepAGroundTruthOfEverySampleChargedAtThePriceVersionInForceAtItsMiddle() {
        // Given a fleet whose spot prices move and whose spot instances come and go
        FleetSimulation simulation = simulation(300, SimulationSettings.defaults(TEN_SECONDS)
                .withSpotPriceChangesPerOfferHour(12).withSpotInterruptionsPerInstanceHour(1), 14);

        // When an hour goes by
        List<SimulationStep> steps = steps(simulation, Duration.ofHours(1));

        // Then the ground truth per GPU is each published sample charged at the version in force at its middle
        Map<String, List<PriceQuote>> versions = new HashMap<>();
        CATALOG.forEach(q -> versions.computeIfAbsent(q.offer().key(), k -> new ArrayList<>()).add(q));
        steps.forEach(step -> step.priceChanges()
                .forEach(q -> versions.computeIfAbsent(q.offer().key(), k -> new ArrayList<>()).add(q)));
        Map<String, Double> costByGpu = new HashMap<>();
        Map<String, Double> secondsByGpu = new HashMap<>();
        for (SimulationStep step : steps) {
            for (TelemetrySample sample : step.telemetry()) {
                Instant middle = sample.time().minusSeconds(5).truncatedTo(ChronoUnit.SECONDS);
                PriceQuote inForce = versions.get(sample.offer().key()).stream()
                        .filter(q -> !q.validFrom().isAfter(middle))
                        .max(Comparator.comparing(PriceQuote::validFrom)).orElseThrow();
                costByGpu.merge(sample.gpuUuid(), inForce.pricePerGpuHour() * 10 / 3600, Double::sum);
                secondsByGpu.merge(sample.gpuUuid(), 10.0, Double::sum);
            }
        }
        GroundTruth truth = simulation.groundTruth();
        assertThat(truth.byGpu().keySet()).isEqualTo(costByGpu.keySet());
        costByGpu.forEach((gpu, cost) -> {
            assertThat(truth.byGpu().get(gpu).cost()).as(gpu).isCloseTo(cost, within(1e-9 * Math.max(1, cost)));
            assertThat(truth.byGpu().get(gpu).gpuSeconds()).isEqualTo(secondsByGpu.get(gpu));
        });
        // And jobs and pools add up to the same totals per currency
        assertThat(totals(truth.byJob())).isEqualTo(totals(truth.byPool()));
        Map<String, Long> totalsByGpu = totals(truth.byGpu());
        assertThat(totalsByGpu).isEqualTo(totals(truth.byPool()));
        // And the work of each reporting job is the sum of its reports
        Map<String, Double> unitsByJob = steps.stream().flatMap(step -> step.progress().stream())
                .collect(Collectors.groupingBy(JobProgress::jobId, Collectors.summingDouble(JobProgress::workUnits)));
        unitsByJob.forEach((job, units) -> assertThat(truth.work(job).orElseThrow().units())
                .isCloseTo(units, within(1e-6 * units)));
        assertThat(truth.workByJob()).hasSameSizeAs(unitsByJob);
    }

    private static FleetSimulation simulation(int gpus, SimulationSettings settings, long seed) {
        return new FleetSimulation(Fleet.generate(gpus, CATALOG, seed), CATALOG, settings, seed, T0);
    }

    private static List<SimulationStep> steps(FleetSimulation simulation, Duration span) {
        List<SimulationStep> steps = new ArrayList<>();
        simulation.run(span, steps::add);
        return steps;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> rawJson(CapacityEvent notice) {
        return Json.read(notice.raw().getBytes(StandardCharsets.UTF_8), Map.class);
    }

    private static Map<String, SimulatedGpu> byUuid(Fleet fleet) {
        return fleet.gpus().stream().collect(Collectors.toMap(SimulatedGpu::uuid, Function.identity()));
    }

    private static double mean(List<TelemetrySample> samples, Function<TelemetrySample, Double> reading) {
        return samples.stream().mapToDouble(reading::apply).average().orElseThrow();
    }

    /** Cost per currency in thousandths, so that sums taken in different orders compare equal. */
    private static Map<String, Long> totals(Map<String, Tally> tallies) {
        return tallies.values().stream().filter(t -> t.currency() != null).collect(Collectors.groupingBy(
                Tally::currency, Collectors.collectingAndThen(Collectors.summingDouble(Tally::cost), Math::round)));
    }
}
