package io.gpuledger.ingest.price.azure;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpuledger.ingest.price.Fetcher;
import io.gpuledger.ingest.price.Fields;
import io.gpuledger.ingest.price.InstanceTypes;
import io.gpuledger.ingest.price.JsonRows;
import io.gpuledger.ingest.price.Location;
import io.gpuledger.ingest.price.PriceReading;
import io.gpuledger.ingest.price.PriceSource;
import io.gpuledger.ingest.price.PriceSourceException;
import io.gpuledger.ingest.price.ReservedTerm;
import io.gpuledger.model.InvalidRecordException;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.ReservationTerms;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Pages of the Azure Retail Prices API ({@code https://prices.azure.com/api/retail/prices}):
 * {@code {"Items": [...], "NextPageLink": ..., "BillingCurrency", "Count"}}, one item per meter.
 *
 * <p>How an item becomes a quote, and why some do not:
 * <ul>
 *   <li>only {@code serviceName} "Virtual Machines" items are instance prices; licences,
 *       disks and addresses are skipped;</li>
 *   <li>a {@code productName} with "Windows" is a price that includes the Windows licence, and one
 *       with "Cloud Services" a meter of the classic Cloud Services product sharing the size's
 *       name: both skipped, as are Dev/Test prices ({@code type} DevTestConsumption), which only
 *       Dev/Test subscriptions pay;</li>
 *   <li>{@code type} Consumption is on-demand, or spot when the {@code skuName} (or {@code meterName})
 *       says "Spot" or "Low Priority"; where a size has both a Spot and a Low Priority meter, the
 *       Spot one is the price of today's spot VMs and the other is skipped;</li>
 *   <li>{@code type} Reservation gives in {@code retailPrice} the price of the whole term
 *       ({@code reservationTerm}), although its {@code unitOfMeasure} reads "1 Hour"; it is divided
 *       by the term's hours. One reserved price is kept per offer: the 1-year term, unless told
 *       otherwise; the other terms are skipped;</li>
 *   <li>prices that are not per hour ({@code unitOfMeasure} other than "1 Hour") are skipped;</li>
 *   <li>the item has no GPU model or count: those come from an {@link InstanceTypes} table keyed by
 *       {@code armSkuName}, and sizes it does not list are skipped with that reason;</li>
 *   <li>{@code effectiveStartDate} is the quote's {@code validFrom}, {@code armRegionName} its region.</li>
 * </ul>
 * A page read over HTTP names the next page in {@code NextPageLink}; the pages are followed to the
 * end, as long as each link stays on the first page's host (and on https, if it began there). A
 * page saved in a file is read alone: its link points at the live API, not at another file.
 */
public final class RetailPrices implements PriceSource {

    public static final String SOURCE = "azure-retail-prices";

    /** More pages than any filtered query for virtual machines returns; a guard against a link loop. */
    static final int MAX_PAGES = 2000;

    private static final String PROVIDER = "azure";

    private final List<Location> pages;
    private final Fetcher fetcher;
    private final InstanceTypes instanceTypes;
    private final ReservedTerm reservedTerm;

    /**
     * @param pages        files each holding one saved page, or one URL whose pages are followed
     * @param reservedTerm the reservation term whose price is published as the offer's reserved price
     */
    public RetailPrices(List<Location> pages, Fetcher fetcher, InstanceTypes instanceTypes, ReservedTerm reservedTerm) {
        if (pages.isEmpty()) {
            throw new IllegalArgumentException("at least one page or URL is needed");
        }
        this.pages = List.copyOf(pages);
        this.fetcher = fetcher;
        this.instanceTypes = instanceTypes;
        this.reservedTerm = reservedTerm;
    }

    @Override
    public String origin() {
        return pages.size() == 1 ? pages.get(0).toString() : pages.get(0) + " (and " + (pages.size() - 1)
                + " more pages)";
    }

    @Override
    public PriceReading read() {
        Reader reader = new Reader(instanceTypes, reservedTerm);
        for (Location page : pages) {
            if (page.isHttp()) {
                follow(page.uri(), reader);
            } else {
                reader.page(fetcher.read(page), page.toString(), false);
            }
        }
        return reader.reading(origin());
    }

    /** Reads pages given as text, in order; for tests and for callers that fetched them already. */
    public static PriceReading parse(List<String> pageTexts, String origin, InstanceTypes instanceTypes,
            ReservedTerm reservedTerm) {
        Reader reader = new Reader(instanceTypes, reservedTerm);
        for (int i = 0; i < pageTexts.size(); i++) {
            reader.page(pageTexts.get(i), pageTexts.size() == 1 ? origin : origin + " page " + (i + 1), false);
        }
        return reader.reading(origin);
    }

    private void follow(URI first, Reader reader) {
        Set<URI> seen = new HashSet<>();
        URI next = first;
        while (next != null) {
            if (!seen.add(next) || seen.size() > MAX_PAGES) {
                throw new PriceSourceException(first + ": NextPageLink does not come to an end (at " + next + ")");
            }
            String link = reader.page(fetcher.get(next), next.toString(), true);
            if (link == null) {
                return;
            }
            URI linked;
            try {
                linked = next.resolve(Location.uri(link));
            } catch (IllegalArgumentException e) {
                throw new PriceSourceException(next + ": NextPageLink is not a URL: '" + link + "'", e);
            }
            // A page that sends the reader to another host was not written by the API it asked.
            fetcher.requireSameHost(first, linked, Fetcher.Refusal.LINK);
            next = linked;
        }
    }

    /** Collects the quotes of a sequence of pages. */
    private static final class Reader {

        private final InstanceTypes instanceTypes;
        private final ReservedTerm reservedTerm;
        private final Map<String, Candidate> byKey = new LinkedHashMap<>();
        private final List<String> rejected = new ArrayList<>();
        private final List<PriceReading.Skipped> skipped = new ArrayList<>();

        Reader(InstanceTypes instanceTypes, ReservedTerm reservedTerm) {
            this.instanceTypes = instanceTypes;
            this.reservedTerm = reservedTerm;
        }

        /** @return the page's NextPageLink, or null */
        String page(String json, String origin, boolean followed) {
            JsonRows.Document page;
            try {
                page = JsonRows.read(json, origin, "Items");
            } catch (IllegalArgumentException e) {
                throw new PriceSourceException(e.getMessage(), e);
            }
            List<JsonRows.Row> items = page.rows().orElseThrow(() -> new PriceSourceException(
                    origin + ": no Items array; expected a page of the Azure Retail Prices API"));
            for (JsonRows.Row item : items) {
                String where = origin + " line " + item.line();
                try {
                    item(item.node(), where);
                } catch (InvalidRecordException e) {
                    rejected.add(where + ": " + e.getMessage());
                }
            }
            JsonNode link = page.fields().get("NextPageLink");
            String next = link == null || link.isNull() || link.asText().isBlank() ? null : link.asText();
            if (next != null && !followed) {
                skipped.add(new PriceReading.Skipped(origin, "NextPageLink not followed: a saved page is read alone "
                        + "(give each saved page, or the API URL)"));
            }
            return next;
        }

        private void item(JsonNode item, String where) {
            if (!item.isObject()) {
                throw new InvalidRecordException("$", "an item must be a JSON object");
            }
            String service = Fields.text(item, "serviceName").orElse("");
            String product = Fields.text(item, "productName").orElse("");
            String sku = Fields.text(item, "skuName").orElse("");
            String meter = Fields.text(item, "meterName").orElse("");
            String type = Fields.required(item, "type");
            String unit = Fields.text(item, "unitOfMeasure").orElse("");
            if (!service.equals("Virtual Machines")) {
                skip(where, "serviceName '" + service + "': not a virtual machine price");
                return;
            }
            if (product.contains("Windows")) {
                skip(where, "Windows: the price includes an OS licence");
                return;
            }
            if (product.contains("Cloud Services")) {
                skip(where, "Cloud Services: a meter of the classic Cloud Services product, not of a VM");
                return;
            }
            if (!unit.equals("1 Hour")) {
                skip(where, "not an hourly price (unitOfMeasure '" + unit + "')");
                return;
            }
            boolean lowPriority = contains(sku, meter, "low priority");
            Lifecycle lifecycle;
            double pricePerHour;
            double retailPrice = Fields.number(item, "retailPrice");
            switch (type) {
                case "Consumption" -> {
                    lifecycle = lowPriority || contains(sku, meter, "spot") ? Lifecycle.SPOT : Lifecycle.ON_DEMAND;
                    pricePerHour = retailPrice;
                }
                case "Reservation" -> {
                    ReservedTerm term = ReservedTerm.parse("reservationTerm", Fields.text(item, "reservationTerm")
                            .orElse(null));
                    if (!term.equals(reservedTerm)) {
                        skip(where, "reservation term " + term + ": the " + reservedTerm
                                + " term is the one published");
                        return;
                    }
                    lifecycle = Lifecycle.RESERVED;
                    // The item prices the whole term, whatever unitOfMeasure says.
                    pricePerHour = retailPrice / term.hours();
                }
                case "DevTestConsumption" -> {
                    skip(where, "Dev/Test price: paid only by Dev/Test subscriptions");
                    return;
                }
                default -> {
                    skip(where, "type '" + type + "': not a price type GPU Ledger reads");
                    return;
                }
            }
            String size = Fields.required(item, "armSkuName");
            InstanceTypes.Gpus gpus = instanceTypes.find(PROVIDER, size).orElse(null);
            if (gpus == null) {
                skip(where, "instance type " + size + ": its GPUs are unknown (add it to an instance-type table)");
                return;
            }
            PriceQuote quote = PriceQuote.builder().provider(PROVIDER).region(Fields.required(item, "armRegionName"))
                    .instanceType(size).lifecycle(lifecycle).gpuModel(gpus.model()).gpuCount(gpus.count())
                    .pricePerHour(pricePerHour).currency(Fields.required(item, "currencyCode"))
                    .validFrom(Fields.instant(item, "effectiveStartDate")).source(SOURCE).build();
            if (lifecycle == Lifecycle.RESERVED) {
                // Paid up front or monthly, the total is the same: the payment is left unsaid.
                quote = quote.withReservation(ReservationTerms.ofMonths(reservedTerm.months()));
            }
            keep(new Candidate(quote, lowPriority, where));
        }

        private void keep(Candidate candidate) {
            String key = candidate.quote.key();
            Candidate earlier = byKey.get(key);
            if (earlier != null && earlier.lowPriority != candidate.lowPriority) {
                Candidate spot = earlier.lowPriority ? candidate : earlier;
                Candidate lowPriority = earlier.lowPriority ? earlier : candidate;
                skip(lowPriority.where, "Low Priority meter: the Spot meter of the same size is its spot price");
                byKey.put(key, spot);
                return;
            }
            byKey.put(key, candidate);
        }

        private void skip(String where, String reason) {
            skipped.add(new PriceReading.Skipped(where, reason));
        }

        PriceReading reading(String origin) {
            return new PriceReading(origin, PriceReading.Dating.FROM_SOURCE,
                    byKey.values().stream().map(c -> c.quote).toList(), rejected, skipped);
        }

        private static boolean contains(String sku, String meter, String word) {
            return sku.toLowerCase(Locale.ROOT).contains(word) || meter.toLowerCase(Locale.ROOT).contains(word);
        }
    }

    private record Candidate(PriceQuote quote, boolean lowPriority, String where) {
    }
}
