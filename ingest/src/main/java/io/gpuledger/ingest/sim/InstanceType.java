package io.gpuledger.ingest.sim;

import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Offer;
import io.gpuledger.model.PriceQuote;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** An instance type a price catalog offers, and the ways it can be bought there. */
record InstanceType(String provider, String region, String name, String gpuModel, int gpuCount,
        Set<Lifecycle> lifecycles) {

    InstanceType {
        lifecycles = Set.copyOf(lifecycles);
    }

    /** The catalog's instance types, in a fixed order (provider, then type name). */
    static List<InstanceType> of(List<PriceQuote> catalog) {
        Map<String, PriceQuote> first = new LinkedHashMap<>();
        Map<String, Set<Lifecycle>> lifecycles = new LinkedHashMap<>();
        catalog.stream()
                .sorted(Comparator.comparing(PriceQuote::provider).thenComparing(PriceQuote::instanceType)
                        .thenComparing(PriceQuote::region))
                .forEach(quote -> {
                    String key = quote.provider() + "/" + quote.region() + "/" + quote.instanceType();
                    first.putIfAbsent(key, quote);
                    lifecycles.computeIfAbsent(key, k -> EnumSet.noneOf(Lifecycle.class)).add(quote.lifecycle());
                });
        List<InstanceType> types = new ArrayList<>();
        first.forEach((key, quote) -> types.add(new InstanceType(quote.provider(), quote.region(),
                quote.instanceType(), quote.gpuModel(), quote.gpuCount(), lifecycles.get(key))));
        return types;
    }

    /** {@code wanted} where the catalog prices it, else on-demand, else whatever it does price. */
    Lifecycle priced(Lifecycle wanted) {
        if (lifecycles.contains(wanted)) {
            return wanted;
        }
        if (lifecycles.contains(Lifecycle.ON_DEMAND)) {
            return Lifecycle.ON_DEMAND;
        }
        return EnumSet.copyOf(lifecycles).iterator().next();
    }

    Offer offer(Lifecycle lifecycle) {
        return new Offer(provider, region, name, lifecycle);
    }
}
