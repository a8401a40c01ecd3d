package io.gpuledger.alerts.recommend;

import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Offer;
import io.gpuledger.model.PriceQuote;
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
 * <p>Rules compare amounts only within one currency: a quote in another currency than the figure
 * it would be set against is left out, never converted by a guess. Feed the board quotes already
 * converted into the reporting currency, and every offer can be compared with every other.
 */
public final class PriceBoard {

    private static final Comparator<PriceQuote> BY_OFFER = Comparator.comparing(quote -> quote.offer().key());

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
