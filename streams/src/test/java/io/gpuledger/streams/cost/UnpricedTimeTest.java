package io.gpuledger.streams.cost;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gpuledger.model.CurrencyRates;
import io.gpuledger.model.GpuUsage;
import io.gpuledger.model.JobEconomics;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Placement;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.TelemetrySample;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.Metric;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Time with no price or no exchange rate is charged nothing but shown; rates are taken as of each sample's time. */
class UnpricedTimeTest {

    private static final Instant T0 = Instant.parse("2026-03-01T12:00:00Z");
    private static final Placement ZURICH = new Placement("node-z", "i-z", "gpu.l4", "swisscloud", "zrh-1",
            Lifecycle.ON_DEMAND);
    private static final Placement FRANKFURT = new Placement("node-f", "i-f", "gpu.l4", "eurocloud", "fra-1",
            Lifecycle.ON_DEMAND);

    private final List<String> warnings = new ArrayList<>();
    private CostDriver cost;

    @AfterEach
    void stopDriver() {
        cost.close();
    }

    @Test
    void shouldShowTimePricedInAnUnknownCurrencyAsUnpricedSecondsOfItsJobWithOneWarning() {
        // Given a table that knows USD and EUR only, and a GPU priced at 9 CHF an hour
        start(List.of(new CurrencyRates.Rate(CurrencyRates.ALWAYS, "USD", 1.0),
                new CurrencyRates.Rate(CurrencyRates.ALWAYS, "EUR", 1.10)));
        cost.publish(quote(ZURICH, 9.0, "CHF"));

        // When it reports two minutes of 10-second samples, and the minutes close
        for (int end = 10; end <= 120; end += 10) {
            cost.send(sample("GPU-CHF", "train-chf", ZURICH, end));
        }
        cost.send(sample("GPU-EUR", "other", FRANKFURT, 400));

        // Then each of its job's minutes shows 60 s (six 10-second samples) unpriced, and no cost
        Map<Instant, JobEconomics> minutes = latestEconomics("train-chf");
        assertThat(minutes.get(T0).unpricedSeconds()).isEqualTo(60.0);
        assertThat(minutes.get(T0.plusSeconds(60)).unpricedSeconds()).isEqualTo(60.0);
        assertThat(minutes.get(T0).cost()).isZero();
        // And the currency is named in one warning, and counted in the engine's metrics under its name
        assertThat(warnings).hasSize(1).allSatisfy(warning -> assertThat(warning).contains("CHF"));
        assertThat(unknownCurrencySamples("CHF")).isEqualTo(12.0);
    }

    @Test
    void shouldConvertSamplesBeforeAndAfterARateChangeEachAtItsOwnRate() {
        // Given EUR worth 1.10 USD until T0 + 60 s and 1.20 USD from then on, and a GPU at 10 EUR an hour
        start(List.of(new CurrencyRates.Rate(CurrencyRates.ALWAYS, "USD", 1.0),
                new CurrencyRates.Rate(CurrencyRates.ALWAYS, "EUR", 1.10),
                new CurrencyRates.Rate(T0.plusSeconds(60).toEpochMilli(), "EUR", 1.20)));
        cost.publish(quote(FRANKFURT, 10.0, "EUR"));

        // When it reports two minutes of 10-second samples, the first minute's before the change
        for (int end = 10; end <= 120; end += 10) {
            cost.send(sample("GPU-EUR", "train-eur", FRANKFURT, end));
        }
        List<GpuUsage> windows = cost.usage.readValuesToList();
        cost.send(sample("GPU-EUR", "train-eur", FRANKFURT, 400));
        windows.addAll(cost.usage.readValuesToList());

        // Then the first minute costs 60 s × 10 EUR/h × 1.10 = 0.18333 USD, the second 60 s × 10 × 1.20 = 0.2 USD
        assertThat(closedWindow(windows, T0).cost()).isCloseTo(60 * 10 * 1.10 / 3600, within(1e-12));
        assertThat(closedWindow(windows, T0.plusSeconds(60)).cost()).isCloseTo(60 * 10 * 1.20 / 3600, within(1e-12));
    }

    private void start(List<CurrencyRates.Rate> rows) {
        CurrencyRates rates = new CurrencyRates("USD", rows, warnings::add);
        cost = new CostDriver("unpriced-time-test", T0, CostSettings.of(CostDriver.GRACE, rates));
    }

    private static GpuUsage closedWindow(List<GpuUsage> windows, Instant start) {
        return windows.stream().filter(window -> window.closed() && window.windowStart().equals(start)).findFirst()
                .orElseThrow();
    }

    private Map<Instant, JobEconomics> latestEconomics(String job) {
        Map<Instant, JobEconomics> latest = new LinkedHashMap<>();
        cost.economics.readValuesToList().stream().filter(minute -> minute.jobId().equals(job))
                .forEach(minute -> latest.put(minute.windowStart(), minute));
        return latest;
    }

    private double unknownCurrencySamples(String currency) {
        for (Metric metric : cost.driver.metrics().values()) {
            if (metric.metricName().name().equals("unknown-currency-samples-total")
                    && currency.equals(metric.metricName().tags().get("gpuledger-id"))) {
                return ((Number) metric.metricValue()).doubleValue();
            }
        }
        throw new AssertionError("no unknown-currency-samples-total metric for " + currency);
    }

    private static PriceQuote quote(Placement placement, double pricePerHour, String currency) {
        return new PriceQuote(placement.provider(), placement.region(), placement.instanceType(), Lifecycle.ON_DEMAND,
                "L4", 1, pricePerHour, currency, T0.minus(Duration.ofDays(1)), "test");
    }

    private static TelemetrySample sample(String gpu, String job, Placement placement, int endSecond) {
        return TelemetrySample.builder().gpuUuid(gpu).gpuModel("L4").placement(placement).jobId(job)
                .time(T0.plusSeconds(endSecond)).intervalSeconds(10).smActive(0.5).build();
    }
}
