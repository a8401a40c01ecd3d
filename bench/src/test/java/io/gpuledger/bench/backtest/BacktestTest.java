package io.gpuledger.bench.backtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Offer;
import io.gpuledger.model.Recommendation;
import io.gpuledger.model.RecommendationAction;
import io.gpuledger.model.RecommendationEvidence;
import io.gpuledger.model.RecommendationKind;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The backtest's own bill, on small fleets over three days in worlds set by hand, with decisions
 * taken at set times by a scripted hook (whatever the rules say): what each decision saved, worked
 * out by hand from the world's figures.
 */
class BacktestTest {

    private static final Instant MONDAY = Instant.parse("2026-03-02T00:00:00Z");
    /** The hook acts after the minute that ends at 06:00 is read, 5 s after it closed. */
    private static final Instant SIX = MONDAY.plus(Duration.ofHours(6)).plusSeconds(5);
    private static final Offer P3 = onDemand("us-east-1", "p3.2xlarge");
    private static final Offer P4D_EAST_2 = onDemand("us-east-2", "p4d.24xlarge");
    /** From 06:00 on Monday to the end of Wednesday. */
    private static final double HOURS_AFTER_SIX = 66;

    @Test
    void shouldChargeAServingSwitchTheInstancesTheWorldNeedsToCarryItsPeak() {
        // Given three days of INT8 serving on four V100s (3.06 USD/h each) with a peak of 9M images an hour,
        // in a world where the fleet keeps 20% above its peak (each V100 carries 9M x 1.2 / 4 = 2.7M) and a
        // T4 serves 1.3 times a V100 (3.51M)

        // When a hook moves it to g4dn.xlarge at 06:00 on Monday, on the two instances a recommendation names
        Ledger ledger = servingMovedToT4s(world(0.2, Map.of(), Map.of(), never()), 2);

        // Then its autoscaler holds the ceil(9M x 1.2 / 3.51M) = 4 T4s that carry the peak, not the 2 named:
        // 66 h x (4 x 3.06 - 4 x 0.526) = 66 x 10.136 = 668.976 saved; the claim counts the same 66 h of 7000 / 720
        Ledger.Row row = row(ledger, RecommendationKind.SWITCH_INSTANCE_TYPE);
        assertThat(row.realizedUsd()).isCloseTo(668.976, within(1e-6));
        assertThat(row.claimedUsd()).isCloseTo(7000 * HOURS_AFTER_SIX / 720, within(1e-6));
    }

    @Test
    void shouldChargeAServingSwitchTheSpareItsAutoscalerKeepsOnceMovedNotTheSpareTheFleetHad() {
        // Given the same serving, in a world where the V100s were built with 10% to spare (each carries
        // 9M x 1.1 / 4 = 2.475M an hour, a T4 1.3 times that, 3.2175M) and the autoscaler keeps 45% once moved
        BacktestWorld world = new BacktestWorld(TrueSpeed.seed(), 0, 0.1, 0.45, 0.8, Map.of(), Map.of(), never());

        // When a hook moves it to g4dn.xlarge at 06:00 on Monday, on the four instances a recommendation names
        Ledger ledger = servingMovedToT4s(world, 4);

        // Then the autoscaler holds ceil(9M x 1.45 / 3.2175M) = 5 T4s: 66 h x (4 x 3.06 - 5 x 0.526) = 634.26
        assertThat(row(ledger, RecommendationKind.SWITCH_INSTANCE_TYPE).realizedUsd()).isCloseTo(634.26,
                within(1e-6));
    }

    @Test
    void shouldValueATrainingSwitchAtTheWorldsSpeedsForTheVolumeOfWorkItHad() {
        // Given three days of a one-GPU training job on a V100 (3.06 USD/h), in a world where an L4 trains at
        // 0.36 / 0.45 = 0.8 of a V100 (where its datasheet says 0.97)
        FleetJob train = FleetJob.named("train", "a").on(P3, "V100-16GB", 1, 1).training("unet", "samples", 900)
                .build();
        Backtest backtest = backtest(List.of(train), List.of(), world(0.2, Map.of(), Map.of(), never()), null);

        // When a hook moves it to g6.xlarge (one L4, 0.8048 USD/h) at 06:00 on Monday
        Ledger ledger = backtest.run((run, news, now) -> {
            if (now.equals(SIX)) {
                run.move("train", P3, onDemand("us-east-1", "g6.xlarge"), 1,
                        recommendation(RecommendationKind.SWITCH_INSTANCE_TYPE, "train", 1600), now);
            }
        });

        // Then the work it did an hour costs 0.8048 / 0.8 = 1.006 there against 3.06: 66 x 2.054 = 135.564
        assertThat(row(ledger, RecommendationKind.SWITCH_INSTANCE_TYPE).realizedUsd()).isCloseTo(135.564,
                within(1e-6));
    }

    @Test
    void shouldChargeSpotTheWorkAnInterruptionThrewAwayTheWaitAndTheRestart() {
        // Given three days of a synchronous job on two p4d that checkpoints every hour, in a world that takes
        // one of its instances back once, noticed in the minute from 00:30 on Tuesday, reclaimed at 00:33, and
        // then waits 20 minutes for capacity and 5 to restart
        FleetJob sync = FleetJob.named("sync", "a").on(P4D_EAST_2, "A100-40GB", 2, 16)
                .training("gpt", "tokens", 2_000_000).checkpointsEvery(3600).build();
        Instant notice = MONDAY.plus(Duration.ofHours(24)).plus(Duration.ofMinutes(30));
        Backtest backtest = backtest(List.of(sync), List.of(), world(0.2, Map.of(), Map.of(), at(notice)), null);

        // When a hook moves it to spot at 06:00 on Monday, and leaves the notice alone
        Ledger ledger = backtest.run((run, news, now) -> {
            if (now.equals(SIX)) {
                run.move("sync", P4D_EAST_2, spot(P4D_EAST_2), 2,
                        recommendation(RecommendationKind.MOVE_TO_SPOT, "sync", 30_000), now);
            }
        });

        // Then, of 3960 minutes on spot, 25 did no work (the wait and the restart) and the 33 since the 00:00
        // checkpoint were thrown away: 3935 / 60 - 0.55 = 65.0333 h of work kept, worth 2 x 32.77 an hour on
        // demand: 4262.2847. Spot paid 9.831 for 2 instances but 1 while waiting: 9.831 x (2 x 3940 + 20) / 60 =
        // 1294.4150. Saved 2967.8697, finished 25 / 60 + 0.55 = 0.9667 h later
        Ledger.Row row = row(ledger, RecommendationKind.MOVE_TO_SPOT);
        assertThat(backtest.interruptions()).isEqualTo(1);
        assertThat(row.realizedUsd()).isCloseTo(2967.8697, within(1e-3));
        assertThat(row.delayHours()).isCloseTo(0.9667, within(1e-3));
    }

    @Test
    void shouldCreditAnEvacuationTheWorkItsCheckpointKept() {
        // Given the synchronous job already on two spot p4d, checkpointing hourly from midnight, noticed in the
        // minute from 00:30 on Tuesday
        FleetJob sync = FleetJob.named("sync", "a").on(spot(P4D_EAST_2), "A100-40GB", 2, 16)
                .training("gpt", "tokens", 2_000_000).checkpointsEvery(3600).build();
        Instant notice = MONDAY.plus(Duration.ofHours(24)).plus(Duration.ofMinutes(30));
        Backtest backtest = backtest(List.of(sync), List.of(), world(0.2, Map.of(), Map.of(), at(notice)), null);
        Recommendation evacuate = recommendation(RecommendationKind.EVACUATE, "i-sync-0-0", 0);

        // When a hook checkpoints it as soon as the notice is read, at 00:31:05
        Ledger ledger = backtest.run((run, news, now) -> {
            if (now.equals(notice.plus(Duration.ofMinutes(1)).plusSeconds(5))) {
                assertThat(run.checkpoint("sync", evacuate, now)).isTrue();
            }
        });

        // Then it kept the 31 minutes worked since midnight on both instances: 31 / 60 x 2 x 9.831 = 10.1587
        assertThat(row(ledger, RecommendationKind.EVACUATE).realizedUsd()).isCloseTo(31 / 60.0 * 2 * 9.831,
                within(1e-9));
    }

    @Test
    void shouldValueAReservationOverItsWholeTermAsThePoolDriftsAfterIt() {
        // Given three days of a pool of two p4d busy all the time, in a world where its use drifts to half by
        // the end of a year
        FleetJob steady = FleetJob.named("steady", "a").on(P4D_EAST_2, "A100-40GB", 2, 16)
                .training("llama", "tokens", 1_250_000).build();
        Backtest backtest = backtest(List.of(steady), List.of(),
                world(0.2, Map.of(), Map.of(P4D_EAST_2, 0.5), never()), null);

        // When a hook reserves two instances at 06:00 on Monday for a year
        Ledger ledger = backtest.run((run, news, now) -> {
            if (now.equals(SIX)) {
                run.reserve(P4D_EAST_2, 2, recommendation(RecommendationKind.RESERVE_CAPACITY,
                        P4D_EAST_2.key(), 16_516), now);
            }
        });

        // Then its 8760 hours are counted: the run's 66, each 2 x (32.77 - 21.3005); then the rest, the pool at
        // 2 x (1 - 0.5 x h / 8760) in its h-th hour, the reservation covering what is in use
        double expected = 0;
        for (int hour = 1; hour <= 8760; hour++) {
            double inUse = hour <= HOURS_AFTER_SIX ? 2 : 2 * (1 - 0.5 * hour / 8760.0);
            expected += 32.77 * Math.min(inUse, 2) - 21.3005 * 2;
        }
        Ledger.Row row = row(ledger, RecommendationKind.RESERVE_CAPACITY);
        assertThat(row.realizedUsd()).isCloseTo(expected, within(1e-3));
        // and the claim counts its term: 16516 a month for 8760 / 720 months
        assertThat(row.claimedUsd()).isCloseTo(16_516 * 8760 / 720.0, within(1e-6));
    }

    @Test
    void shouldCountANotebookReleasedEveryNightAsOneDecision() {
        // Given three days of a notebook on g5.xlarge used from 09:00 to 10:00 daily
        Notebook notebook = new Notebook("nb", "c", onDemand("us-east-1", "g5.xlarge"), "A10G-24GB", 9 * 60, 60);
        Backtest backtest = backtest(List.of(), List.of(notebook), world(0.2, Map.of(), Map.of(), never()), null);
        Recommendation release = recommendation(RecommendationKind.RECLAIM_IDLE, "nb", 700);

        // When a hook releases it at 12:00 on Monday and on Tuesday, on the same recommendation
        Ledger ledger = backtest.run((run, news, now) -> {
            if (now.equals(MONDAY.plus(Duration.ofHours(12)).plusSeconds(5))
                    || now.equals(MONDAY.plus(Duration.ofHours(36)).plusSeconds(5))) {
                run.release(release, "nb", null, 0, now);
            }
        });

        // Then it is one decision, saving 21 h (12:00 to 09:00) x 1.006 each night: 42.252
        Ledger.Row row = row(ledger, RecommendationKind.RECLAIM_IDLE);
        assertThat(row.followed()).isEqualTo(1);
        assertThat(row.realizedUsd()).isCloseTo(42.252, within(1e-9));
        // and its monthly claim counts the 60 h from the first release to the end of the run, nights and days alike
        assertThat(row.claimedUsd()).isCloseTo(700 * 60 / 720.0, within(1e-9));
    }

    @Test
    void shouldNotFollowAMoveOfAJobFromAPoolItHasLeft() {
        // Given a day of an interruptible job on one p5, and two recommendations for it published in the same
        // minute, both worked out for the job on p5: a switch to p4d and a move to p5 spot
        Offer p5 = onDemand("us-east-1", "p5.48xlarge");
        FleetJob sweep = FleetJob.named("sweep", "v").on(p5, "H100-80GB", 1, 8)
                .training("vit", "samples", 5_000).checkpointsEvery(1800).build();
        Backtest backtest = backtest(List.of(sweep), List.of(), world(0.2, Map.of(), Map.of(), never()), null);
        Recommendation toP4d = move(RecommendationKind.SWITCH_INSTANCE_TYPE, p5, onDemand("us-east-1", "p4d.24xlarge"));
        Recommendation toSpot = move(RecommendationKind.MOVE_TO_SPOT, p5, spot(p5));

        // When the following hook reads both at 06:00
        Ledger ledger = backtest.run((run, news, now) -> {
            if (now.equals(SIX)) {
                new FollowingHook().after(run, List.of(toP4d, toSpot), now);
            }
        });

        // Then it moves the job to p4d and leaves the move to spot alone: the job is no longer on the p5
        // whose spot price the second one was worked out from
        assertThat(ledger.decisions()).extracting(decision -> decision.kind)
                .containsExactly(RecommendationKind.SWITCH_INSTANCE_TYPE);
        assertThat(sweep.offer.instanceType()).isEqualTo("p4d.24xlarge");
    }

    @Test
    void shouldNotBuyAReservationAgainAfterTheAlertServiceRestarts() {
        // Given sixteen days of a pool of four p4d busy all the time, the alert service restarting on the
        // ninth, and a hook that buys what every open recommendation says
        FleetJob steady = FleetJob.named("steady", "a").on(P4D_EAST_2, "A100-40GB", 4, 32)
                .training("llama", "tokens", 1_250_000).build();
        Backtest backtest = new Backtest(List.of(steady), List.of(), OfferPrices.seed(),
                world(0.2, Map.of(), Map.of(), never()), MONDAY, 16, MONDAY.plus(Duration.ofDays(9)));

        // When it runs
        Ledger ledger = backtest.run(new FollowingHook());

        // Then the pool's four instances were reserved once, before the restart, and never again
        assertThat(ledger.decisions()).filteredOn(decision -> decision.kind == RecommendationKind.RESERVE_CAPACITY)
                .singleElement().satisfies(decision -> {
                    assertThat(decision.what).endsWith("instances 1..4");
                    assertThat(decision.at).isBefore(MONDAY.plus(Duration.ofDays(9)));
                });
    }

    @Test
    void shouldEndWithALineForScripts() {
        // Given two runs: in the first reclaiming realized half its claim and reserving lost money; in the
        // second reclaiming realized all of it
        List<List<Ledger.Row>> runs = List.of(
                List.of(new Ledger.Row(RecommendationKind.RECLAIM_IDLE, 4, 2, 100, 50, 0),
                        new Ledger.Row(RecommendationKind.RESERVE_CAPACITY, 1, 1, 800, -720, 0),
                        new Ledger.Row(RecommendationKind.REDUCE_COMMUNICATION, 3, 0, 0, 0, 0)),
                List.of(new Ledger.Row(RecommendationKind.RECLAIM_IDLE, 2, 2, 100, 100, 0)));

        // When they are printed
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        BacktestReport.print(runs, new PrintStream(bytes, true, StandardCharsets.UTF_8));
        List<String> lines = bytes.toString(StandardCharsets.UTF_8).lines().toList();

        // Then the last line counts 10 recommendations over 2 seeds, 2 of 6 kinds followed, the medians -0.90
        // (reserve) to 0.75 (reclaim: 0.5 and 1.0), the worst run -0.90, and one kind that lost money
        assertThat(lines.get(lines.size() - 1)).isEqualTo("backtest: 10 recommendations over 2 seeds, 2 of 6 kinds"
                + " followed, realized/claimed median -0.90..0.75, worst -0.90, 1 kinds with a negative realized"
                + " saving in any seed");
    }

    // ---- helpers ----------------------------------------------------------------------------------

    /**
     * Three days of INT8 serving on four V100s with a peak of 9M images an hour, moved by a hook to
     * {@code instances} g4dn.xlarge at 06:00 on Monday on a recommendation claiming 7000 a month.
     */
    private static Ledger servingMovedToT4s(BacktestWorld world, int instances) {
        FleetJob serve = FleetJob.named("serve", "b").on(P3, "V100-16GB", 4, 4)
                .serving("resnet50-int8", "images", 9_000_000, 0.04).build();
        return backtest(List.of(serve), List.of(), world, null).run((run, news, now) -> {
            if (now.equals(SIX)) {
                run.move("serve", P3, onDemand("us-east-1", "g4dn.xlarge"), instances,
                        recommendation(RecommendationKind.SWITCH_INSTANCE_TYPE, "serve", 7000), now);
            }
        });
    }

    private static Backtest backtest(List<FleetJob> jobs, List<Notebook> notebooks, BacktestWorld world,
            Instant restartAt) {
        return new Backtest(jobs, notebooks, OfferPrices.seed(), world, MONDAY, 3, restartAt);
    }

    /**
     * A world with the seed's speeds, the serving headroom given (kept after a move too), no latency, set spot
     * rates and drifts.
     */
    private static BacktestWorld world(double servingHeadroom, Map<Offer, Double> spotRates, Map<Offer, Double> drift,
            BacktestWorld.Draws draws) {
        return new BacktestWorld(TrueSpeed.seed(), 0, servingHeadroom, servingHeadroom, 0.8, spotRates, drift, draws);
    }

    /** No interruption ever, a wait of 20 minutes and a restart of 5 should one come, work at its rate. */
    private static BacktestWorld.Draws never() {
        return at(Instant.MIN);
    }

    /** One interruption, noticed in the minute from {@code minute}. */
    private static BacktestWorld.Draws at(Instant minute) {
        return new BacktestWorld.Draws() {
            @Override
            public boolean interrupted(Instant at, Offer spot, int instances, double ratePerInstanceHour) {
                return at.equals(minute);
            }

            @Override
            public int[] waitAndRestartMinutes() {
                return new int[] {20, 5};
            }

            @Override
            public double noise() {
                return 1;
            }
        };
    }

    private static Ledger.Row row(Ledger ledger, RecommendationKind kind) {
        return ledger.rows().stream().filter(row -> row.kind() == kind && row.followed() > 0).findFirst()
                .orElseThrow();
    }

    /** A recommendation of {@code kind} for {@code target}, claiming {@code saving} a month. */
    private static Recommendation recommendation(RecommendationKind kind, String target, double saving) {
        Recommendation.Target about = kind == RecommendationKind.RESERVE_CAPACITY
                ? Recommendation.Target.pool(Offer.fromKey(target)) : Recommendation.Target.job(target);
        return Recommendation.open(kind, about, "scripted", scripted(kind, target), null, saving, "USD", 0.5, SIX,
                SIX.plus(Duration.ofMinutes(10)), kind == RecommendationKind.EVACUATE ? atRisk(target, 9.831) : null);
    }

    /** The evidence of an evacuation of {@code instance} whose checkpoint keeps {@code work} of a job. */
    private static RecommendationEvidence.Evacuate atRisk(String instance, double work) {
        return new RecommendationEvidence.Evacuate("scripted:" + instance, "SPOT_INTERRUPTION", null, SIX, null, null,
                "CURRENT", List.of(), work, null, 0, "USD", 0, 0, null, 8, 0);
    }

    /** An action of {@code kind} about {@code target}, for a record whose action the backtest is not given. */
    private static RecommendationAction scripted(RecommendationKind kind, String target) {
        return switch (kind) {
            case EVACUATE -> new RecommendationAction.Evacuate(target, null, false, List.of(), null);
            case RECLAIM_IDLE -> RecommendationAction.ReclaimIdle.instance(target, List.of());
            case RESERVE_CAPACITY -> new RecommendationAction.ReserveCapacity(0, 0, 12, null, 0, null);
            case SWITCH_INSTANCE_TYPE -> new RecommendationAction.SwitchInstanceType(target, 1, null, null, null, 1);
            case MOVE_TO_SPOT -> new RecommendationAction.MoveToSpot(target, 1, null, null, null, null, null);
            case REDUCE_COMMUNICATION -> RecommendationAction.ReduceCommunication.jobChanges(target, List.of());
        };
    }

    /** A recommendation to move job {@code sweep} from {@code from} to {@code to}, as the rules write one. */
    private static Recommendation move(RecommendationKind kind, Offer from, Offer to) {
        RecommendationAction.PricedOffer toPool = RecommendationAction.PricedOffer.unpriced(to, null);
        RecommendationAction action = kind == RecommendationKind.MOVE_TO_SPOT
                ? RecommendationAction.MoveToSpot.move("sweep", 8, from.key(), toPool, 1)
                : new RecommendationAction.SwitchInstanceType("sweep", 8, from.key(), toPool, 1, 8);
        return Recommendation.open(kind, Recommendation.Target.job("sweep"), "move sweep", action, null, 20_000,
                "USD", 0.5, SIX, SIX.plus(Duration.ofMinutes(10)), null);
    }

    private static Offer onDemand(String region, String type) {
        return new Offer("aws", region, type, Lifecycle.ON_DEMAND);
    }

    private static Offer spot(Offer offer) {
        return new Offer(offer.provider(), offer.region(), offer.instanceType(), Lifecycle.SPOT);
    }
}
