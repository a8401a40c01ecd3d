package io.gpuledger.ingest.price.skypilot;

import io.gpuledger.ingest.price.Csv;
import io.gpuledger.ingest.price.Fetcher;
import io.gpuledger.ingest.price.InstanceTypes;
import io.gpuledger.ingest.price.Location;
import io.gpuledger.ingest.price.PriceReading;
import io.gpuledger.ingest.price.PriceSource;
import io.gpuledger.ingest.price.PriceSourceException;
import io.gpuledger.model.Check;
import io.gpuledger.model.InvalidRecordException;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.PriceQuote;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A SkyPilot catalog ({@code vms.csv} of the skypilot-catalog project, one file per cloud):
 * {@code InstanceType, AcceleratorName, AcceleratorCount, vCPUs, MemoryGiB, GpuInfo, Price,
 * SpotPrice, Region, AvailabilityZone}, one line per instance type and zone, in US dollars per
 * instance-hour.
 *
 * <p>One line gives an on-demand price ({@code Price}) and a spot price ({@code SpotPrice}); an
 * empty cell means there is no such price there. On-demand prices repeat on every zone line of a
 * region; spot prices differ by zone, and the region's spot quote is its dearest zone's price,
 * so that a spot GPU's cost is never understated. Lines without an accelerator are CPU-only
 * types and are skipped; so are lines whose {@code AcceleratorCount} is a share of one GPU, which
 * a per-GPU price cannot express.
 *
 * <p>The catalog does not say since when its prices hold, so they are dated with the time they
 * are read ({@link PriceReading.Dating#AT_READING}). Which cloud a file describes is not in it
 * either; it is given with the file.
 */
public final class SkyPilotCatalog implements PriceSource {

    public static final String SOURCE = "skypilot-catalog";

    static final List<String> REQUIRED = List.of("InstanceType", "AcceleratorName", "AcceleratorCount", "Price",
            "SpotPrice", "Region");

    private static final String CURRENCY = "USD";

    private final String provider;
    private final Location location;
    private final Fetcher fetcher;
    private final Clock clock;

    /**
     * @param provider the cloud the catalog describes, as GPU Ledger names it ({@code aws}, {@code gcp}, {@code azure})
     */
    public SkyPilotCatalog(String provider, Location location, Fetcher fetcher, Clock clock) {
        this.provider = Check.identity("provider", provider);
        this.location = location;
        this.fetcher = fetcher;
        this.clock = clock;
    }

    @Override
    public String origin() {
        return location.toString();
    }

    @Override
    public PriceReading read() {
        return parse(fetcher.read(location), origin(), provider, clock.instant());
    }

    /** @throws PriceSourceException when the text has no header with the catalog's columns */
    public static PriceReading parse(String csv, String origin, String provider, Instant readAt) {
        List<String> rejected = new ArrayList<>();
        List<PriceReading.Skipped> skipped = new ArrayList<>();
        Map<String, Dearest> offers = new LinkedHashMap<>();
        Csv.Header header = null;
        for (Csv.Line line : Csv.lines(csv)) {
            if (header == null) {
                header = Csv.Header.of(line.cells());
                List<String> missing = header.missing(REQUIRED);
                if (!missing.isEmpty()) {
                    throw new PriceSourceException(origin + ": header lacks column(s) " + missing
                            + "; expected a SkyPilot catalog (vms.csv)");
                }
                continue;
            }
            String where = origin + " line " + line.number();
            try {
                Row row = row(line, header);
                if (row.accelerator().isEmpty()) {
                    skipped.add(new PriceReading.Skipped(where, "no accelerator: a CPU-only instance type"));
                    continue;
                }
                if (row.onDemand().isEmpty() && row.spot().isEmpty()) {
                    skipped.add(new PriceReading.Skipped(where, "neither Price nor SpotPrice: no price to read"));
                    continue;
                }
                Optional<Integer> gpus = gpuCount(line, header);
                if (gpus.isEmpty()) {
                    skipped.add(new PriceReading.Skipped(where, "AcceleratorCount "
                            + line.cell(header, "AcceleratorCount").orElse("")
                                    + ": a share of one GPU has no per-GPU price"));
                    continue;
                }
                row.onDemand().ifPresent(price -> offers.computeIfAbsent(
                        row.instanceType() + '|' + row.region() + "|on-demand",
                        k -> new Dearest(row, Lifecycle.ON_DEMAND, gpus.get())).offer(price));
                row.spot().ifPresent(price -> offers.computeIfAbsent(
                        row.instanceType() + '|' + row.region() + "|spot",
                        k -> new Dearest(row, Lifecycle.SPOT, gpus.get())).offer(price));
            } catch (InvalidRecordException e) {
                rejected.add(where + ": " + e.getMessage());
            }
        }
        if (header == null) {
            throw new PriceSourceException(origin + ": empty; expected a SkyPilot catalog (vms.csv)");
        }
        List<PriceQuote> quotes = new ArrayList<>();
        for (Dearest offer : offers.values()) {
            try {
                quotes.add(offer.quote(provider, readAt));
            } catch (InvalidRecordException e) {
                rejected.add(origin + " line " + offer.firstLine + ": " + e.getMessage());
            }
        }
        return new PriceReading(origin, PriceReading.Dating.AT_READING, quotes, rejected, skipped);
    }

    private record Row(int line, String instanceType, String region, Optional<String> accelerator,
            Optional<Double> onDemand, Optional<Double> spot) {
    }

    private static Row row(Csv.Line line, Csv.Header header) {
        String instanceType = line.cell(header, "InstanceType")
                .orElseThrow(() -> new InvalidRecordException("InstanceType", "is required"));
        String region = line.cell(header, "Region")
                .orElseThrow(() -> new InvalidRecordException("Region", "is required"));
        return new Row(line.number(), instanceType, region, line.cell(header, "AcceleratorName"),
                price(line, header, "Price"), price(line, header, "SpotPrice"));
    }

    private static Optional<Integer> gpuCount(Csv.Line line, Csv.Header header) {
        String count = line.cell(header, "AcceleratorCount")
                .orElseThrow(() -> new InvalidRecordException("AcceleratorCount",
                        "is required with an AcceleratorName"));
        double value;
        try {
            value = Double.parseDouble(count);
        } catch (NumberFormatException e) {
            throw new InvalidRecordException("AcceleratorCount", "is not a number: '" + count + "'");
        }
        if (value > 0 && value < 1) {
            return Optional.empty();
        }
        return Optional.of(InstanceTypes.positiveWholeNumber("AcceleratorCount", count));
    }

    private static Optional<Double> price(Csv.Line line, Csv.Header header, String column) {
        Optional<String> text = line.cell(header, column);
        if (text.isEmpty()) {
            return Optional.empty();
        }
        try {
            double price = Double.parseDouble(text.get());
            if (!(price >= 0) || Double.isInfinite(price)) {
                throw new InvalidRecordException(column, "must be a price of zero or more, was " + text.get());
            }
            return Optional.of(price);
        } catch (NumberFormatException e) {
            throw new InvalidRecordException(column, "is not a number: '" + text.get() + "'");
        }
    }

    /** The highest price of one offer across the zone lines of its region. */
    private static final class Dearest {

        private final String instanceType;
        private final String region;
        private final String gpuModel;
        private final Lifecycle lifecycle;
        private final int gpuCount;
        private final int firstLine;
        private double price = -1;

        Dearest(Row row, Lifecycle lifecycle, int gpuCount) {
            this.instanceType = row.instanceType();
            this.region = row.region();
            this.gpuModel = row.accelerator().orElse(null);
            this.lifecycle = lifecycle;
            this.gpuCount = gpuCount;
            this.firstLine = row.line();
        }

        void offer(double zonePrice) {
            price = Math.max(price, zonePrice);
        }

        PriceQuote quote(String provider, Instant readAt) {
            return PriceQuote.builder().provider(provider).region(region).instanceType(instanceType)
                    .lifecycle(lifecycle).gpuModel(gpuModel).gpuCount(gpuCount).pricePerHour(price).currency(CURRENCY)
                    .validFrom(readAt).source(SOURCE).build();
        }
    }
}
