package io.gpuledger.ingest.price.aws;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpuledger.ingest.price.Fetcher;
import io.gpuledger.ingest.price.Fields;
import io.gpuledger.ingest.price.InstanceTypes;
import io.gpuledger.ingest.price.JsonRows;
import io.gpuledger.ingest.price.Location;
import io.gpuledger.ingest.price.PriceReading;
import io.gpuledger.ingest.price.PriceSource;
import io.gpuledger.ingest.price.PriceSourceException;
import io.gpuledger.model.InvalidRecordException;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.PriceQuote;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The answer of EC2's {@code DescribeSpotPriceHistory} as the AWS CLI and SDKs print it:
 * {@code {"SpotPriceHistory": [{"AvailabilityZone", "InstanceType", "ProductDescription",
 * "SpotPrice", "Timestamp"}, ...]}}, newest first.
 *
 * <p>What the format does not say, and how it is filled in:
 * <ul>
 *   <li>{@code SpotPrice} is a string in US dollars per instance-hour;</li>
 *   <li>there is no region, only the Availability Zone; the region is the zone's name without its
 *       zone suffix ({@code us-east-1a}, {@code us-west-2-lax-1a} and {@code us-east-1-wl1-bos-wlz-1}
 *       are all in their region's name before it);</li>
 *   <li>spot prices differ between the zones of a region while a quote is per region, so the
 *       region's price at any time is the highest of its zones' prices then: a cost monitor may
 *       overstate a spot GPU's cost a little, but never understates it;</li>
 *   <li>there is no GPU model or count: those come from an {@link InstanceTypes} table, and records
 *       of types it does not list are skipped with that reason.</li>
 * </ul>
 * Only Linux/UNIX prices are read: the other product descriptions include an OS licence.
 */
public final class SpotPriceHistory implements PriceSource {

    public static final String SOURCE = "aws-spot-price-history";

    private static final String PROVIDER = "aws";
    private static final String CURRENCY = "USD";
    private static final Set<String> LINUX = Set.of("linux/unix", "linux/unix (amazon vpc)");
    private static final Pattern REGION = Pattern.compile("([a-z]{2}(?:-gov|-iso[a-z]?)?-[a-z]+-\\d+)(?:[a-z]|-.+)");

    private final Location location;
    private final Fetcher fetcher;
    private final InstanceTypes instanceTypes;

    public SpotPriceHistory(Location location, Fetcher fetcher, InstanceTypes instanceTypes) {
        this.location = location;
        this.fetcher = fetcher;
        this.instanceTypes = instanceTypes;
    }

    @Override
    public String origin() {
        return location.toString();
    }

    @Override
    public PriceReading read() {
        return parse(fetcher.read(location), origin(), instanceTypes);
    }

    /** @throws PriceSourceException when the text is not a spot price history at all */
    public static PriceReading parse(String json, String origin, InstanceTypes instanceTypes) {
        List<JsonRows.Row> rows;
        try {
            rows = JsonRows.read(json, origin, "SpotPriceHistory").rows().orElseThrow(() -> new PriceSourceException(
                    origin + ": no SpotPriceHistory array; expected the JSON of DescribeSpotPriceHistory"));
        } catch (IllegalArgumentException e) {
            throw new PriceSourceException(e.getMessage(), e);
        }
        List<String> rejected = new ArrayList<>();
        List<PriceReading.Skipped> skipped = new ArrayList<>();
        Map<String, Timeline> timelines = new LinkedHashMap<>();
        for (JsonRows.Row row : rows) {
            String where = origin + " line " + row.line();
            try {
                ZonePrice price = zonePrice(row.node());
                if (!LINUX.contains(price.productDescription().toLowerCase(Locale.ROOT))) {
                    skipped.add(new PriceReading.Skipped(where, "ProductDescription '" + price.productDescription()
                            + "': only Linux/UNIX prices are read (the others include an OS licence)"));
                    continue;
                }
                InstanceTypes.Gpus gpus = instanceTypes.find(PROVIDER, price.instanceType()).orElse(null);
                if (gpus == null) {
                    skipped.add(new PriceReading.Skipped(where, "instance type " + price.instanceType()
                            + ": its GPUs are unknown (add it to an instance-type table)"));
                    continue;
                }
                timelines.computeIfAbsent(price.region() + '|' + price.instanceType(),
                        k -> new Timeline(price.region(), price.instanceType(), gpus)).add(price);
            } catch (InvalidRecordException e) {
                rejected.add(where + ": " + e.getMessage());
            }
        }
        List<PriceQuote> quotes = new ArrayList<>();
        for (Timeline timeline : timelines.values()) {
            try {
                quotes.addAll(timeline.quotes());
            } catch (InvalidRecordException e) {
                rejected.add(origin + ": " + timeline.region + " " + timeline.instanceType + ": " + e.getMessage());
            }
        }
        return new PriceReading(origin, PriceReading.Dating.FROM_SOURCE, quotes, rejected, skipped);
    }

    /** The region an Availability Zone belongs to. */
    static String region(String availabilityZone) {
        Matcher matcher = REGION.matcher(availabilityZone);
        if (!matcher.matches()) {
            throw new InvalidRecordException("AvailabilityZone",
                    "is not an Availability Zone name such as us-east-1a: '" + availabilityZone + "'");
        }
        return matcher.group(1);
    }

    private static ZonePrice zonePrice(JsonNode record) {
        if (!record.isObject()) {
            throw new InvalidRecordException("$", "a spot price record must be a JSON object");
        }
        String instanceType = Fields.required(record, "InstanceType");
        String zone = Fields.required(record, "AvailabilityZone");
        double price = Fields.number(record, "SpotPrice");
        if (!(price >= 0) || Double.isInfinite(price)) {
            throw new InvalidRecordException("SpotPrice", "must be a price of zero or more, was " + price);
        }
        Instant time = Fields.instant(record, "Timestamp").truncatedTo(ChronoUnit.SECONDS);
        String description = Fields.required(record, "ProductDescription");
        return new ZonePrice(instanceType, region(zone), zone, price, time, description);
    }

    private record ZonePrice(String instanceType, String region, String zone, double price, Instant time,
            String productDescription) {
    }

    /** The spot prices of one instance type in the zones of one region, over time. */
    private static final class Timeline {

        private final String region;
        private final String instanceType;
        private final InstanceTypes.Gpus gpus;
        private final TreeMap<Instant, List<ZonePrice>> changes = new TreeMap<>();

        Timeline(String region, String instanceType, InstanceTypes.Gpus gpus) {
            this.region = region;
            this.instanceType = instanceType;
            this.gpus = gpus;
        }

        void add(ZonePrice price) {
            changes.computeIfAbsent(price.time(), t -> new ArrayList<>()).add(price);
        }

        /** A version at each time the region's price (its dearest zone's) changes. */
        List<PriceQuote> quotes() {
            Map<String, Double> byZone = new LinkedHashMap<>();
            List<PriceQuote> quotes = new ArrayList<>();
            Double last = null;
            for (Map.Entry<Instant, List<ZonePrice>> change : changes.entrySet()) {
                change.getValue().forEach(price -> byZone.put(price.zone(), price.price()));
                double regionPrice = byZone.values().stream().mapToDouble(Double::doubleValue).max().orElseThrow();
                if (last == null || regionPrice != last) {
                    quotes.add(PriceQuote.builder().provider(PROVIDER).region(region).instanceType(instanceType)
                            .lifecycle(Lifecycle.SPOT).gpuModel(gpus.model()).gpuCount(gpus.count())
                            .pricePerHour(regionPrice).currency(CURRENCY).validFrom(change.getKey()).source(SOURCE)
                            .build());
                    last = regionPrice;
                }
            }
            return quotes;
        }
    }
}
