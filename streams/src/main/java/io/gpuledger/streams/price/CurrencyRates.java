package io.gpuledger.streams.price;

import io.gpuledger.model.Check;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Converts prices into the reporting currency, so that every amount the engine publishes is in
 * one currency and can be added up. Rates are a table of US dollars per unit of each currency;
 * conversion goes through the dollar. A price in a currency the table lacks is not guessed: the
 * sample is left unpriced.
 */
public final class CurrencyRates {

    public static final String SHIPPED = "/io/gpuledger/streams/price/rates.csv";

    private final String reporting;
    private final Map<String, Double> usdPerUnit;

    public CurrencyRates(String reporting, Map<String, Double> usdPerUnit) {
        this.reporting = Check.currency("reporting currency", reporting);
        this.usdPerUnit = Map.copyOf(usdPerUnit);
        if (!this.usdPerUnit.containsKey(reporting)) {
            throw new IllegalArgumentException("no exchange rate for the reporting currency " + reporting);
        }
    }

    /** The shipped table, reporting in {@code reporting}. */
    public static CurrencyRates shipped(String reporting) {
        try (InputStream in = CurrencyRates.class.getResourceAsStream(SHIPPED)) {
            return new CurrencyRates(reporting, parse(in, SHIPPED));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static CurrencyRates load(Path file, String reporting) {
        try (InputStream in = Files.newInputStream(file)) {
            return new CurrencyRates(reporting, parse(in, file.toString()));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read exchange rates " + file, e);
        }
    }

    public String reporting() {
        return reporting;
    }

    /** {@code amount} of {@code currency} in the reporting currency; empty when the table lacks the currency. */
    public Optional<Double> toReporting(double amount, String currency) {
        if (currency.equals(reporting)) {
            return Optional.of(amount);
        }
        Double from = usdPerUnit.get(currency);
        return from == null ? Optional.empty() : Optional.of(amount * from / usdPerUnit.get(reporting));
    }

    private static Map<String, Double> parse(InputStream in, String origin) throws IOException {
        Map<String, Double> rates = new HashMap<>();
        BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
        int number = 0;
        for (String line = reader.readLine(); line != null; line = reader.readLine()) {
            number++;
            String trimmed = line.strip();
            if (trimmed.isEmpty() || trimmed.startsWith("#") || trimmed.startsWith("currency,")) {
                continue;
            }
            String[] cells = trimmed.split(",");
            try {
                double rate = Double.parseDouble(cells[1].strip());
                if (!(rate > 0) || Double.isInfinite(rate)) {
                    throw new NumberFormatException();
                }
                rates.put(Check.currency("currency", cells[0].strip()), rate);
            } catch (RuntimeException e) {
                throw new IllegalArgumentException(origin + " line " + number + ": expected CURRENCY,USD_PER_UNIT, got '"
                        + trimmed + "'");
            }
        }
        return rates;
    }
}
