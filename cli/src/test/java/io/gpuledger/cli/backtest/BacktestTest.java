package io.gpuledger.cli.backtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Offer;
import io.gpuledger.model.Recommendation;
import io.gpuledger.model.RecommendationKind;
import io.gpuledger.model.WorkloadClass;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The backtest's own repricing, on a small fleet over three days, with decisions taken at set times
 * by a scripted hook (whatever the rules say) and one spot interruption at a set minute: what each
 * decision saved, worked out by hand.
 */
class BacktestTest {

    private static final Instant MONDAY = Instant.parse("2026-03-02T00:00:00Z");
    /** The hook acts after the minute that ends at 06:00 is read, 5 s after it closed. */
    private static final Instant SIX = MONDAY.plus(Duration.ofHours(6)).plusSeconds(5);
    private static final Offer P4D_EAST_1 = onDemand("us-east-1", "p4d.24xlarge");
    private static final Offer P4D_EAST_2 = onDemand("us-east-2", "p4d.24xlarge");

    @Test
    void shouldRepriceEachFollowedDecisionOnItsOwn() {
        // Given three days of: one p4d training all the time; a V100 serving 9M images an hour; 16 A100s
        // of two p4d that checkpoint every hour; a notebook on g5.xlarge used from 09:00 to 10:00 daily
        FleetJob steady = FleetJob.named("steady", "a").on(P4D_EAST_1, "A100-40GB", 8)
                .work("llama", WorkloadClass.TRAINING, "tokens", 1_250_000).build();
        FleetJob serve = FleetJob.named("serve", "b").on(onDemand("us-east-1", "p3.2xlarge"), "V100-16GB", 1)
                .work("resnet", WorkloadClass.INFERENCE, "images", 9_000_000).build();
        FleetJob sync = FleetJob.named("sync", "a").on(P4D_EAST_2, "A100-40GB", 16)
                .work("gpt", WorkloadClass.TRAINING, "tokens", 2_000_000).checkpointsEvery(3600).build();
        Notebook notebook = new Notebook("nb", "c", onDemand("us-east-1", "g5.xlarge"), "A10G-24GB", 9 * 60, 60);
        // the one interruption: the minute from 00:30 on Tuesday
        Instant interruption = MONDAY.plus(Duration.ofHours(24 + 0)).plus(Duration.ofMinutes(30));
        Backtest backtest = new Backtest(List.of(steady, serve, sync), List.of(notebook), OfferPrices.seed(),
                TrueSpeed.seed(), 7, (minute, instances, random) -> minute.equals(interruption), MONDAY, 3);

        // When a hook switches the V100 job to a T4, moves the synchronous job to spot and reserves one
        // p4d at 06:00 on Monday, and releases the notebook's GPU at 12:00 on Monday and on Tuesday
        Ledger ledger = backtest.run((run, news, now) -> {
            if (now.equals(SIX)) {
                run.move("serve", onDemand("us-east-1", "p3.2xlarge"), onDemand("us-east-1", "g4dn.xlarge"),
                        RecommendationKind.SWITCH_INSTANCE_TYPE, "switch", 2000, now);
                run.move("sync", P4D_EAST_2, new Offer("aws", "us-east-2", "p4d.24xlarge", Lifecycle.SPOT),
                        RecommendationKind.MOVE_TO_SPOT, "spot", 16000, now);
                run.reserve(P4D_EAST_1, 1, "reserve", 8258, now);
            }
            if (now.equals(MONDAY.plus(Duration.ofHours(12)).plusSeconds(5))
                    || now.equals(MONDAY.plus(Duration.ofHours(36)).plusSeconds(5))) {
                run.reclaim(notebook.gpuUuid(), "reclaim", 724.32, now);
            }
        });

        // Then each decision saved, from 06:00 Monday to the end of Wednesday (66 hours):
        Map<RecommendationKind, Ledger.Row> rows = ledger.rows().stream().filter(row -> row.followed() > 0)
                .collect(Collectors.toMap(Ledger.Row::kind, row -> row));
        // the switch: 9M images an hour at 3.06 / 9M per image before and 0.526 / (9M x 1.3) after,
        // 66 x (3.06 - 0.526 / 1.3) = 66 x 2.655385 = 175.2554
        assertThat(rows.get(RecommendationKind.SWITCH_INSTANCE_TYPE).realizedUsd()).isCloseTo(175.2554, within(1e-3));
        // the reservation: 66 closed hours of one p4d in use, 66 x (32.77 - 21.3005) = 756.987
        assertThat(rows.get(RecommendationKind.RESERVE_CAPACITY).realizedUsd()).isCloseTo(756.987, within(1e-3));
        // spot: the interruption at 00:30, 18.5 h after the move with hourly checkpoints, throws away
        // 0.5 h of work and restarts for 10 minutes; of 3960 minutes 3950 worked, and 3950 / 60 - 0.5 =
        // 65.3333 h of the 66 h of work kept. Spot paid 66 h for it: 9.831 x 66 / 65.3333 = 9.931316 an
        // hour kept, under on demand, so the 0.6667 h lost is made up on spot. On 2 instances:
        // 2 x (32.77 x 66 - 9.831 x 66 - 0.666667 x 9.931316) = 2 x (1513.974 - 6.620877) = 3014.706
        assertThat(rows.get(RecommendationKind.MOVE_TO_SPOT).realizedUsd()).isCloseTo(3014.706, within(1e-3));
        assertThat(backtest.interruptions()).isEqualTo(1);
        // each release: from 12:00 to the next 09:00, 21 h x 1.006 = 21.126; two of them 42.252
        assertThat(rows.get(RecommendationKind.RECLAIM_IDLE).realizedUsd()).isCloseTo(42.252, within(1e-3));
        assertThat(rows.get(RecommendationKind.RECLAIM_IDLE).followed()).isEqualTo(2);

        // And each claim counts for the hours from its decision to the end: 2000 x (66 h - 5 s) / 720
        assertThat(rows.get(RecommendationKind.SWITCH_INSTANCE_TYPE).claimedOverRunUsd())
                .isCloseTo(2000 * (66 - 5 / 3600.0) / 720, within(1e-9));
        // but a release's only until its user is back for the GPU, at 09:00 the next day, as its saving:
        // 2 x 724.32 x (21 h - 5 s) / 720 = 2 x 21.126 less 2 x 5 s, for a realized 42.252
        assertThat(rows.get(RecommendationKind.RECLAIM_IDLE).claimedOverRunUsd())
                .isCloseTo(2 * 724.32 * (21 - 5 / 3600.0) / 720, within(1e-9));
        assertThat(rows.get(RecommendationKind.RESERVE_CAPACITY).ratio())
                .isCloseTo(756.987 / (8258 * (66 - 5 / 3600.0) / 720), within(1e-6));
    }

    @Test
    void shouldChargeASpotJobThatKeepsTooLittleWorkAllItPaid() {
        // Given a day of a job on one p4d that checkpoints every 4 hours, and a spot market that takes
        // its instance back at the start of every hour
        FleetJob job = FleetJob.named("long", "a").on(P4D_EAST_2, "A100-40GB", 8)
                .work("gpt", WorkloadClass.TRAINING, "tokens", 2_000_000).checkpointsEvery(4 * 3600).build();
        Backtest backtest = new Backtest(List.of(job), List.of(), OfferPrices.seed(), TrueSpeed.seed(), 7,
                (minute, instances, random) -> minute.getEpochSecond() % 3600 == 0, MONDAY, 1);

        // When it moves to spot at 06:00
        Ledger ledger = backtest.run((run, news, now) -> {
            if (now.equals(SIX)) {
                run.move("long", P4D_EAST_2, new Offer("aws", "us-east-2", "p4d.24xlarge", Lifecycle.SPOT),
                        RecommendationKind.MOVE_TO_SPOT, "spot", 16000, now);
            }
        });

        // Then it is taken back at each hour from 06:00 to 23:00, 18 times; each restarts for 10 minutes,
        // and each from 07:00 throws away the 50 minutes worked since the one before: of its 18 hours
        // only the 50 minutes after 23:10 are kept. Spot per hour kept would be 9.831 x 18 / (5/6) = 212.35, above on
        // demand, so the work is made up on demand: it saved what it kept, 32.77 x 5/6 = 27.308, less the
        // 18 h of spot it paid, 9.831 x 18 = 176.958: -149.650
        assertThat(backtest.interruptions()).isEqualTo(18);
        assertThat(ledger.decisions().get(0).realizedUsd()).isCloseTo(-149.650, within(1e-3));
    }

    @Test
    void shouldCountARecommendationOnceThoughItIsRefreshed() {
        // Given a day of a notebook whose user never comes, its GPU idle throughout
        Notebook notebook = new Notebook("nb", "c", onDemand("us-east-1", "g5.xlarge"), "A10G-24GB", 0, 0);
        Backtest backtest = new Backtest(List.of(), List.of(notebook), OfferPrices.seed(), TrueSpeed.seed(), 7,
                (minute, instances, random) -> false, MONDAY, 1);

        // When nobody follows what the rules say
        Ledger ledger = backtest.run((run, news, now) -> {
        });

        // Then the idle GPU was recommended once: the rules raise it after half an hour and republish
        // it, still open, every 5 minutes (half its 10-minute time to live), but it is one situation
        assertThat(ledger.rows()).singleElement().satisfies(row -> {
            assertThat(row.kind()).isEqualTo(RecommendationKind.RECLAIM_IDLE);
            assertThat(row.made()).isEqualTo(1);
            assertThat(row.followed()).isZero();
        });
    }

    @Test
    void shouldNotFollowAMoveOfAJobFromAPoolItHasLeft() {
        // Given a day of an interruptible job on one p5, and two recommendations for it published in
        // the same minute, both worked out for the job on p5: a switch to Tencent's GN10Xp on demand,
        // and a move to p5 spot
        Offer p5 = onDemand("us-east-1", "p5.48xlarge");
        FleetJob sweep = FleetJob.named("sweep", "v").on(p5, "H100-80GB", 8)
                .work("vit", WorkloadClass.TRAINING, "samples", 5_000).checkpointsEvery(1800).build();
        Backtest backtest = new Backtest(List.of(sweep), List.of(), OfferPrices.seed(), TrueSpeed.seed(), 7,
                (minute, instances, random) -> false, MONDAY, 1);
        Recommendation toTencent = move(RecommendationKind.SWITCH_INSTANCE_TYPE, p5,
                new Offer("tencent", "ap-shanghai", "GN10Xp", Lifecycle.ON_DEMAND), 23_000);
        Recommendation toSpot = move(RecommendationKind.MOVE_TO_SPOT, p5,
                new Offer("aws", "us-east-1", "p5.48xlarge", Lifecycle.SPOT), 49_000);

        // When the following hook reads both at 06:00
        Ledger ledger = backtest.run((run, news, now) -> {
            if (now.equals(SIX)) {
                new FollowingHook().after(run, List.of(toTencent, toSpot), now);
            }
        });

        // Then it moves the job to Tencent and leaves the move to spot alone: the job is no longer on
        // the p5 whose spot price the second one was worked out from
        assertThat(ledger.decisions()).extracting(decision -> decision.kind)
                .containsExactly(RecommendationKind.SWITCH_INSTANCE_TYPE);
        assertThat(sweep.offer.provider()).isEqualTo("tencent");
    }

    @Test
    void shouldNotBuyAReservationTwice() {
        // Given a backtest of a day
        FleetJob steady = FleetJob.named("steady", "a").on(P4D_EAST_1, "A100-40GB", 16)
                .work("llama", WorkloadClass.TRAINING, "tokens", 1_250_000).build();
        Backtest backtest = new Backtest(List.of(steady), List.of(), OfferPrices.seed(), TrueSpeed.seed(), 7,
                (minute, instances, random) -> false, MONDAY, 1);

        // When the hook is told to reserve 1, then 1 again, then 2 instances of the pool
        Ledger ledger = backtest.run((run, news, now) -> {
            if (now.equals(SIX)) {
                assertThat(run.reserve(P4D_EAST_1, 1, "r", 100, now)).isTrue();
                assertThat(run.reserve(P4D_EAST_1, 1, "r", 100, now)).isFalse();
                assertThat(run.reserve(P4D_EAST_1, 2, "r", 300, now)).isTrue();
            }
        });

        // Then two decisions: the first instance, claiming 100, and the second, claiming its half of
        // 300; each saves 18 h x (32.77 - 21.3005) = 206.451
        List<Ledger.Decision> decisions = ledger.decisions();
        assertThat(decisions).hasSize(2);
        assertThat(decisions.get(0).claimedMonthlyUsd).isEqualTo(100);
        assertThat(decisions.get(1).claimedMonthlyUsd).isEqualTo(150);
        assertThat(decisions.get(0).realizedUsd()).isCloseTo(206.451, within(1e-6));
        assertThat(decisions.get(1).realizedUsd()).isCloseTo(206.451, within(1e-6));
    }

    @Test
    void shouldEndWithALineForScripts() {
        // Given a ledger where reclaiming realized half its claim and reserving lost money
        List<Ledger.Row> rows = List.of(
                new Ledger.Row(RecommendationKind.RECLAIM_IDLE, 4, 2, 1000, 100, 50),
                new Ledger.Row(RecommendationKind.RESERVE_CAPACITY, 1, 1, 8000, 800, -720),
                new Ledger.Row(RecommendationKind.REDUCE_COMMUNICATION, 3, 0, 0, 0, 0));

        // When it is printed
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        BacktestReport.print(rows, new PrintStream(bytes, true, StandardCharsets.UTF_8));
        List<String> lines = bytes.toString(StandardCharsets.UTF_8).lines().toList();

        // Then the last line counts 8 recommendations, ratios -0.90 (reserve) to 0.50 (reclaim) over
        // the kinds followed, and one kind that lost money
        assertThat(lines.get(lines.size() - 1)).isEqualTo("backtest: 8 recommendations, realized/claimed -0.90..0.50"
                + " by kind, 1 kinds with a negative realized saving");
    }

    /** A recommendation to move job {@code sweep} from {@code from} to {@code to}, as the rules write one. */
    private static Recommendation move(RecommendationKind kind, Offer from, Offer to, double saving) {
        Map<String, Object> action = Map.of("jobId", "sweep", "gpus", 8, "fromPool", from.key(), "toPool",
                Map.of("offerKey", to.key()));
        return Recommendation.open(kind, Recommendation.Target.job("sweep"), "move sweep", action, null, saving, "USD",
                0.5, SIX, SIX.plus(Duration.ofMinutes(10)), Map.of());
    }

    private static Offer onDemand(String region, String type) {
        return new Offer("aws", region, type, Lifecycle.ON_DEMAND);
    }
}
