package io.gpuledger.alerts.recommend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gpuledger.alerts.AlertSettings;
import io.gpuledger.alerts.TestSettings;
import io.gpuledger.model.CapacityEvent;
import io.gpuledger.model.CapacityEventKind;
import io.gpuledger.model.CloudEvent;
import io.gpuledger.model.EnrichedCapacityEvent;
import io.gpuledger.model.JobShare;
import io.gpuledger.model.JobTraits;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.MovableClock;
import io.gpuledger.model.Offer;
import io.gpuledger.model.PlacedGpu;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.Recommendation;
import io.gpuledger.model.RecommendationAction;
import io.gpuledger.model.RecommendationEvidence;
import io.gpuledger.model.RecommendationKind;
import io.gpuledger.model.RecommendationStatus;
import io.gpuledger.model.TelemetrySample;
import io.gpuledger.model.Topics;
import io.gpuledger.model.WorkloadClass;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Advice followed by automation must not lose money where the world is not what the rules assume.
 * Each test feeds the rules as the cost engine does and judges what they publish by what following it
 * would do to the bill: instances are billed whole, serving demand does not grow, a synchronous job on
 * spot loses all its instances' work at any one interruption, a commitment runs its term, and a month
 * holds one month of each saving.
 */
class AdviceOutsideItsAssumptionsTest {

    private static final Instant MONDAY = Instant.parse("2026-03-02T00:00:00Z");
    private static final Duration TTL = Duration.ofMinutes(10);
    private static final Offer P4D = onDemand("us-east-1", "p4d.24xlarge");
    private static final Offer P4DE = onDemand("us-east-1", "p4de.24xlarge");
    private static final Offer P3 = onDemand("us-east-1", "p3.2xlarge");
    private static final Offer G4DN = onDemand("us-east-1", "g4dn.xlarge");
    private static final Offer G5 = onDemand("us-east-1", "g5.xlarge");
    private static final double P4D_PRICE = 32.77;
    private static final double P4D_GPU = P4D_PRICE / 8;

    // ---- 1. the unit the bill has --------------------------------------------------------------

    @Test
    void shouldNotReclaimAnIdleGpuInsideAnInstanceItsBusyJobHolds() {
        // Given a p4d whose 8 GPUs run one job reporting its work: 7 busy, the 8th idle
        RulesOnMockTopic topic = topic(hourLookback());
        FleetFeed feed = new FleetFeed(topic);
        FleetFeed.Instance node = FleetFeed.Instance.of("i-train", P4D, "A100-40GB", 8);

        // When 40 closed minutes come
        for (int m = 0; m < 40; m++) {
            Instant start = minute(m);
            feed.instanceMinute(node, "train", start, P4D_GPU, gpu -> gpu == 7 ? 0.01 : 0.8);
            feed.jobMinute("train", start, 8, P4D_PRICE, "tokens", 1.0e6);
        }

        // Then nothing is reclaimed: the instance is billed whole and the job needs it
        assertThat(kinds(topic)).doesNotContain(RecommendationKind.RECLAIM_IDLE);
    }

    @Test
    void shouldShrinkAJobToTheInstancesItsBusyGpusNeedAndNameTheInstanceToRelease() {
        // Given a job on two p4d reporting work, the 8 GPUs of one busy, the 8 of the other idle
        RulesOnMockTopic topic = topic(hourLookback());
        FleetFeed feed = new FleetFeed(topic);
        FleetFeed.Instance busy = FleetFeed.Instance.of("i-a", P4D, "A100-40GB", 8);
        FleetFeed.Instance idle = FleetFeed.Instance.of("i-b", P4D, "A100-40GB", 8);

        // When 40 closed minutes come
        for (int m = 0; m < 40; m++) {
            Instant start = minute(m);
            feed.instanceMinute(busy, "wide", start, P4D_GPU, gpu -> 0.8);
            feed.instanceMinute(idle, "wide", start, P4D_GPU, gpu -> 0.01);
            feed.jobMinute("wide", start, 16, 2 * P4D_PRICE, "tokens", 1.0e6);
        }

        // Then one recommendation, for the job: keep one instance, release the idle one, whose whole
        // price (8 x 4.09625 = 32.77 USD an hour) is what releasing it saves an hour
        List<Recommendation> reclaims = topic.published().stream()
                .filter(r -> r.kind() == RecommendationKind.RECLAIM_IDLE).toList();
        assertThat(reclaims).extracting(Recommendation::id).containsOnly("reclaim_idle:job:wide");
        Recommendation shrink = reclaims.get(reclaims.size() - 1);
        RecommendationAction.ReclaimIdle release = (RecommendationAction.ReclaimIdle) shrink.action();
        assertThat(release.instanceIds()).containsExactly("i-b");
        assertThat(release.keepInstances()).isEqualTo(1);
        assertThat(((RecommendationEvidence.ReclaimIdle) shrink.evidence()).idleCostPerHour()).isCloseTo(P4D_PRICE,
                within(1e-6));
        assertThat(shrink.estimatedMonthlySaving()).isPositive().isLessThanOrEqualTo(P4D_PRICE * 720);
    }

    @Test
    void shouldNotReclaimAnIdleMigSliceOfAGpuItsOtherSlicesUse() {
        // Given a one-GPU a2-highgpu-1g split into seven 1g.10gb slices of one job: six busy, one idle
        RulesOnMockTopic topic = topic(hourLookback());
        FleetFeed feed = new FleetFeed(topic);
        FleetFeed.Instance node = new FleetFeed.Instance("i-mig", new Offer("gcp", "us-central1", "a2-highgpu-1g",
                Lifecycle.ON_DEMAND), "A100-40GB", 7, 1.0 / 7);

        // When 40 closed minutes come
        for (int m = 0; m < 40; m++) {
            Instant start = minute(m);
            feed.instanceMinute(node, "mig-job", start, 3.67, slice -> slice == 6 ? 0.01 : 0.6);
            feed.jobMinute("mig-job", start, 1, 3.67, "samples", 5_000);
        }

        // Then the slice is not reclaimed: the GPU cannot be freed while six slices use it
        assertThat(kinds(topic)).doesNotContain(RecommendationKind.RECLAIM_IDLE);
    }

    @Test
    void shouldNotReclaimTheGpusOfAServingJobAtNightWhileItServes() {
        // Given a serving job on two g4dn.xlarge at 2% SM activity in the quiet hours, serving requests
        RulesOnMockTopic topic = topic(hourLookback());
        FleetFeed feed = new FleetFeed(topic);
        FleetFeed.Instance first = FleetFeed.Instance.of("i-s1", G4DN, "T4-16GB", 1);
        FleetFeed.Instance second = FleetFeed.Instance.of("i-s2", G4DN, "T4-16GB", 1);

        // When 40 closed minutes of it come
        for (int m = 0; m < 40; m++) {
            Instant start = minute(m);
            feed.instanceMinute(first, "serve", start, 0.526, gpu -> 0.02);
            feed.instanceMinute(second, "serve", start, 0.526, gpu -> 0.02);
            feed.jobMinute("serve", start, 2, 2 * 0.526, "requests", 600);
        }

        // Then nothing is reclaimed: releasing its GPUs would drop the requests they serve
        assertThat(kinds(topic)).doesNotContain(RecommendationKind.RECLAIM_IDLE);
    }

    @Test
    void shouldNotReleaseTheInstancesOfAGangWaitingForTheCapacityTheCloudTookUntilTheWaitOutlastsHours() {
        // Given a synchronous job on two spot p4d, both busy and reporting work for 40 minutes, then one
        // taken back at minute 42 after its notice: the other's GPUs sit idle while the job waits for capacity
        RulesOnMockTopic topic = topic(hourLookback());
        FleetFeed feed = new FleetFeed(topic);
        Offer spotP4d = spot(P4D);
        FleetFeed.Instance kept = FleetFeed.Instance.of("i-kept", spotP4d, "A100-40GB", 8);
        FleetFeed.Instance taken = FleetFeed.Instance.of("i-taken", spotP4d, "A100-40GB", 8);
        for (int m = 0; m < 40; m++) {
            feed.instanceMinute(kept, "gang", minute(m), 9.831 / 8, gpu -> 0.8);
            feed.instanceMinute(taken, "gang", minute(m), 9.831 / 8, gpu -> 0.8);
            feed.jobMinute("gang", minute(m), 16, 2 * 9.831, "tokens", 1.0e6);
        }
        Instant reclaimed = minute(42);
        List<PlacedGpu> onIt = new ArrayList<>();
        for (int gpu = 0; gpu < 8; gpu++) {
            onIt.add(new PlacedGpu(taken.gpu(gpu), gpu, "A100-40GB", "gang", 9.831 / 8, "USD", minute(40)));
        }
        CapacityEvent notice = new CapacityEvent(CapacityEvent.SCHEMA_VERSION, "aws:i-taken:notice", "aws",
                "us-east-1", "i-taken", "p4d.24xlarge", "node-i-taken", Lifecycle.SPOT,
                CapacityEventKind.SPOT_INTERRUPTION, "terminate", minute(40), reclaimed, "imds", null);
        topic.rules.onCapacityEvent(EnrichedCapacityEvent.placed(notice, minute(40), onIt), topic.at(minute(40)));

        // When the kept instance idles, the job reporting no work, for seven hours after that
        for (int m = 40; m < 42 + 7 * 60; m++) {
            feed.instanceMinute(kept, "gang", minute(m), 9.831 / 8, gpu -> 0.01);
            if (m < 42) {
                feed.instanceMinute(taken, "gang", minute(m), 9.831 / 8, gpu -> 0.01);
            }
            feed.jobMinute("gang", minute(m), m < 42 ? 16 : 8, (m < 42 ? 2 : 1) * 9.831, "tokens", 0);
        }

        // Then nothing is released while capacity may come back (waits of hours are common for large
        // instances); once the wait has lasted six hours, the instance held for nothing is worth releasing
        List<Recommendation> reclaims = topic.published().stream()
                .filter(r -> r.kind() == RecommendationKind.RECLAIM_IDLE).toList();
        assertThat(reclaims).isNotEmpty().allSatisfy(r -> assertThat(r.createdAt())
                .isAfterOrEqualTo(reclaimed.plus(Duration.ofHours(6))));
        assertThat(reclaims.get(0).id()).isEqualTo("reclaim_idle:job:gang");
    }

    @Test
    void shouldNotShrinkAServingFleetWhoseRequestsLeaveMostOfItsGpusQuietAtNight() {
        // Given a serving job on four g4dn.xlarge that says it serves, its requests at a quiet hour keeping
        // one T4 at 40% and the three others at 2%
        RulesOnMockTopic topic = topic(hourLookback());
        FleetFeed feed = new FleetFeed(topic);
        topic.rules.onProgress(new RulesOnMockTopic.Job("serve4", G4DN, "T4-16GB", 4, 0.526, 0.1).report(MONDAY,
                new JobTraits("resnet50-int8", false, null, null, WorkloadClass.INFERENCE)), MONDAY);
        List<FleetFeed.Instance> fleet = List.of(FleetFeed.Instance.of("i-q1", G4DN, "T4-16GB", 1),
                FleetFeed.Instance.of("i-q2", G4DN, "T4-16GB", 1), FleetFeed.Instance.of("i-q3", G4DN, "T4-16GB", 1),
                FleetFeed.Instance.of("i-q4", G4DN, "T4-16GB", 1));

        // When 40 closed minutes of it come
        for (int m = 0; m < 40; m++) {
            Instant start = minute(m);
            for (FleetFeed.Instance instance : fleet) {
                feed.instanceMinute(instance, "serve4", start, 0.526, gpu -> instance.id().equals("i-q1") ? 0.4 : 0.02);
            }
            feed.jobMinute("serve4", start, 4, 4 * 0.526, "images", 20_000);
        }

        // Then it keeps them all: its requests are spread over every GPU, and the next busy hour needs them
        assertThat(kinds(topic)).doesNotContain(RecommendationKind.RECLAIM_IDLE);
    }

    @Test
    void shouldNotSwitchAOneGpuJobToAnInstanceOfEightGpusThatItWouldPayForWhole() {
        // Given a one-GPU training job on a p3.2xlarge (a V100, 3.06 USD/h), and p4d (8 A100s) on offer
        RulesOnMockTopic.Job small = new RulesOnMockTopic.Job("small", P3, "V100-16GB", 1, 3.06, 0.9);

        // When an hour and more of it comes
        RulesOnMockTopic topic = anHourAmong(topic(hourLookback()), small,
                new JobTraits("resnet-train", false, null, null, WorkloadClass.TRAINING), "images", 100_000,
                FleetFeed.quote(P3, "V100-16GB", 1, 3.06), FleetFeed.quote(P4D, "A100-40GB", 8, P4D_PRICE));

        // Then it is not told to move: one A100 would twice its speed, but the p4d it would take is billed
        // whole, 32.77 USD/h, for work that costs 3.06 an hour now
        assertThat(movesTo(topic, "small")).doesNotContain(P4D.key());
    }

    @Test
    void shouldNotMoveAServingFleetOnToAnInstanceWhoseSpeedNoRequestAsksFor() {
        // Given a serving fleet on four p3.2xlarge (V100s, 12.24 USD/h together) with a steady demand of
        // 9M images an hour, and p4d (8 A100s, 9 times a V100 at INT8 by the published figures) on offer
        RulesOnMockTopic.Job serve = new RulesOnMockTopic.Job("serve", P3, "V100-16GB", 4, 3.06, 0.3);

        // When an hour and more of it comes
        RulesOnMockTopic topic = anHourAmong(topic(hourLookback()), serve,
                new JobTraits("resnet50-int8", false, null, null, WorkloadClass.INFERENCE), "images", 150_000,
                FleetFeed.quote(P3, "V100-16GB", 1, 3.06), FleetFeed.quote(P4D, "A100-40GB", 8, P4D_PRICE));

        // Then it is not told to move to p4d: the same requests on the one p4d it would need cost
        // 32.77 USD/h against 12.24 now, a loss of 20.53 USD every hour
        assertThat(movesTo(topic, "serve")).doesNotContain(P4D.key());
    }

    @Test
    void shouldSizeASwitchOfAServingFleetByThePeakItCarriesAndClaimNoMoreThanTheBillShrinks() {
        // Given the serving fleet on four V100s (12.24 USD/h) with g4dn.xlarge (one T4, 0.526 USD/h) on offer
        RulesOnMockTopic.Job serve = new RulesOnMockTopic.Job("serve", P3, "V100-16GB", 4, 3.06, 0.3);

        // When an hour and more of it comes, 9M images an hour
        RulesOnMockTopic topic = anHourAmong(topic(hourLookback()), serve,
                new JobTraits("resnet50-int8", false, null, null, WorkloadClass.INFERENCE), "images", 150_000,
                FleetFeed.quote(P3, "V100-16GB", 1, 3.06), FleetFeed.quote(G4DN, "T4-16GB", 1, 0.526));

        // Then the switch names how many T4 instances carry the demand, and following it saves at most
        // what those cost less than the V100s. In this test's world the V100s ran their peak with 20% to
        // spare (each could serve 2.25M x 1.2 = 2.7M images an hour) and a T4 serves 1.3 times a V100,
        // 3.51M: the T4s named carry the 9M an hour, and the bill shrinks by at least the claim
        Recommendation toT4 = topic.published().stream()
                .filter(r -> r.kind() == RecommendationKind.SWITCH_INSTANCE_TYPE).reduce((a, b) -> b).orElseThrow();
        int instances = ((RecommendationAction.SwitchInstanceType) toT4.action()).toInstances();
        assertThat(instances * 3.51e6).as("capacity of the named T4s").isGreaterThanOrEqualTo(9e6);
        double billShrinks = (12.24 - instances * 0.526)
                * ((RecommendationEvidence.SwitchInstanceType) toT4.evidence()).hoursPerMonth();
        assertThat(toT4.estimatedMonthlySaving()).isLessThanOrEqualTo(billShrinks + 1e-6);
        assertThat(toT4.estimatedMonthlySaving()).isCloseTo(billShrinks, within(billShrinks * 0.01));
    }

    // ---- 3. gangs on spot -------------------------------------------------------------------------

    @Test
    void shouldNotMoveASynchronousJobOfTwelveInstancesCheckpointingEveryFourHoursToSpot() {
        // Given a synchronous job on 12 p4d (96 A100s) that checkpoints every 4 hours, on demand at 32.77
        // an instance-hour, with spot at 9.831 and no interruption band known (the rules' default rate,
        // one interruption per 20 instance-hours)
        RulesOnMockTopic.Job gang = new RulesOnMockTopic.Job("gang", P4D, "A100-40GB", 96, P4D_GPU, 0.85);

        // When an hour and more of it comes
        RulesOnMockTopic topic = anHourAmong(topic(hourLookback()), gang,
                new JobTraits("llama-70b", true, 4.0 * 3600, null), "tokens", 5.0e6,
                FleetFeed.quote(P4D, "A100-40GB", 8, P4D_PRICE), FleetFeed.quote(spot(P4D), "A100-40GB", 8, 9.831));

        // Then it is not moved: in a simulated world where each instance is taken back at that rate and
        // a restart takes 15 minutes, 1000 hours of its work on spot keep so little that they cost more
        // than on demand
        SpotGangSimulation.Result world = SpotGangSimulation.run(12, 0.05, 4, 0.25, 1000, 12, 1);
        double spotPaid = world.paidInstanceHours() * 9.831;
        double onDemandForTheWork = world.usefulHours() * 12 * P4D_PRICE;
        assertThat(spotPaid).as("spot paid for the work").isGreaterThan(onDemandForTheWork);
        assertThat(topic.published()).filteredOn(r -> r.kind() == RecommendationKind.MOVE_TO_SPOT)
                .allSatisfy(r -> assertThat(movesTo(r)).isNull());
    }

    @Test
    void shouldStateTheWorkACheckpointBeforeTheDeadlineKeepsOfAWholeSynchronousJob() {
        // Given a synchronous job on four spot p4d (32 A100s at 9.831 / 8 USD/h each, 39.324 an hour in all)
        // that checkpoints every 30 minutes, sharing one of its instances with an evaluation that says nothing
        RulesOnMockTopic topic = topic(hourLookback());
        RulesOnMockTopic.Job gang = new RulesOnMockTopic.Job("gang", spot(P4D), "A100-40GB", 32, 9.831 / 8, 0.8);
        topic.rules.onProgress(gang.report(MONDAY, new JobTraits("llama", true, 1800.0, null)), MONDAY);
        runJob(topic, gang, 10, "tokens", 1.0e6);

        // When that instance is given its two minutes' notice: six GPUs of the job, two of the evaluation
        Instant noticed = minute(10).plusSeconds(5);
        List<PlacedGpu> gpus = new ArrayList<>();
        for (int gpu = 0; gpu < 8; gpu++) {
            gpus.add(new PlacedGpu("GPU-" + gpu, gpu, "A100-40GB", gpu < 6 ? "gang" : "eval", 9.831 / 8, "USD",
                    minute(10)));
        }
        CapacityEvent notice = new CapacityEvent(CapacityEvent.SCHEMA_VERSION, "aws:i-g:notice", "aws", "us-east-1",
                "i-g", "p4d.24xlarge", "node-g", Lifecycle.SPOT, CapacityEventKind.SPOT_INTERRUPTION, "terminate",
                noticed, noticed.plusSeconds(120), "imds", null);
        Recommendation evacuate = topic.rules.onCapacityEvent(EnrichedCapacityEvent.placed(notice, noticed, gpus),
                topic.at(noticed)).orElseThrow();

        // Then it says to checkpoint the job first: when one instance goes, all four lose the work since the
        // last checkpoint, anywhere from none to 30 minutes of it, 15 minutes on average: 39.324 / 4 = 9.831
        assertThat(((RecommendationAction.Evacuate) evacuate.action()).jobs()).contains(
                new RecommendationAction.JobToMove("gang", 6, true),
                new RecommendationAction.JobToMove("eval", 2, false));
        assertThat(((RecommendationEvidence.Evacuate) evacuate.evidence()).expectedWorkAtRisk()).isCloseTo(9.831,
                within(1e-9));
    }

    @Test
    void shouldAskAJobSeenOnlyOnSharedGpusToCheckpointBeforeItsInstanceGoes() {
        // Given a fine-tuning job that checkpoints every 20 minutes, time-sliced with an inference replica on the one
        // GPU of a spot g5.xlarge (its windows name job "shared", its part 0.6 of the GPU's 1.2 USD/h), and no GPU of
        // its own anywhere: no window names it, so its placement is known only from the shared GPU
        RulesOnMockTopic topic = topic(hourLookback());
        RulesOnMockTopic.Job tuner = new RulesOnMockTopic.Job("tuner", spot(G5), "A10G-24GB", 1, 1.2, 0.5);
        topic.rules.onProgress(tuner.report(MONDAY, new JobTraits("mistral", true, 1200.0, null)), MONDAY);

        // When the instance is given its two minutes' notice
        Instant noticed = MONDAY.plusSeconds(5);
        PlacedGpu gpu = new PlacedGpu("GPU-s", 0, "A10G-24GB", TelemetrySample.SHARED_JOB, 1.2, "USD", MONDAY,
                List.of(new JobShare("tuner", 0.5), new JobShare("replica", 0.3)));
        CapacityEvent notice = new CapacityEvent(CapacityEvent.SCHEMA_VERSION, "aws:i-s:notice", "aws", "us-east-1",
                "i-s", "g5.xlarge", "node-s", Lifecycle.SPOT, CapacityEventKind.SPOT_INTERRUPTION, "terminate",
                noticed, noticed.plusSeconds(120), "imds", null);
        Recommendation evacuate = topic.rules.onCapacityEvent(EnrichedCapacityEvent.placed(notice, noticed,
                List.of(gpu)), topic.at(noticed)).orElseThrow();

        // Then it says to checkpoint the tuner first, not the replica, which says nothing of checkpoints; the work at
        // risk is at least its part here: half of 20 minutes at 0.6 USD/h, 0.1 USD
        assertThat(((RecommendationAction.Evacuate) evacuate.action()).jobs()).containsExactly(
                new RecommendationAction.JobToMove("replica", 1, false),
                new RecommendationAction.JobToMove("tuner", 1, true));
        assertThat(((RecommendationEvidence.Evacuate) evacuate.evidence()).expectedWorkAtRisk()).isCloseTo(0.1,
                within(1e-9));
    }

    // ---- 4. commitments ---------------------------------------------------------------------------

    @Test
    void shouldReserveWhatStaysBusyAndStateTheCommitment() {
        // Given a week and an hour of a p4d pool with 10 instances busy three hours in four and 4 the
        // fourth, on demand at 32.77 and reserved at 21.3005 an hour (no term stated by the price)
        RulesOnMockTopic topic = topic(documented());
        FleetFeed feed = new FleetFeed(topic);
        topic.rules.onPrice(FleetFeed.quote(P4D, "A100-40GB", 8, P4D_PRICE));
        topic.rules.onPrice(FleetFeed.quote(reserved(P4D), "A100-40GB", 8, 21.3005));

        // When its hours come
        for (int h = 0; h <= 169; h++) {
            feed.poolHour(P4D, MONDAY.plus(Duration.ofHours(h)), h % 4 == 0 ? 4 * 8 : 10 * 8);
        }

        // Then it reserves the 4 instances busy all the time, not the 10 busy three hours in four: a
        // pool that shrinks by a third leaves 6 reservations of 10 unused a quarter of the time
        Recommendation reserve = latest(topic, "reserve_capacity:pool:" + P4D.key()).orElseThrow();
        assertThat(((RecommendationAction.ReserveCapacity) reserve.action()).reserveInstances()).isEqualTo(4);
        // And it says what it commits to: a year (the default where the price states no term) of 4
        // instances at 21.3005 an hour, 8760 hours: 746,369.52 USD; break-even at 21.3005 / 32.77 = 65%
        var figures = (RecommendationEvidence.ReserveCapacity) reserve.evidence();
        assertThat(figures.commitment().termMonths()).isEqualTo(12);
        assertThat(figures.commitment().totalCommitment()).isCloseTo(4 * 21.3005 * 8760, within(1e-3));
        assertThat(figures.breakEvenUtilization()).isCloseTo(0.65, within(1e-9));
        assertThat(figures.commitment().paymentOption()).isEqualTo("not stated");
        assertThat(figures.commitment().historyHours()).isPositive();
        assertThat(figures.baselineInstances()).isEqualTo(4);
    }

    @Test
    void shouldNotAskAPoolAlreadyCoveredToBuyAgainAfterARestart() {
        // Given a p4d pool of 4 instances busy all the time, whose reservation the rules recommended and
        // a hook acknowledged (and bought)
        RulesOnMockTopic before = topic(documented());
        String id = reservationOfFourAcknowledged(before);
        int bought = ((RecommendationAction.ReserveCapacity) latest(before, id).orElseThrow().action())
                .reserveInstances();

        // When the alert service restarts an hour later, reading its records back, and sees the pool's
        // next week and a day (its instances still on-demand instances: a reservation is a billing matter)
        Instant restart = MONDAY.plus(Duration.ofHours(171));
        MockProducer<String, CloudEvent<Recommendation>> producer = new MockProducer<>(true, null,
                new StringSerializer(), Topics.RECOMMENDATIONS.valueSerde().serializer());
        RecommendationBook book = new RecommendationBook(Duration.ofDays(7));
        before.published().forEach(book::restore);
        MovableClock clock = new MovableClock(restart);
        RecommendationDesk desk = new RecommendationDesk(book, producer, new SimpleMeterRegistry(), clock, "USD");
        RecommendationRules after = new RecommendationRules(desk, GpuCatalog.defaults(), documented());
        after.onPrice(FleetFeed.quote(P4D, "A100-40GB", 8, P4D_PRICE));
        after.onPrice(FleetFeed.quote(reserved(P4D), "A100-40GB", 8, 21.3005));
        for (int h = 171; h <= 171 + 8 * 24; h++) {
            Instant start = MONDAY.plus(Duration.ofHours(h));
            clock.set(start.plusSeconds(3605));
            FleetFeed.poolHour(after, P4D, start, 4 * 8, clock.instant());
        }

        // Then no new record asks to buy more: a hook that buys what every open recommendation says
        // holds the 4 instances the pool keeps busy, not 8
        List<Recommendation> opened = producer.history().stream().map(record -> record.value().data())
                .filter(r -> r.id().equals(id) && r.status() == RecommendationStatus.OPEN).toList();
        assertThat(opened).isEmpty();
        assertThat(bought).isEqualTo(4);
    }

    @Test
    void shouldKeepABoughtReservationWhileThePricesItWasJudgedOnChange() {
        // Given the p4d pool of 4 instances busy all the time, its reservation recommended and acknowledged
        RulesOnMockTopic topic = topic(documented());
        FleetFeed feed = new FleetFeed(topic);
        String id = reservationOfFourAcknowledged(topic);
        int before = topic.published(id).size();

        // When the reserved price rises above on demand for a day (a new term's price, a feed's error), then
        // comes back
        topic.rules.onPrice(new PriceQuote("aws", "us-east-1", "p4d.24xlarge", Lifecycle.RESERVED, "A100-40GB", 8,
                40.0, "USD", Instant.parse("2026-03-09T00:00:00Z"), "test"));
        for (int h = 170; h < 194; h++) {
            feed.poolHour(P4D, MONDAY.plus(Duration.ofHours(h)), 4 * 8);
        }
        topic.rules.onPrice(new PriceQuote("aws", "us-east-1", "p4d.24xlarge", Lifecycle.RESERVED, "A100-40GB", 8,
                21.3005, "USD", Instant.parse("2026-03-10T00:00:00Z"), "test"));
        for (int h = 194; h < 218; h++) {
            feed.poolHour(P4D, MONDAY.plus(Duration.ofHours(h)), 4 * 8);
        }

        // Then what was bought stays bought: it is neither withdrawn nor asked for again, which would have a hook
        // that buys what every open record says hold 8 reservations for a pool that keeps 4 busy
        assertThat(topic.published(id).subList(before, topic.published(id).size()))
                .extracting(Recommendation::status).doesNotContain(RecommendationStatus.WITHDRAWN,
                        RecommendationStatus.OPEN);
    }

    // ---- 5. one claim per situation --------------------------------------------------------------

    @Test
    void shouldClaimANotebookIdleEveryNightOnceForTheHoursItIsIdle() {
        // Given a notebook on a g5.xlarge (1.006 USD/h) used from 09:00 to 11:00 every day and idle the
        // rest, whose GPU a hook releases as soon as a reclaim is published (acknowledging it); its
        // user gets a new instance at 09:00
        RulesOnMockTopic topic = topic(documented());
        FleetFeed feed = new FleetFeed(topic);
        boolean released = false;
        int placement = 0;
        Set<String> acknowledged = new HashSet<>();

        // When three days go by
        for (int m = 0; m < 3 * 1440; m++) {
            Instant start = minute(m);
            int minuteOfDay = m % 1440;
            boolean session = minuteOfDay >= 9 * 60 && minuteOfDay < 11 * 60;
            if (released && minuteOfDay == 9 * 60) {
                released = false;
                placement++;
            }
            if (!released) {
                feed.instanceMinute(FleetFeed.Instance.of("i-nb-" + placement, G5, "A10G-24GB", 1), "notebook",
                        start, 1.006, gpu -> session ? 0.45 : 0.01);
            }
            for (Recommendation r : topic.published()) {
                if (r.kind() == RecommendationKind.RECLAIM_IDLE && r.status() == RecommendationStatus.OPEN
                        && acknowledged.add(r.id() + "@" + r.createdAt())) {
                    topic.desk.acknowledge(r.id());
                    released = true;
                }
            }
            topic.rules.sweep(topic.at(start.plusSeconds(62)));
        }

        // Then it is one situation, claimed once: one id for its three nights, never more than the
        // month of the instance (1.006 x 720 = 724.32), and on the third night what its nights save:
        // released from 11:30 to 09:00, 21.5 hours a day, 30 x 21.5 x 1.006 = 648.87 USD a month
        List<Recommendation> reclaims = topic.published().stream()
                .filter(r -> r.kind() == RecommendationKind.RECLAIM_IDLE).toList();
        assertThat(reclaims).extracting(Recommendation::id).containsOnly("reclaim_idle:job:notebook");
        assertThat(reclaims).allSatisfy(r -> assertThat(r.estimatedMonthlySaving()).isLessThanOrEqualTo(1.006 * 720));
        assertThat(reclaims.get(reclaims.size() - 1).estimatedMonthlySaving()).isCloseTo(648.87, within(65.0));
    }

    @Test
    void shouldNeverClaimMoreForOneJobThanItsMonthlyBill() {
        // Given an interruptible job on p4d (32.77 USD/h) spending a third of each step communicating,
        // whose workload runs on p4de for a third less per token, where p4d spot sells at 9.831
        RulesOnMockTopic topic = topic(hourLookback());
        topic.rules.onPrice(FleetFeed.quote(P4D, "A100-40GB", 8, P4D_PRICE));
        topic.rules.onPrice(FleetFeed.quote(spot(P4D), "A100-40GB", 8, 9.831));
        topic.rules.onPrice(FleetFeed.quote(P4DE, "A100-80GB", 8, 40.97));
        RulesOnMockTopic.Job job = new RulesOnMockTopic.Job("llm-a", P4D, "A100-40GB", 8, P4D_GPU, 0.8);
        RulesOnMockTopic.Job peer = new RulesOnMockTopic.Job("llm-b", P4DE, "A100-80GB", 8, 40.97 / 8, 0.8);
        topic.rules.onProgress(job.report(MONDAY, new JobTraits("llm-train", true, 1800.0, null)), MONDAY);
        topic.rules.onProgress(peer.report(MONDAY, new JobTraits("llm-train", false, null, null)), MONDAY);

        // When an hour and more of both comes
        for (int m = 0; m < 64; m++) {
            Instant start = minute(m);
            Instant now = topic.at(start.plusSeconds(62));
            job.minute(start, 1, "tokens", 1.0e6, 0.34, false).feed(topic.rules, now);
            peer.minute(start, 1, "tokens", 2.5e6, 0.1, false).feed(topic.rules, now);
        }

        // Then what stands for the job claims no more than its month costs, 32.77 x 720 = 23,594.40 USD,
        // and tells it one place to go
        List<Recommendation> standing = topic.desk.list(r -> r.target().id().equals("llm-a")
                && r.status().actionable());
        assertThat(standing).isNotEmpty();
        assertThat(standing.stream().mapToDouble(Recommendation::estimatedMonthlySaving).sum())
                .isLessThanOrEqualTo(P4D_PRICE * 720);
        assertThat(standing).filteredOn(r -> movesTo(r) != null).hasSizeLessThanOrEqualTo(1);
    }

    // ---- 6. switch where the job can go -----------------------------------------------------------

    @Test
    void shouldKeepAJobInItsRegionUnlessTheDeploymentAllowsOthers() {
        // Given a job on p3.2xlarge in us-east-1 at 3.06 USD/h, and the same type for 2.0 in us-west-2
        RulesOnMockTopic.Job job = new RulesOnMockTopic.Job("east", P3, "V100-16GB", 1, 3.06, 0.9);

        // When an hour and more of it comes
        RulesOnMockTopic topic = anHourAmong(topic(hourLookback()), job, new JobTraits("bert-ft", false, null, null),
                "samples", 10_000, FleetFeed.quote(P3, "V100-16GB", 1, 3.06),
                FleetFeed.quote(onDemand("us-west-2", "p3.2xlarge"), "V100-16GB", 1, 2.0));

        // Then it is not sent to another region: its data, its network and its quotas are in its own
        assertThat(movesTo(topic, "east")).isEmpty();
    }

    @ParameterizedTest(name = "{0} GB an hour of storage traffic: moved {1}")
    @CsvSource({"5, true", "20, false"})
    void shouldChargeAMoveToAnotherRegionTheEgressOfTheDataTheJobReads(double gbPerHour, boolean moved) {
        // Given a job on p3.2xlarge in us-east-1 at 3.06 USD/h that reads gbPerHour GB an hour from storage in
        // its region, the same type for 2.0 in us-west-2, and a deployment that allows other regions at
        // 0.09 USD a GB sent out
        Offer west = onDemand("us-west-2", "p3.2xlarge");
        RulesOnMockTopic.Job job = new RulesOnMockTopic.Job("reader", P3, "V100-16GB", 1, 3.06, 0.9);

        // When an hour and more of it comes
        RulesOnMockTopic topic = anHourAmong(
                topic(hourLookback("gpuledger.recommendation.switch-instance-type.other-regions", "true")), job,
                new JobTraits("bert-ft", false, null, null, null, null, gbPerHour * 1e9), "samples", 10_000,
                FleetFeed.quote(P3, "V100-16GB", 1, 3.06), FleetFeed.quote(west, "V100-16GB", 1, 2.0));

        // Then the move saves (3.06 - 2.0) x 720 = 763.20 a month less what its data costs to carry out of
        // us-east-1, gbPerHour x 720 x 0.09: 324 at 5 GB an hour, a move worth 439.20; 1296 at 20, no move
        List<Recommendation> switches = topic.published().stream()
                .filter(r -> r.kind() == RecommendationKind.SWITCH_INSTANCE_TYPE).toList();
        if (moved) {
            Recommendation move = switches.get(switches.size() - 1);
            assertThat(movesTo(topic, "reader")).containsExactly(west.key());
            var egress = ((RecommendationEvidence.SwitchInstanceType) move.evidence()).candidate().egress();
            assertThat(egress.move()).isEqualTo("region");
            assertThat(egress.egressKnown()).isTrue();
            assertThat(egress.egressCostPerMonth()).isCloseTo(324, within(1e-6));
            assertThat(move.estimatedMonthlySaving()).isCloseTo(763.2 - 324, within(1e-6));
        } else {
            assertThat(switches).isEmpty();
        }
    }

    @Test
    void shouldNotSpreadAMultiNodeJobWhoseCommunicationIsUnmeasuredOverSmallerInstances() {
        // Given a job on 4 ND96asr_v4 (32 A100s on 1600 Gbit/s InfiniBand) reporting no communication
        // figures, and NC24ads_A100_v4 (one A100 80GB, 20 Gbit/s) for less per GPU
        Offer nd = new Offer("azure", "eastus", "Standard_ND96asr_v4", Lifecycle.ON_DEMAND);
        Offer nc = new Offer("azure", "eastus", "Standard_NC24ads_A100_v4", Lifecycle.ON_DEMAND);
        RulesOnMockTopic.Job job = new RulesOnMockTopic.Job("dist", nd, "A100-40GB", 32, 3.4, 0.9);

        // When an hour and more of it comes
        RulesOnMockTopic topic = anHourAmong(topic(hourLookback()), job,
                new JobTraits("gpt-pretrain", false, null, null), "tokens", 4.0e6,
                FleetFeed.quote(nd, "A100-40GB", 8, 27.2), FleetFeed.quote(nc, "A100-80GB", 1, 2.0));

        // Then it is not moved to 32 one-GPU instances: what its collectives would then cost is not known
        assertThat(movesTo(topic, "dist")).doesNotContain(nc.key());
    }

    @Test
    void shouldNotSpreadTheGpusOfAJobOnOneInstanceWhoseCommunicationIsUnmeasuredOverSeveral() {
        // Given a job on the 8 A100s of one p4d (NVLink between them) reporting no communication figures, and
        // a one-A100 Volcano-like offer in the same region for a third less per GPU
        Offer oneGpu = onDemand("us-east-1", "p4d-1g.small");
        RulesOnMockTopic.Job job = new RulesOnMockTopic.Job("fsdp", P4D, "A100-40GB", 8, P4D_GPU, 0.9);

        // When an hour and more of it comes
        RulesOnMockTopic topic = anHourAmong(topic(hourLookback()), job, new JobTraits("llm-ft", false, null, null),
                "tokens", 1.0e6, FleetFeed.quote(P4D, "A100-40GB", 8, P4D_PRICE),
                FleetFeed.quote(oneGpu, "A100-40GB", 1, 2.7));

        // Then it is not moved to eight one-GPU instances: its collectives would cross a network instead of
        // NVLink, at a cost nothing here measured
        assertThat(movesTo(topic, "fsdp")).doesNotContain(oneGpu.key());
    }

    // ---- 7. communication claims with a basis ----------------------------------------------------

    @Test
    void shouldStateTheCostOfCommunicationButClaimNoSavingWithoutARemedyThatHasABasis() {
        // Given a job on p4d spending 34% of each step communicating, no faster network for its GPUs on offer
        RulesOnMockTopic topic = topic(hourLookback());
        topic.rules.onPrice(FleetFeed.quote(P4D, "A100-40GB", 8, P4D_PRICE));
        RulesOnMockTopic.Job job = new RulesOnMockTopic.Job("chatty", P4D, "A100-40GB", 16, P4D_GPU, 0.6);
        topic.rules.onProgress(job.report(MONDAY, new JobTraits("gpt-ft", false, null, null)), MONDAY);

        // When an hour and more of it comes
        for (int m = 0; m < 64; m++) {
            Instant start = minute(m);
            job.minute(start, 1, "tokens", 1.0e6, 0.34, false).feed(topic.rules, topic.at(start.plusSeconds(62)));
        }

        // Then it says what the communication costs, 0.34 x 65.54 x 720 = 16,044.19 USD a month, and
        // claims nothing it cannot show
        Recommendation fix = latest(topic, "reduce_communication:job:chatty").orElseThrow();
        assertThat(fix.estimatedMonthlySaving()).isZero();
        assertThat(((RecommendationEvidence.ReduceCommunication) fix.evidence()).communicationCostPerMonth())
                .isCloseTo(0.34 * 2 * P4D_PRICE * 720, within(0.01));
    }

    @Test
    void shouldNotClaimThatAFasterNetworkBetweenInstancesShortensTheCommunicationOfAJobOnOne() {
        // Given a job on the 4 A100s of one NC96ads_A100_v4 (80 Gbit/s between instances) spending 35% of each
        // step communicating, within the instance, and ND96amsr_A100_v4 (the same GPUs, 1600 Gbit/s between
        // instances) at a price this test sets low, 16 USD/h: on the faster network it would look cheaper
        Offer nc = new Offer("azure", "eastus", "Standard_NC96ads_A100_v4", Lifecycle.ON_DEMAND);
        Offer ndm = new Offer("azure", "eastus", "Standard_ND96amsr_A100_v4", Lifecycle.ON_DEMAND);
        RulesOnMockTopic topic = topic(hourLookback());
        topic.rules.onPrice(FleetFeed.quote(nc, "A100-80GB", 4, 14.69));
        topic.rules.onPrice(FleetFeed.quote(ndm, "A100-80GB", 8, 16.0));
        RulesOnMockTopic.Job job = new RulesOnMockTopic.Job("one-node", nc, "A100-80GB", 4, 14.69 / 4, 0.6);
        topic.rules.onProgress(job.report(MONDAY, new JobTraits("gpt-ft", false, null, null)), MONDAY);

        // When an hour and more of it comes
        for (int m = 0; m < 64; m++) {
            Instant start = minute(m);
            job.minute(start, 1, "tokens", 1.0e6, 0.35, false).feed(topic.rules, topic.at(start.plusSeconds(62)));
        }

        // Then its communication is stated, but no move to the faster network is claimed to save anything:
        // none of its communication crosses a network between instances
        List<Recommendation> fixes = topic.published().stream()
                .filter(r -> r.kind() == RecommendationKind.REDUCE_COMMUNICATION).toList();
        assertThat(fixes).isNotEmpty().allSatisfy(r -> {
            assertThat(movesTo(r)).isNull();
            assertThat(r.estimatedMonthlySaving()).isZero();
        });
    }

    // ---- 9. record time ---------------------------------------------------------------------------

    @Test
    void shouldRecommendTheSameOnABacklogWorkedOffDaysLaterAsLive() {
        // Given a day and two hours of two jobs of one workload, the one on p4d paying a third more per
        // token than the one on p4de, as the engine sent them
        Map<String, Double> live = switches(false);

        // When the same records are worked off ten days later, as fast as they can be read
        Map<String, Double> backlog = switches(true);

        // Then the same switch is recommended with the same saving
        assertThat(live).isNotEmpty();
        assertThat(backlog).isEqualTo(live);
    }

    // ---- helpers ----------------------------------------------------------------------------------

    /** The switches published over 26 hours of two jobs, by id, with their last saving rounded to cents. */
    private static Map<String, Double> switches(boolean backlog) {
        RulesOnMockTopic topic = topic(documented());
        RulesOnMockTopic.Job job = new RulesOnMockTopic.Job("llm-a", P4D, "A100-40GB", 8, 4.5, 0.8);
        RulesOnMockTopic.Job peer = new RulesOnMockTopic.Job("llm-b", P4DE, "A100-80GB", 8, 6.0, 0.8);
        JobTraits llm = new JobTraits("llm-train", false, null, null);
        Instant late = MONDAY.plus(Duration.ofDays(10));
        topic.rules.onProgress(job.report(MONDAY, llm), backlog ? topic.at(late) : MONDAY);
        topic.rules.onProgress(peer.report(MONDAY, llm), backlog ? topic.at(late) : MONDAY);
        for (int m = 0; m < 26 * 60; m++) {
            Instant start = minute(m);
            Instant now = topic.at(backlog ? late.plusMillis(m) : start.plusSeconds(62));
            job.minute(start, 1, "tokens", 1.0e6, null, false).feed(topic.rules, now);
            peer.minute(start, 1, "tokens", 2.0e6, null, false).feed(topic.rules, now);
            topic.rules.sweep(now);
        }
        Map<String, Double> found = new HashMap<>();
        topic.published().stream().filter(r -> r.kind() == RecommendationKind.SWITCH_INSTANCE_TYPE)
                .forEach(r -> found.put(r.id() + " " + r.status().wire(),
                        Math.round(r.estimatedMonthlySaving() * 100) / 100.0));
        return found;
    }

    /**
     * A week and two hours of a p4d pool of 4 instances busy all the time, at list prices, and its reservation,
     * recommended open, acknowledged (bought); returns the record's id.
     */
    private static String reservationOfFourAcknowledged(RulesOnMockTopic topic) {
        FleetFeed feed = new FleetFeed(topic);
        topic.rules.onPrice(FleetFeed.quote(P4D, "A100-40GB", 8, P4D_PRICE));
        topic.rules.onPrice(FleetFeed.quote(reserved(P4D), "A100-40GB", 8, 21.3005));
        for (int h = 0; h <= 169; h++) {
            feed.poolHour(P4D, MONDAY.plus(Duration.ofHours(h)), 4 * 8);
        }
        String id = "reserve_capacity:pool:" + P4D.key();
        assertThat(latest(topic, id)).hasValueSatisfying(r -> assertThat(r.status())
                .isEqualTo(RecommendationStatus.OPEN));
        assertThat(topic.desk.acknowledge(id)).isPresent();
        return id;
    }

    private static RulesOnMockTopic topic(AlertSettings settings) {
        return new RulesOnMockTopic(MONDAY, settings);
    }

    /** The documented defaults, records living {@link #TTL}. */
    private static AlertSettings documented() {
        return TestSettings.with("gpuledger.recommendation.ttl", TTL.toMinutes() + "m");
    }

    /** The documented defaults, but for jobs judged once followed for an hour: these jobs run all the time. */
    private static AlertSettings hourLookback(String... others) {
        List<String> set = new ArrayList<>(List.of("gpuledger.recommendation.ttl", TTL.toMinutes() + "m",
                "gpuledger.recommendation.job-lookback", "1h"));
        set.addAll(List.of(others));
        return TestSettings.with(set.toArray(String[]::new));
    }

    /**
     * {@code offers} priced, then an hour and more of {@code job}, which says {@code traits} of itself, doing
     * {@code units} of {@code unit} a minute.
     */
    private static RulesOnMockTopic anHourAmong(RulesOnMockTopic topic, RulesOnMockTopic.Job job, JobTraits traits,
            String unit, double units, PriceQuote... offers) {
        for (PriceQuote offer : offers) {
            topic.rules.onPrice(offer);
        }
        topic.rules.onProgress(job.report(MONDAY, traits), MONDAY);
        runJob(topic, job, 64, unit, units);
        return topic;
    }

    /** {@code minutes} closed minutes of the job, each with {@code units} of work of {@code unit}. */
    private static void runJob(RulesOnMockTopic topic, RulesOnMockTopic.Job job, int minutes, String unit,
            double units) {
        for (int m = 0; m < minutes; m++) {
            Instant start = minute(m);
            job.minute(start, 1, unit, units, null, false).feed(topic.rules, topic.at(start.plusSeconds(62)));
        }
    }

    /** The offers the job was told to move to, by any kind. */
    private static List<String> movesTo(RulesOnMockTopic topic, String jobId) {
        return topic.published().stream().filter(r -> r.target().id().equals(jobId))
                .map(AdviceOutsideItsAssumptionsTest::movesTo).filter(Objects::nonNull)
                .map(RecommendationAction.PricedOffer::offerKey).distinct().toList();
    }

    /** The pool a recommendation moves its job to; null when it moves none. */
    private static RecommendationAction.PricedOffer movesTo(Recommendation recommendation) {
        return recommendation.action() instanceof RecommendationAction.Move move ? move.toPool() : null;
    }

    private static Set<RecommendationKind> kinds(RulesOnMockTopic topic) {
        return topic.published().stream().map(Recommendation::kind).collect(Collectors.toSet());
    }

    private static Optional<Recommendation> latest(RulesOnMockTopic topic, String id) {
        return topic.published(id).stream().reduce((a, b) -> b);
    }

    private static Instant minute(int m) {
        return MONDAY.plusSeconds(60L * m);
    }

    private static Offer onDemand(String region, String type) {
        return new Offer("aws", region, type, Lifecycle.ON_DEMAND);
    }

    private static Offer spot(Offer offer) {
        return new Offer(offer.provider(), offer.region(), offer.instanceType(), Lifecycle.SPOT);
    }

    private static Offer reserved(Offer offer) {
        return new Offer(offer.provider(), offer.region(), offer.instanceType(), Lifecycle.RESERVED);
    }
}
