package io.gpuledger.alerts.recommend;

import static io.gpuledger.alerts.recommend.JobViewBuilder.job;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gpuledger.alerts.TestSettings;
import io.gpuledger.model.CurrencyRates;
import io.gpuledger.model.JobTraits;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Offer;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.Recommendation;
import io.gpuledger.model.RecommendationAction;
import io.gpuledger.model.RecommendationEvidence;
import io.gpuledger.model.UsageRollup;
import io.gpuledger.model.UsageTotals;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A deployment reporting in US dollars set against offers quoted in yuan: the design brief's
 * Tencent, Volcano Engine and Huawei offers, converted at 0.14 USD per CNY.
 */
class CrossCurrencyRulesTest {

    private static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");
    private static final GpuCatalog CATALOG = GpuCatalog.defaults();
    private static final Offer P4D = new Offer("aws", "us-east-1", "p4d.24xlarge", Lifecycle.ON_DEMAND);
    private static final Offer GN10XP = new Offer("tencent", "ap-shanghai", "GN10Xp", Lifecycle.ON_DEMAND);

    @Test
    void shouldSwitchAUsdJobToACheaperOfferQuotedInYuan() {
        // Given the p4d job (8 x A100-40GB at 32.77 USD/h, 10M tokens an hour: 3.277 USD per 1M, 1.25M per
        // GPU-hour) whose steps measure no communication (independent replicas), and the brief's one-GPU A100
        // offers in CNY
        PriceBoard board = board();
        board.update(quote(P4D, "A100-40GB", 8, 32.77, "USD"));
        board.update(quote(onDemand("volcengine", "cn-beijing", "veGPU"), "A100-40GB", 1, 19.8, "CNY"));
        board.update(quote(onDemand("huaweicloud", "cn-north-4", "GCS.AI.8"), "A100-40GB", 1, 25.2, "CNY"));
        board.update(quote(GN10XP, "A100-80GB", 1, 28.5, "CNY"));
        JobView p4dJob = job("job-1", P4D, "A100-40GB", 8, 32.77).work("tokens", 10_000_000).communication(0.0)
                .build();

        // When the switch rule, allowed to move jobs to other providers, judges it
        Recommendation found = new SwitchInstanceTypeRule(TestSettings.recommendation(
                "gpuledger.recommendation.min-monthly-saving", "0",
                "gpuledger.recommendation.switch-instance-type.other-regions", "true",
                "gpuledger.recommendation.switch-instance-type.other-providers", "true",
                "gpuledger.recommendation.switch-instance-type.egress-price-per-gb", "0.09",
                "gpuledger.recommendation.ttl", "15m"))
                .evaluate(p4dJob, List.of(p4dJob), board, CATALOG, NOW).orElseThrow();

        // Then veGPU at 19.8 x 0.14 = 2.772 USD per GPU-hour, the same GPU on 8 one-GPU instances:
        // 2.772 / 1.25 = 2.2176 per 1M, 32.3% less; (3.277 - 2.2176) x 10 x 720 = 7627.68 a month (its
        // storage traffic not said, so no egress is counted). (Huawei: 25.2 x 0.14 / 1.25 = 2.8224, 13.9%
        // less; Tencent: 28.5 x 0.14 / 1.25 = 3.192, 2.6% less: neither clears 15%.)
        RecommendationAction.SwitchInstanceType action = (RecommendationAction.SwitchInstanceType) found.action();
        assertThat(action.toPool().offerKey()).isEqualTo("volcengine|cn-beijing|veGPU|on-demand");
        assertThat(action.toPool().pricePerHour()).isEqualTo(19.8);
        assertThat(action.toPool().currency()).isEqualTo("CNY");
        assertThat(found.currency()).isEqualTo("USD");
        assertThat(found.estimatedMonthlySaving()).isCloseTo(7627.68, within(1e-6));
        var figures = (RecommendationEvidence.SwitchInstanceType) found.evidence();
        var estimate = figures.candidate().estimate();
        assertThat(estimate.quoteCurrency()).isEqualTo("CNY");
        assertThat(figures.candidatesWorthIt()).isEqualTo(1);
        assertThat(figures.candidate().egress().move()).isEqualTo("provider");
        assertThat(figures.candidate().egress().egressKnown()).isFalse();
        assertThat(action.toInstances()).isEqualTo(8);
        assertThat(estimate.exchangeRate()).isCloseTo(0.14, within(1e-12));
        assertThat(estimate.candidatePricePerGpuHour()).isCloseTo(2.772, within(1e-9));
    }

    @Test
    void shouldMoveAUsdJobToSpotQuotedInYuan() {
        // Given an interruptible job checkpointing every half hour on one GN10Xp (one A100-80GB) at 28.5 CNY
        // on demand, 3.99 USD/h, and 8.55 CNY as spot
        PriceBoard board = board();
        board.update(quote(GN10XP, "A100-80GB", 1, 28.5, "CNY"));
        board.update(quote(new Offer("tencent", "ap-shanghai", "GN10Xp", Lifecycle.SPOT), "A100-80GB", 1, 8.55,
                "CNY"));
        JobView tencentJob = job("job-cn", GN10XP, "A100-80GB", 1, 28.5 * 0.14)
                .traits(new JobTraits("llama-7b", true, 1800.0, null)).build();

        // When the move rule judges it, and judges the same job where the same prices are quoted in USD
        MoveToSpotRule rule = new MoveToSpotRule(TestSettings.recommendation(
                "gpuledger.recommendation.min-monthly-saving", "0",
                "gpuledger.recommendation.move-to-spot.min-net-saving-ratio", "0.10",
                "gpuledger.recommendation.move-to-spot.withdraw-net-saving-ratio", "0",
                "gpuledger.recommendation.ttl", "30m"));
        Recommendation found = rule.evaluate(tencentJob, board, NOW, false).orElseThrow();
        PriceBoard inUsd = board();
        inUsd.update(quote(GN10XP, "A100-80GB", 1, 28.5 * 0.14, "USD"));
        inUsd.update(quote(new Offer("tencent", "ap-shanghai", "GN10Xp", Lifecycle.SPOT), "A100-80GB", 1,
                8.55 * 0.14, "USD"));
        Recommendation inDollars = rule.evaluate(tencentJob, inUsd, NOW, false).orElseThrow();

        // Then the yuan prices are set against the job's dollars: on demand 28.5 x 0.14 = 3.99, spot
        // 8.55 x 0.14 = 1.197, and the move saves what it saves where those are the dollar prices
        assertThat(found.currency()).isEqualTo("USD");
        assertThat(found.estimatedMonthlySaving()).isCloseTo(inDollars.estimatedMonthlySaving(), within(1e-6));
        assertThat(found.estimatedMonthlySaving()).isPositive();
        var figures = (RecommendationEvidence.MoveToSpot) found.evidence();
        assertThat(figures.quoteCurrency()).isEqualTo("CNY");
        assertThat(figures.exchangeRate()).isCloseTo(0.14, within(1e-12));
        assertThat(figures.spotPricePerHour()).isCloseTo(1.197, within(1e-9));
    }

    @Test
    void shouldReserveAPoolQuotedInYuanFromItsHoursInUsd() {
        // Given a GN10Xp pool of one instance in use every hour of a 4-hour lookback, its hours reported
        // in USD, at 28.5 CNY on demand and 18.525 CNY reserved
        PriceBoard board = board();
        board.update(quote(GN10XP, "A100-80GB", 1, 28.5, "CNY"));
        board.update(quote(new Offer("tencent", "ap-shanghai", "GN10Xp", Lifecycle.RESERVED), "A100-80GB", 1,
                18.525, "CNY"));
        PoolHours hours = new PoolHours(4, 10);
        List<PoolUsage> judged = new ArrayList<>();
        for (int hour = 0; hour < 5; hour++) {
            judged.addAll(hours.onRollup(poolHour(hour), board, CATALOG));
        }

        // When the reserve rule judges it
        Recommendation found = new ReserveCapacityRule(TestSettings.recommendation(
                "gpuledger.recommendation.reserve.lookback-hours", "4",
                "gpuledger.recommendation.reserve.term-months", "12",
                "gpuledger.recommendation.min-monthly-saving", "0",
                "gpuledger.recommendation.reserve.ttl", "2h"))
                .evaluate(judged.get(judged.size() - 1), board, NOW, Optional.empty())
                .orElseThrow();

        // Then in USD: on demand 3.99, reserved 18.525 x 0.14 = 2.5935, break-even 0.65 < u1 = 1;
        // 720 x (3.99 x 1 - 2.5935) = 720 x 1.3965 = 1005.48 a month
        assertThat(((RecommendationAction.ReserveCapacity) found.action()).reserveInstances()).isEqualTo(1);
        assertThat(found.currency()).isEqualTo("USD");
        assertThat(found.estimatedMonthlySaving()).isCloseTo(1005.48, within(1e-6));
        var figures = (RecommendationEvidence.ReserveCapacity) found.evidence();
        assertThat(figures.quoteCurrency()).isEqualTo("CNY");
        assertThat(figures.exchangeRate()).isCloseTo(0.14, within(1e-12));
        assertThat(figures.reservedPricePerHour()).isCloseTo(2.5935, within(1e-9));
    }

    private static PriceBoard board() {
        return new PriceBoard(new CurrencyRates("USD", Map.of("USD", 1.0, "CNY", 0.14)));
    }

    private static Offer onDemand(String provider, String region, String type) {
        return new Offer(provider, region, type, Lifecycle.ON_DEMAND);
    }

    private static PriceQuote quote(Offer offer, String gpuModel, int gpus, double price, String currency) {
        return new PriceQuote(offer.provider(), offer.region(), offer.instanceType(), offer.lifecycle(), gpuModel, gpus,
                price, currency, NOW.minusSeconds(86_400), "test");
    }

    private static UsageRollup poolHour(int index) {
        Instant start = NOW.minus(Duration.ofHours(6)).plus(Duration.ofHours(index));
        return new UsageRollup(UsageRollup.Dimension.POOL, GN10XP.key(), start, start.plusSeconds(3600), "USD", 1, null,
                UsageTotals.builder().samples(1).sum(UsageTotals.Sum.GPU_SECONDS, 3600).build());
    }
}
