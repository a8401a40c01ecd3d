package io.gpuledger.model;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.slf4j.LoggerFactory;

/**
 * Converts prices into the reporting currency, so that every amount the engine publishes is in
 * one currency and can be added up, and gives the rate between any two currencies, so that the
 * alert service's rules compare offers quoted in different ones at the engine's rates. Rates are a dated table of US
 * dollars per unit of each currency, versioned like prices: each row holds from its date until the next row of its
 * currency, and an amount is converted at the rates in force at its time (a currency's first row
 * also holds before its date, so history older than the table is still converted). Conversion
 * goes through the dollar. A price in a currency the table lacks is not guessed: the sample is
 * left unpriced, and the currency is named in a warning, once.
 */
public final class CurrencyRates {

    public static final String SHIPPED = "/io/gpuledger/model/rates.csv";

    /** Valid from the beginning of time: a row without a date. */
    public static final long ALWAYS = Long.MIN_VALUE;

    /**
     * One row of the table: from {@code validFrom} (epoch millis) on, a unit of {@code currency} is worth
     * {@code usdPerUnit}.
     */
    public record Rate(long validFrom, String currency, double usdPerUnit) {
    }

    /**
     * {@code amount} in the reporting currency (null: the table lacks a currency) and the span of
     * time, {@code from} (inclusive) to {@code until}, in which the same rates are in force.
     */
    public record Converted(Double amount, long from, long until) {

        public boolean covers(long millis) {
            return millis >= from && millis < until;
        }
    }

    private final String reporting;
    /** Per currency, its rows by date. */
    private final Map<String, Versions> usdPerUnit;
    private final Consumer<String> warnings;
    private final Set<String> currenciesWarnedOf = ConcurrentHashMap.newKeySet();

    /** A table of one rate per currency, valid at all times. */
    public CurrencyRates(String reporting, Map<String, Double> usdPerUnit) {
        this(reporting, usdPerUnit.entrySet().stream().map(rate -> new Rate(ALWAYS, rate.getKey(), rate.getValue()))
                .toList(), LoggerFactory.getLogger(CurrencyRates.class)::warn);
    }

    /** @param warnings where the warning about a currency the table lacks goes, once per currency */
    public CurrencyRates(String reporting, List<Rate> rows, Consumer<String> warnings) {
        this.reporting = Check.currency("reporting currency", reporting);
        this.usdPerUnit = Versions.of(rows);
        this.warnings = warnings;
        if (!this.usdPerUnit.containsKey(reporting)) {
            throw new IllegalArgumentException("no exchange rate for the reporting currency " + reporting);
        }
    }

    /** The shipped table, reporting in {@code reporting}. */
    public static CurrencyRates shipped(String reporting) {
        try (InputStream in = CurrencyRates.class.getResourceAsStream(SHIPPED)) {
            return new CurrencyRates(reporting, parse(in, SHIPPED), LoggerFactory.getLogger(CurrencyRates.class)::warn);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static CurrencyRates load(Path file, String reporting) {
        try (InputStream in = Files.newInputStream(file)) {
            return new CurrencyRates(reporting, parse(in, file.toString()),
                    LoggerFactory.getLogger(CurrencyRates.class)::warn);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read exchange rates " + file, e);
        }
    }

    public String reporting() {
        return reporting;
    }

    /** Whether the table has a rate for {@code currency}. */
    public boolean knows(String currency) {
        return usdPerUnit.containsKey(currency);
    }

    /**
     * {@code amount} of {@code currency} at {@code atMillis} in the reporting currency, at the rates
     * in force then. A currency the table lacks is named in a warning the first time it is asked for.
     */
    public Converted convert(double amount, String currency, long atMillis) {
        if (currency.equals(reporting)) {
            return new Converted(amount, Long.MIN_VALUE, Long.MAX_VALUE);
        }
        Versions from = usdPerUnit.get(currency);
        if (from == null) {
            if (currenciesWarnedOf.add(currency)) {
                warnings.accept("no exchange rate for " + currency + " in the rates table: time priced in "
                        + currency + " is left unpriced (counted as unpriced seconds) until the table has it");
            }
            return new Converted(null, Long.MIN_VALUE, Long.MAX_VALUE);
        }
        Versions to = usdPerUnit.get(reporting);
        int fromRow = from.rowAt(atMillis);
        int toRow = to.rowAt(atMillis);
        return new Converted(amount * from.rates[fromRow] / to.rates[toRow],
                Math.max(from.start(fromRow), to.start(toRow)), Math.min(from.end(fromRow), to.end(toRow)));
    }

    /**
     * What one unit of {@code from} is worth in {@code to} at {@code atMillis}, at the rates in
     * force then (through the dollar); null when the table lacks either currency, which is named
     * in a warning the first time it is asked for.
     */
    public Double rate(String from, String to, long atMillis) {
        if (from.equals(to)) {
            return 1.0;
        }
        Versions source = usdPerUnit.get(from);
        Versions target = usdPerUnit.get(to);
        if (source == null || target == null) {
            String missing = source == null ? from : to;
            if (currenciesWarnedOf.add(missing)) {
                warnings.accept("no exchange rate for " + missing + " in the rates table: prices in " + missing
                        + " are not compared with prices in other currencies until the table has it");
            }
            return null;
        }
        return source.rates[source.rowAt(atMillis)] / target.rates[target.rowAt(atMillis)];
    }

    /** A currency's rows, by date. */
    private record Versions(long[] froms, double[] rates) {

        static Map<String, Versions> of(List<Rate> rows) {
            Map<String, TreeMap<Long, Double>> byCurrency = new HashMap<>();
            for (Rate row : rows) {
                Double before = byCurrency.computeIfAbsent(row.currency(), currency -> new TreeMap<>())
                        .put(row.validFrom(), row.usdPerUnit());
                if (before != null) {
                    throw new IllegalArgumentException("two exchange rates for " + row.currency() + " valid from "
                            + (row.validFrom() == ALWAYS ? "always" : Instant.ofEpochMilli(row.validFrom())));
                }
            }
            Map<String, Versions> versions = new HashMap<>();
            byCurrency.forEach((currency, dated) -> versions.put(currency, new Versions(
                    dated.keySet().stream().mapToLong(Long::longValue).toArray(),
                    dated.values().stream().mapToDouble(Double::doubleValue).toArray())));
            return Map.copyOf(versions);
        }

        /** The row in force at {@code millis}: the latest from at or before it, or the first. */
        int rowAt(long millis) {
            int found = Arrays.binarySearch(froms, millis);
            int row = found >= 0 ? found : -found - 2;
            return Math.max(0, row);
        }

        long start(int row) {
            return row == 0 ? Long.MIN_VALUE : froms[row];
        }

        long end(int row) {
            return row + 1 < froms.length ? froms[row + 1] : Long.MAX_VALUE;
        }
    }

    /**
     * Rows {@code VALID_FROM,CURRENCY,USD_PER_UNIT}, the date as {@code 2026-10-01} (midnight UTC)
     * or an instant; a row of two cells, {@code CURRENCY,USD_PER_UNIT}, holds at all times.
     */
    private static List<Rate> parse(InputStream in, String origin) throws IOException {
        List<Rate> rates = new ArrayList<>();
        BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
        int number = 0;
        for (String line = reader.readLine(); line != null; line = reader.readLine()) {
            number++;
            String trimmed = line.strip();
            if (trimmed.isEmpty() || trimmed.startsWith("#") || trimmed.startsWith("currency,")
                    || trimmed.startsWith("valid_from,")) {
                continue;
            }
            String[] cells = trimmed.split(",");
            try {
                int at = cells.length == 3 ? 1 : 0;
                if (cells.length != 2 && cells.length != 3) {
                    throw new IllegalArgumentException();
                }
                double rate = Double.parseDouble(cells[at + 1].strip());
                if (!(rate > 0) || Double.isInfinite(rate)) {
                    throw new NumberFormatException();
                }
                long validFrom = at == 0 ? ALWAYS : date(cells[0].strip());
                rates.add(new Rate(validFrom, Check.currency("currency", cells[at].strip()), rate));
            } catch (RuntimeException e) {
                throw new IllegalArgumentException(origin + " line " + number
                        + ": expected VALID_FROM,CURRENCY,USD_PER_UNIT (or CURRENCY,USD_PER_UNIT), got '" + trimmed
                                + "'");
            }
        }
        return rates;
    }

    private static long date(String text) {
        try {
            return LocalDate.parse(text).atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli();
        } catch (DateTimeParseException e) {
            return Instant.parse(text).toEpochMilli();
        }
    }
}
