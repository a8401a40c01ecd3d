package io.gpuledger.cli.backtest;

import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Offer;
import io.gpuledger.model.PriceQuote;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The prices of the backtest's world: what each offer costs, in its own currency and in US dollars.
 * The same figures go to the rules as price quotes and into the backtest's own repricing, so the
 * two differ only in what the rules make of them.
 */
final class OfferPrices {

    /** US dollars per yuan, as the cost engine's shipped rate table has it. */
    static final double USD_PER_CNY = 0.14;

    /** One offer: the instance type's GPUs and the price of one instance-hour. */
    record OfferPrice(Offer offer, String gpuModel, int gpusPerInstance, double pricePerHour, String currency) {

        double usdPerHour() {
            return toUsd(pricePerHour, currency);
        }

        double usdPerGpuHour() {
            return usdPerHour() / gpusPerInstance;
        }

        PriceQuote quote(Instant validFrom) {
            return new PriceQuote(offer.provider(), offer.region(), offer.instanceType(), offer.lifecycle(), gpuModel,
                    gpusPerInstance, pricePerHour, currency, validFrom, "backtest");
        }
    }

    private final Map<Offer, OfferPrice> prices = new LinkedHashMap<>();

    /** Adds an instance type's on-demand, spot and reserved (effective hourly) prices. */
    OfferPrices with(String provider, String region, String type, String gpuModel, int gpus, double onDemand,
            double spot, double reserved, String currency) {
        add(new OfferPrice(new Offer(provider, region, type, Lifecycle.ON_DEMAND), gpuModel, gpus, onDemand, currency));
        add(new OfferPrice(new Offer(provider, region, type, Lifecycle.SPOT), gpuModel, gpus, spot, currency));
        add(new OfferPrice(new Offer(provider, region, type, Lifecycle.RESERVED), gpuModel, gpus, reserved, currency));
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
     * The seed's offers (AWS list prices of us-east-1, used in every AWS region here; the CNY offers
     * of Tencent, Volcano Engine and Huawei Cloud), spot at 30% and a one-year reservation at 65% of
     * on demand; and a V100 type for serving.
     */
    static OfferPrices seed() {
        OfferPrices prices = new OfferPrices();
        for (String region : List.of("us-east-1", "us-east-2", "us-west-2")) {
            prices.with("aws", region, "p4d.24xlarge", "A100-40GB", 8, 32.77, 9.831, 21.3005, "USD")
                    .with("aws", region, "p5.48xlarge", "H100-80GB", 8, 98.32, 29.496, 63.908, "USD");
        }
        return prices.with("aws", "us-east-1", "p3.2xlarge", "V100-16GB", 1, 3.06, 0.918, 1.989, "USD")
                .with("aws", "us-east-1", "g4dn.xlarge", "T4-16GB", 1, 0.526, 0.1578, 0.3419, "USD")
                .with("aws", "us-east-1", "g5.xlarge", "A10G-24GB", 1, 1.006, 0.3018, 0.6539, "USD")
                .with("tencent", "ap-shanghai", "GN10Xp", "A100-80GB", 1, 28.5, 8.55, 18.525, "CNY")
                .with("volcengine", "cn-beijing", "veGPU", "A100-40GB", 1, 19.8, 5.94, 12.87, "CNY")
                .with("huaweicloud", "cn-north-4", "GCS.AI.8", "A100-40GB", 1, 25.2, 7.56, 16.38, "CNY");
    }
}
