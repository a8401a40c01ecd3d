package io.gpuledger.alerts.anomaly;

import io.gpuledger.alerts.AlertSettings;
import io.gpuledger.alerts.anomaly.Anomalies.Finding;
import io.gpuledger.model.AnomalyKind;
import io.gpuledger.model.CostAnomaly;
import io.gpuledger.model.CostAnomaly.Severity;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Offer;
import io.gpuledger.model.PriceQuote;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * PRICE_SPIKE: a new price version of an offer at least {@code threshold} above the version it
 * replaces. Fed every quote of every lifecycle (on-demand quotes are what a spot price is held
 * against), it flags spot offers only by default.
 *
 * <p>Only a version newer than the newest known one of its offer is judged. A version that
 * arrives late (older {@code validFrom}) was in force in the past and replaced since: it is
 * counted and ignored. A re-publication of the newest version at the same price is a duplicate;
 * at another price it is a correction, kept as the newest version but not judged. Versions in
 * another currency than the one they replace are not compared.
 *
 * <p>CRITICAL when the new price is above the newest known on-demand price of the same instance
 * type in the same region and currency: spot then costs more than the capacity it should save
 * on. Not thread-safe.
 */
public final class PriceSpikeDetector {

    public static final String MEASURE = "price per instance-hour";
    public static final String DIMENSION = "offer";
    /** Keeps a rise of exactly the threshold (1.30 after 1.00) a spike despite binary fractions. */
    private static final double EPSILON = 1e-9;

    private final AlertSettings.PriceSpike settings;
    private final Map<Offer, PriceQuote> newest = new HashMap<>();
    private long lateQuotes;
    private long duplicateQuotes;

    /** @param settings the least relative rise that is a spike, and the lifecycles whose offers are judged */
    public PriceSpikeDetector(AlertSettings.PriceSpike settings) {
        if (!(settings.threshold() > 0)) {
            throw new IllegalArgumentException("threshold must be positive, was " + settings.threshold());
        }
        this.settings = settings;
    }

    /**
     * Takes one quote; returns the spike it makes, if it is a new version that rose by enough. A price learned from
     * the bill ({@link PriceQuote#BILL_RECONCILIATION}) is the account's own rate, no market's: it is neither judged
     * nor the version the next market price is held against, nor an on-demand bar for spot.
     */
    public Optional<CostAnomaly> observe(PriceQuote quote, Instant detectedAt) {
        if (quote.learnedFromBill()) {
            return Optional.empty();
        }
        Offer offer = quote.offer();
        PriceQuote previous = newest.get(offer);
        if (previous != null && !quote.validFrom().isAfter(previous.validFrom())) {
            if (quote.validFrom().isBefore(previous.validFrom())) {
                lateQuotes++;
            } else if (quote.pricePerHour() == previous.pricePerHour()) {
                duplicateQuotes++;
            } else {
                newest.put(offer, quote);
            }
            return Optional.empty();
        }
        newest.put(offer, quote);
        if (previous == null || !settings.lifecycles().contains(quote.lifecycle())
                || !previous.currency().equals(quote.currency()) || previous.pricePerHour() == 0) {
            return Optional.empty();
        }
        double rise = quote.pricePerHour() / previous.pricePerHour() - 1;
        if (rise < settings.threshold() - EPSILON) {
            return Optional.empty();
        }
        return Optional.of(spike(previous, quote, rise, onDemandPrice(quote), detectedAt));
    }

    /** Quotes ignored because a newer version of their offer was already known. */
    public long lateQuotes() {
        return lateQuotes;
    }

    /** Quotes ignored because they repeated the newest version of their offer. */
    public long duplicateQuotes() {
        return duplicateQuotes;
    }

    /** The newest on-demand price of the quote's instance type and region, in its currency; null when not known. */
    private Double onDemandPrice(PriceQuote quote) {
        if (quote.lifecycle() == Lifecycle.ON_DEMAND) {
            return null;
        }
        PriceQuote onDemand = newest.get(new Offer(quote.provider(), quote.region(), quote.instanceType(),
                Lifecycle.ON_DEMAND));
        return onDemand == null || !onDemand.currency().equals(quote.currency()) ? null : onDemand.pricePerHour();
    }

    private CostAnomaly spike(PriceQuote previous, PriceQuote quote, double rise, Double onDemand, Instant detectedAt) {
        Severity severity = onDemand != null && quote.pricePerHour() > onDemand ? Severity.CRITICAL : Severity.WARNING;
        Finding finding = Finding.of(AnomalyKind.PRICE_SPIKE).dimension(DIMENSION)
                .subject(quote.offer().key()).severity(severity).measure(MEASURE).expected(previous.pricePerHour())
                .actual(quote.pricePerHour()).currency(quote.currency()).windowStart(previous.validFrom())
                .windowEnd(quote.validFrom());
        Map<String, Object> evidence = new LinkedHashMap<>();
        evidence.put("previousPricePerHour", previous.pricePerHour());
        evidence.put("previousValidFrom", previous.validFrom().toString());
        evidence.put("risePercent", rise * 100);
        evidence.put("thresholdPercent", settings.threshold() * 100);
        evidence.put("gpuCount", quote.gpuCount());
        evidence.put("pricePerGpuHour", quote.pricePerGpuHour());
        if (onDemand != null) {
            evidence.put("onDemandPricePerHour", onDemand);
        }
        return finding.toAnomaly(detectedAt, null, summary(quote, finding, rise, onDemand), evidence);
    }

    private static String summary(PriceQuote quote, Finding finding, double rise, Double onDemand) {
        String currency = " " + quote.currency();
        String text = quote.lifecycle().wire() + " price of " + quote.provider() + " " + quote.instanceType() + " in "
                + quote.region() + " rose " + Anomalies.percent(rise * 100) + " from "
                + Anomalies.money(finding.expected()) + " to " + Anomalies.money(finding.actual()) + currency
                + " per instance-hour";
        if (onDemand == null) {
            return text;
        }
        return text + (finding.actual() > onDemand ? ", above" : ", below") + " its on-demand price of "
                + Anomalies.money(onDemand) + currency;
    }
}
