package io.gpuledger.alerts.recommend;

import io.gpuledger.model.CurrencyRates;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Offer;
import io.gpuledger.model.PriceQuote;
import java.time.Instant;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The latest price of every offer, as the price topic has told it so far. Safe to update from
 * the consumer thread while rules read it from others.
 *
 * <p>Rules set a quote against figures in the job's or pool's currency (the cost engine's reporting
 * currency) by converting it at the exchange rate in force ({@link #priceIn}), from the same
 * versioned table the engine charges with. A quote in a currency the table lacks is left out,
 * never converted by a guess.
 */
public final class PriceBoard {

    /** The shipped rates, read once, for boards not given a table of their own. */
    private static final class Shipped {
        private static final CurrencyRates RATES = CurrencyRates.shipped("USD");
    }

    private static final Comparator<PriceQuote> BY_OFFER = Comparator.comparing(quote -> quote.offer().key());

    private final CurrencyRates rates;
    private final Map<Offer, PriceQuote> latest = new ConcurrentHashMap<>();
    /** Counts the changes of {@link #latest}: a sorted list made at one count holds until the next. */
    private final AtomicLong changes = new AtomicLong();
    private volatile Sorted sorted = new Sorted(-1, List.of());

    /**
     * Every offer sorted, as of {@code changes}. The rules ask for them for every job's every window, thousands
     * of times a second, and prices change a few times a minute.
     */
    private record Sorted(long changes, List<PriceQuote> quotes) {
    }

    /**
     * A quote's price in another currency: {@code exchangeRate} units of {@code currency} per unit
     * of the quote's, 1 when they are the same.
     */
    public record Price(PriceQuote quote, String currency, double exchangeRate) {

        public double pricePerHour() {
            return quote.pricePerHour() * exchangeRate;
        }

        public double pricePerGpuHour() {
            return quote.pricePerGpuHour() * exchangeRate;
        }
    }

    /** A board converting with the shipped exchange rates. */
    public PriceBoard() {
        this(Shipped.RATES);
    }

    public PriceBoard(CurrencyRates rates) {
        this.rates = rates;
    }

    /**
     * Takes {@code quote} as its offer's price unless the board already holds a later version:
     * a quote valid from the same instant replaces the one held (a corrected re-publication),
     * an older one is ignored (a late record of the history).
     *
     * @return whether the quote is now the offer's price
     */
    public boolean update(PriceQuote quote) {
        PriceQuote held = latest.merge(quote.offer(), quote,
                (current, candidate) -> candidate.validFrom().isBefore(current.validFrom()) ? current : candidate);
        if (held == quote) {
            changes.incrementAndGet();
        }
        return held == quote;
    }

    public Optional<PriceQuote> price(Offer offer) {
        return Optional.ofNullable(latest.get(offer));
    }

    /**
     * {@code quote}'s price in {@code currency} at the rate in force at {@code at}; empty when the
     * rates table lacks either currency.
     */
    public Optional<Price> priceIn(PriceQuote quote, String currency, Instant at) {
        Double rate = rates.rate(quote.currency(), currency, at.toEpochMilli());
        return rate == null ? Optional.empty() : Optional.of(new Price(quote, currency, rate));
    }

    /** The price of {@code offer} now held, in {@code currency} at the rate in force at {@code at}. */
    public Optional<Price> price(Offer offer, String currency, Instant at) {
        return price(offer).flatMap(quote -> priceIn(quote, currency, at));
    }

    /** The priced ways of buying one instance type in one region, by lifecycle. */
    public Map<Lifecycle, PriceQuote> offersOf(String provider, String region, String instanceType) {
        Map<Lifecycle, PriceQuote> byLifecycle = new EnumMap<>(Lifecycle.class);
        for (Lifecycle lifecycle : Lifecycle.values()) {
            PriceQuote quote = latest.get(new Offer(provider, region, instanceType, lifecycle));
            if (quote != null) {
                byLifecycle.put(lifecycle, quote);
            }
        }
        return byLifecycle;
    }

    /** Every priced offer, in the order of their keys (so that ties between candidates are stable). */
    public List<PriceQuote> all() {
        long now = changes.get();
        Sorted known = sorted;
        if (known.changes() != now) {
            // Made after the count was read: it holds every change counted so far, perhaps a later one too,
            // which the next change's count makes the next caller sort again.
            known = new Sorted(now, latest.values().stream().sorted(BY_OFFER).toList());
            sorted = known;
        }
        return known.quotes();
    }
}
