package io.gpuledger.bench.backtest;

import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Offer;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.ReservationTerms;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The prices of the backtest's world: what each offer costs, in its own currency and in US dollars,
 * and what the price feed publishes of spot interruptions (a band, or nothing). The same figures go to
 * the rules as price quotes and into the world's own bill; how often spot is really taken back is the
 * world's ({@link BacktestWorld}), not the band's.
 */
final class OfferPrices {

    /** US dollars per yuan, as the cost engine's shipped rate table has it. */
    static final double USD_PER_CNY = 0.14;
    /** The term of every reservation of this world: a year. */
    static final ReservationTerms ONE_YEAR = new ReservationTerms(12, ReservationTerms.PaymentOption.NO_UPFRONT, 0.0);

    /**
     * One offer: the instance type's GPUs and the price of one instance-hour; for spot, the band of
     * the share of instances taken back a month that the feed publishes ({@code bandHigh} null: none).
     */
    record OfferPrice(Offer offer, String gpuModel, int gpusPerInstance, double pricePerHour, String currency,
            Double bandLow, Double bandHigh) {

        double usdPerHour() {
            return toUsd(pricePerHour, currency);
        }

        double usdPerGpuHour() {
            return usdPerHour() / gpusPerInstance;
        }

        PriceQuote quote(Instant validFrom) {
            return PriceQuote.builder().offer(offer).gpuModel(gpuModel).gpuCount(gpusPerInstance)
                    .pricePerHour(pricePerHour).currency(currency).validFrom(validFrom).source("backtest")
                    .interruptionFrequency(bandHigh).interruptionFrequencyLow(bandHigh == null ? null : bandLow)
                    .reservation(offer.lifecycle() == Lifecycle.RESERVED ? ONE_YEAR : null).build();
        }
    }

    private final Map<Offer, OfferPrice> prices = new LinkedHashMap<>();

    /**
     * Adds an instance type's on-demand, spot and reserved (effective hourly, a year, no upfront)
     * prices; {@code band} is the spot band the feed publishes, {@code {low, high}}, or null.
     */
    OfferPrices with(String provider, String region, String type, String gpuModel, int gpus, double onDemand,
            double spot, double reserved, String currency, double[] band) {
        add(new OfferPrice(new Offer(provider, region, type, Lifecycle.ON_DEMAND), gpuModel, gpus, onDemand, currency,
                null, null));
        add(new OfferPrice(new Offer(provider, region, type, Lifecycle.SPOT), gpuModel, gpus, spot, currency,
                band == null ? null : band[0], band == null ? null : band[1]));
        add(new OfferPrice(new Offer(provider, region, type, Lifecycle.RESERVED), gpuModel, gpus, reserved, currency,
                null, null));
        return this;
    }

    private void add(OfferPrice price) {
        prices.put(price.offer(), price);
    }

    Optional<OfferPrice> of(Offer offer) {
        return Optional.ofNullable(prices.get(offer));
    }

    OfferPrice require(Offer offer) {
        return of(offer).orElseThrow(() -> new IllegalArgumentException("no backtest price for " + offer.key()));
    }

    /** The same instance type bought another way. */
    OfferPrice as(Offer offer, Lifecycle lifecycle) {
        return require(new Offer(offer.provider(), offer.region(), offer.instanceType(), lifecycle));
    }

    Collection<OfferPrice> all() {
        return prices.values();
    }

    List<PriceQuote> quotes(Instant validFrom) {
        List<PriceQuote> quotes = new ArrayList<>();
        prices.values().forEach(price -> quotes.add(price.quote(validFrom)));
        return quotes;
    }

    static double toUsd(double amount, String currency) {
        return switch (currency) {
            case "USD" -> amount;
            case "CNY" -> amount * USD_PER_CNY;
            default -> throw new IllegalArgumentException("the backtest converts USD and CNY only, not " + currency);
        };
    }

    /**
     * The seed's offers: AWS list prices of us-east-1 (used in every AWS region here), Azure's of
     * eastus for the A100 v4 sizes, the CNY offers of Tencent, Volcano Engine and Huawei Cloud; spot
     * at 30% and a one-year reservation at 65% of on demand. The spot bands are AWS Spot Instance
     * Advisor's kind (share of instances taken back a month); p4d in us-east-2, the A10G and L4 types
     * and Azure publish none, so the rules take their own default there.
     */
    static OfferPrices seed() {
        double[] under5 = {0.0, 0.05};
        double[] fiveToTen = {0.05, 0.10};
        double[] fifteenToTwenty = {0.15, 0.20};
        OfferPrices prices = new OfferPrices()
                .with("aws", "us-east-1", "p4d.24xlarge", "A100-40GB", 8, 32.77, 9.831, 21.3005, "USD", under5)
                .with("aws", "us-east-2", "p4d.24xlarge", "A100-40GB", 8, 32.77, 9.831, 21.3005, "USD", null)
                .with("aws", "us-west-2", "p4d.24xlarge", "A100-40GB", 8, 32.77, 9.831, 21.3005, "USD", under5)
                .with("aws", "us-east-1", "p5.48xlarge", "H100-80GB", 8, 98.32, 29.496, 63.908, "USD", fiveToTen)
                .with("aws", "us-east-1", "p3.2xlarge", "V100-16GB", 1, 3.06, 0.918, 1.989, "USD", fifteenToTwenty)
                .with("aws", "us-east-1", "g4dn.xlarge", "T4-16GB", 1, 0.526, 0.1578, 0.3419, "USD", under5)
                .with("aws", "us-east-1", "g5.xlarge", "A10G-24GB", 1, 1.006, 0.3018, 0.6539, "USD", null)
                .with("aws", "us-west-2", "g5.xlarge", "A10G-24GB", 1, 1.006, 0.3018, 0.6539, "USD", null)
                .with("aws", "us-east-1", "g6.xlarge", "L4-24GB", 1, 0.8048, 0.2414, 0.5231, "USD", null)
                .with("azure", "eastus", "Standard_NC96ads_A100_v4", "A100-80GB", 4, 14.69, 4.407, 9.5485, "USD",
                        null)
                .with("azure", "eastus", "Standard_ND96amsr_A100_v4", "A100-80GB", 8, 32.77, 9.831, 21.3005, "USD",
                        null);
        return prices.with("tencent", "ap-shanghai", "GN10Xp", "A100-80GB", 1, 28.5, 8.55, 18.525, "CNY", null)
                .with("volcengine", "cn-beijing", "veGPU", "A100-40GB", 1, 19.8, 5.94, 12.87, "CNY", null)
                .with("huaweicloud", "cn-north-4", "GCS.AI.8", "A100-40GB", 1, 25.2, 7.56, 16.38, "CNY", null);
    }
}
