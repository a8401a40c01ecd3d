package io.gpuledger.ingest.price;

import java.util.List;

/** A price catalog (CSV or JSON) in a file or at a URL; read afresh each time, so edits are picked up. */
public final class CatalogSource implements PriceSource {

    private final Location location;
    private final Fetcher fetcher;

    public CatalogSource(Location location, Fetcher fetcher) {
        this.location = location;
        this.fetcher = fetcher;
    }

    @Override
    public String origin() {
        return location.toString();
    }

    @Override
    public PriceReading read() {
        PriceCatalog catalog;
        try {
            catalog = PriceCatalog.parse(fetcher.read(location), origin());
        } catch (IllegalArgumentException e) {
            throw new PriceSourceException(e.getMessage(), e);
        }
        return new PriceReading(origin(), PriceReading.Dating.FROM_SOURCE, catalog.quotes(), catalog.errors(),
                List.of());
    }

    /** The catalog shipped with GPU Ledger. */
    public static PriceSource shipped() {
        return new PriceSource() {
            @Override
            public String origin() {
                return "the shipped catalog";
            }

            @Override
            public PriceReading read() {
                PriceCatalog catalog = PriceCatalog.loadDefault();
                return new PriceReading(origin(), PriceReading.Dating.FROM_SOURCE, catalog.quotes(), catalog.errors(),
                        List.of());
            }
        };
    }
}
