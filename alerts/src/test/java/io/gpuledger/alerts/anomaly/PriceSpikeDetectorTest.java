package io.gpuledger.alerts.anomaly;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gpuledger.alerts.TestSettings;
import io.gpuledger.model.AnomalyKind;
import io.gpuledger.model.CostAnomaly;
import io.gpuledger.model.CostAnomaly.Severity;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.PriceQuote;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PriceSpikeDetectorTest {

    private static final double TOLERANCE = 1e-9;
    private static final Instant T0 = Instant.parse("2026-04-01T00:00:00Z");
    private static final String SPOT_OFFER = "aws|us-east-1|p4d.24xlarge|spot";

    private final PriceSpikeDetector detector = new PriceSpikeDetector(TestSettings.with().anomaly().priceSpike());

    @ParameterizedTest(name = "{0} from 10.00 to {1}: {2}")
    @CsvSource({
            // lifecycle, new price, spike
            "SPOT,        12.9,      false",   // 29%
            "SPOT,        13.0,      true",    // 30%: the threshold itself is a spike
            "SPOT,        13.1,      true",    // 31%
            "SPOT,        5.0,       false",   // a fall
            "ON_DEMAND,   20.0,      false",   // on-demand offers are not judged by default
            "RESERVED,    20.0,      false",
    })
    void shouldFlagASpotPriceThatRisesByTheThreshold(Lifecycle lifecycle, double price, boolean spike) {
        // Given an offer priced 10.00 USD an hour
        detector.observe(quote(lifecycle, 10.0, T0), T0);

        // When its next version arrives an hour later
        Optional<CostAnomaly> found = detector.observe(quote(lifecycle, price, T0.plusSeconds(3600)),
                T0.plusSeconds(3601));

        // Then a spike of 30% or more of a spot offer is flagged, with the price per instance-hour
        assertThat(found.isPresent()).isEqualTo(spike);
        found.ifPresent(anomaly -> {
            assertThat(anomaly.kind()).isEqualTo(AnomalyKind.PRICE_SPIKE);
            assertThat(anomaly.severity()).isEqualTo(Severity.WARNING);
            assertThat(anomaly.dimension()).isEqualTo("offer");
            assertThat(anomaly.subject()).isEqualTo(SPOT_OFFER);
            assertThat(anomaly.measure()).isEqualTo("price per instance-hour");
            assertThat(anomaly.expected()).isCloseTo(10.0, within(TOLERANCE));
            assertThat(anomaly.actual()).isCloseTo(price, within(TOLERANCE));
            assertThat(anomaly.impact()).isCloseTo(price - 10.0, within(TOLERANCE));
            assertThat(anomaly.windowStart()).isEqualTo(T0);
            assertThat(anomaly.windowEnd()).isEqualTo(T0.plusSeconds(3600));
            assertThat(anomaly.id()).isEqualTo("price_spike:offer:" + SPOT_OFFER + ":" + T0 + ":warning");
            assertThat(anomaly.detectedAt()).isEqualTo(T0.plusSeconds(3601));
        });
    }

    @ParameterizedTest(name = "a late version at {0} is ignored")
    @CsvSource({"5.0", "20.0"})
    void shouldIgnoreAnOlderVersionArrivingLate(double latePrice) {
        // Given versions at T0 and T0 + 2 h, both 10.00
        detector.observe(quote(Lifecycle.SPOT, 10.0, T0), T0);
        detector.observe(quote(Lifecycle.SPOT, 10.0, T0.plusSeconds(7200)), T0.plusSeconds(7200));

        // When a version valid from T0 + 1 h arrives after them, then one valid from T0 + 3 h at 12.90
        Optional<CostAnomaly> late = detector.observe(quote(Lifecycle.SPOT, latePrice, T0.plusSeconds(3600)),
                T0.plusSeconds(7300));
        Optional<CostAnomaly> next = detector.observe(quote(Lifecycle.SPOT, 12.9, T0.plusSeconds(10800)),
                T0.plusSeconds(10800));

        // Then the late version is no spike, and the next is judged against the newest version, not the late one
        assertThat(late).isEmpty();
        assertThat(next).isEmpty();
        assertThat(detector.lateQuotes()).isEqualTo(1);
    }

    @Test
    void shouldFlagASpikeOnceWhenItsQuoteIsPublishedAgain() {
        // Given a spot offer at 10.00 that rose to 15.00
        detector.observe(quote(Lifecycle.SPOT, 10.0, T0), T0);
        Optional<CostAnomaly> first = detector.observe(quote(Lifecycle.SPOT, 15.0, T0.plusSeconds(60)),
                T0.plusSeconds(60));

        // When the feed publishes the same version again
        Optional<CostAnomaly> again = detector.observe(quote(Lifecycle.SPOT, 15.0, T0.plusSeconds(60)),
                T0.plusSeconds(120));

        // Then it is a duplicate, not a second spike
        assertThat(first).isPresent();
        assertThat(again).isEmpty();
        assertThat(detector.duplicateQuotes()).isEqualTo(1);
    }

    @ParameterizedTest(name = "on-demand {0}, spot now {1}: {2}")
    @CsvSource({
            // on-demand price, new spot price, severity
            "12.0,              13.1,            CRITICAL",
            "13.1,              13.1,            WARNING",    // equal to on-demand is not above it
            "32.77,             15.0,            WARNING",
    })
    void shouldRaiseTheSeverityWhenSpotCostsMoreThanOnDemand(double onDemand, double spot, Severity severity) {
        // Given the on-demand price of the same instance type and region, and a spot price of 10.00
        detector.observe(quote(Lifecycle.ON_DEMAND, onDemand, T0), T0);
        detector.observe(quote(Lifecycle.SPOT, 10.0, T0), T0);

        // When the spot price rises by more than 30%
        CostAnomaly anomaly = detector.observe(quote(Lifecycle.SPOT, spot, T0.plusSeconds(300)), T0.plusSeconds(300))
                .orElseThrow();

        // Then it is CRITICAL only once spot costs more than on-demand
        assertThat(anomaly.severity()).isEqualTo(severity);
        assertThat(anomaly.evidence()).containsEntry("onDemandPricePerHour", onDemand);
    }

    @Test
    void shouldHoldSpotAgainstTheMarketsOnDemandPriceNotOneLearnedFromTheBill() {
        // Given the on-demand list price of 32.77, then the account's rate learned from its bill, 0.63 of it (a
        // Savings Plan), and a spot price of 12.00
        detector.observe(quote(Lifecycle.ON_DEMAND, 32.77, T0), T0);
        detector.observe(new PriceQuote("aws", "us-east-1", "p4d.24xlarge", Lifecycle.ON_DEMAND, "A100", 8,
                32.77 * 0.63, "USD", T0.plusSeconds(60), PriceQuote.BILL_RECONCILIATION), T0.plusSeconds(60));
        detector.observe(quote(Lifecycle.SPOT, 12.0, T0), T0);

        // When spot rises to 21.00
        CostAnomaly spot = detector.observe(quote(Lifecycle.SPOT, 21.0, T0.plusSeconds(300)), T0.plusSeconds(300))
                .orElseThrow();

        // Then the rise is a warning, spot still under the list price: not CRITICAL above the learned 20.65
        assertThat(spot.severity()).isEqualTo(Severity.WARNING);
        assertThat(spot.evidence()).containsEntry("onDemandPricePerHour", 32.77);
    }

    @Test
    void shouldTellFinanceWhatRoseByHowMuch() {
        // Given a spot offer at 10.00 USD and its on-demand price of 12.00 USD
        detector.observe(quote(Lifecycle.ON_DEMAND, 12.0, T0), T0);
        detector.observe(quote(Lifecycle.SPOT, 10.0, T0), T0);

        // When spot rises to 14.50 USD
        CostAnomaly anomaly = detector.observe(quote(Lifecycle.SPOT, 14.5, T0.plusSeconds(60)), T0.plusSeconds(60))
                .orElseThrow();

        // Then the summary says so in one sentence
        assertThat(anomaly.summary()).isEqualTo("spot price of aws p4d.24xlarge in us-east-1 rose 45% from 10.00 "
                + "to 14.50 USD per instance-hour, above its on-demand price of 12.00 USD");
        assertThat(anomaly.impactPercent()).isCloseTo(45.0, within(TOLERANCE));
    }

    private static PriceQuote quote(Lifecycle lifecycle, double pricePerHour, Instant validFrom) {
        return new PriceQuote("aws", "us-east-1", "p4d.24xlarge", lifecycle, "A100", 8, pricePerHour, "USD",
                validFrom, "test");
    }
}
