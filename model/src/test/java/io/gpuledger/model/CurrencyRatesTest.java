package io.gpuledger.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Exchange rates versioned by date, and currencies the table lacks. */
class CurrencyRatesTest {

    private static final Instant CHANGE = Instant.parse("2026-03-01T00:00:00Z");

    @TempDir
    Path dir;

    @Test
    void shouldConvertAtTheRateInForceAtEachTimeOfADatedTable() throws IOException {
        // Given a rates file the operator passes: EUR worth 1.10 USD from January, 1.20 from March
        Path file = dir.resolve("rates.csv");
        Files.writeString(file, """
                valid_from,currency,usd_per_unit
                2026-01-01,USD,1.0
                2026-01-01,EUR,1.10
                2026-03-01,EUR,1.20
                """);
        CurrencyRates rates = CurrencyRates.load(file, "USD");

        // Then 10 EUR is 10 × 1.10 = 11 USD the second before the change, 10 × 1.20 = 12 USD from it on,
        // and 11 USD before the table's first date too
        long before = CHANGE.minusSeconds(1).toEpochMilli();
        assertThat(rates.convert(10, "EUR", before).amount()).isCloseTo(11.0, within(1e-9));
        assertThat(rates.convert(10, "EUR", CHANGE.toEpochMilli()).amount()).isCloseTo(12.0, within(1e-9));
        assertThat(rates.convert(10, "EUR", Instant.parse("2025-06-01T00:00:00Z").toEpochMilli()).amount())
                .isCloseTo(11.0, within(1e-9));
        // And the rate before the change is said to hold up to it, not past it
        assertThat(rates.convert(10, "EUR", before).covers(CHANGE.toEpochMilli())).isFalse();
    }

    @Test
    void shouldReportInACurrencyAtTheRatesOfBothAtTheTime() {
        // Given EUR at 1.10 then 1.20 USD, GBP at 1.25 then 1.50 USD from the same change, reporting in GBP
        List<CurrencyRates.Rate> rows = List.of(new CurrencyRates.Rate(CurrencyRates.ALWAYS, "USD", 1.0),
                new CurrencyRates.Rate(CurrencyRates.ALWAYS, "EUR", 1.10),
                new CurrencyRates.Rate(CHANGE.toEpochMilli(), "EUR", 1.20),
                new CurrencyRates.Rate(CurrencyRates.ALWAYS, "GBP", 1.25),
                new CurrencyRates.Rate(CHANGE.toEpochMilli(), "GBP", 1.50));
        CurrencyRates rates = new CurrencyRates("GBP", rows, warning -> { });

        // Then 10 EUR is 10 × 1.10 / 1.25 = 8.8 GBP before, 10 × 1.20 / 1.50 = 8 GBP after
        assertThat(rates.convert(10, "EUR", CHANGE.toEpochMilli() - 1).amount()).isCloseTo(8.8, within(1e-9));
        assertThat(rates.convert(10, "EUR", CHANGE.toEpochMilli()).amount()).isCloseTo(8.0, within(1e-9));
    }

    @Test
    void shouldGiveTheRateBetweenAnyTwoCurrenciesInForceAtATime() {
        // Given EUR at 1.10 then 1.20 USD, GBP at 1.25 then 1.50 USD from the same change
        List<String> warnings = new ArrayList<>();
        CurrencyRates rates = new CurrencyRates("USD", List.of(new CurrencyRates.Rate(CurrencyRates.ALWAYS, "USD", 1.0),
                new CurrencyRates.Rate(CurrencyRates.ALWAYS, "EUR", 1.10),
                new CurrencyRates.Rate(CHANGE.toEpochMilli(), "EUR", 1.20),
                new CurrencyRates.Rate(CurrencyRates.ALWAYS, "GBP", 1.25),
                new CurrencyRates.Rate(CHANGE.toEpochMilli(), "GBP", 1.50)), warnings::add);

        // Then a euro is 1.10 / 1.25 = 0.88 GBP before, 1.20 / 1.50 = 0.8 after, a pound 1.50 USD after;
        // a currency is worth one of itself even where the table lacks it, and CHF, lacked, has no rate
        assertThat(rates.rate("EUR", "GBP", CHANGE.toEpochMilli() - 1)).isCloseTo(0.88, within(1e-12));
        assertThat(rates.rate("EUR", "GBP", CHANGE.toEpochMilli())).isCloseTo(0.8, within(1e-12));
        assertThat(rates.rate("GBP", "USD", CHANGE.toEpochMilli())).isCloseTo(1.5, within(1e-12));
        assertThat(rates.rate("CHF", "CHF", CHANGE.toEpochMilli())).isEqualTo(1.0);
        assertThat(rates.rate("CHF", "USD", CHANGE.toEpochMilli())).isNull();
        assertThat(rates.rate("USD", "CHF", CHANGE.toEpochMilli())).isNull();
        assertThat(warnings).singleElement().asString().contains("CHF");
    }

    @Test
    void shouldNameACurrencyTheTableLacksInOneWarningAndConvertNothing() {
        List<String> warnings = new ArrayList<>();
        CurrencyRates rates = new CurrencyRates("USD",
                List.of(new CurrencyRates.Rate(CurrencyRates.ALWAYS, "USD", 1.0)), warnings::add);

        // When CHF is asked for three times
        for (int i = 0; i < 3; i++) {
            assertThat(rates.convert(10, "CHF", CHANGE.toEpochMilli() + i).amount()).isNull();
        }

        // Then one warning names it
        assertThat(warnings).hasSize(1);
        assertThat(warnings.get(0)).contains("CHF");
    }

    @Test
    void shouldRefuseTwoRatesOfACurrencyFromTheSameDate() throws IOException {
        Path file = dir.resolve("twice.csv");
        Files.writeString(file, "2026-01-01,USD,1.0\n2026-01-01,EUR,1.10\n2026-01-01,EUR,1.20\n");

        assertThatThrownBy(() -> CurrencyRates.load(file, "USD")).hasMessageContaining("two exchange rates for EUR");
    }
}
