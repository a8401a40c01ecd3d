package io.gpuledger.alerts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.quarkus.runtime.configuration.DurationConverter;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AlertSettingsTest {

    /** The keys application.properties leaves without a default in code. */
    private static final Map<String, String> REQUIRED = Map.of(
            "gpuledger.consumer.group-id", "gpu-ledger-alerts",
            "gpuledger.idle.sm-active-threshold", "0.05",
            "gpuledger.idle.min-observed-seconds", "20",
            "gpuledger.recommendation.ttl", "10m");

    private static AlertSettings settings(Map<String, String> values) {
        SmallRyeConfig config = new SmallRyeConfigBuilder()
                .withConverter(Duration.class, 200, new DurationConverter())
                .withSources(new PropertiesConfigSource(values, "test", 500))
                .withMapping(AlertSettings.class)
                .withValidateUnknown(false)
                .build();
        return config.getConfigMapping(AlertSettings.class);
    }

    @Test
    void shouldGiveEveryUnsetSettingItsDocumentedDefault() {
        AlertSettings settings = settings(REQUIRED);

        assertThat(settings.topics().create()).isTrue();
        assertThat(settings.topics().partitions()).isEqualTo(4);
        assertThat(settings.reportingCurrency()).isEqualTo("USD");
        assertThat(settings.ratesFile()).isEmpty();
        assertThat(settings.budgets()).isEmpty();
        assertThat(settings.consumer().instanceId()).isEmpty();
        AlertSettings.Recommendation recommendation = settings.recommendation();
        assertThat(recommendation.dismissFor()).isEqualTo(Duration.ofDays(7));
        assertThat(recommendation.minMonthlySaving()).isEqualTo(10);
        assertThat(recommendation.reserve().lookbackHours()).isEqualTo(168);
        assertThat(recommendation.reserve().baselinePercentile()).isEqualTo(0.10);
        assertThat(recommendation.reserve().termMonths()).isEqualTo(12);
        assertThat(recommendation.reserve().ttl()).isEqualTo(Duration.ofDays(14));
        assertThat(recommendation.spot().interruptionsPerHour()).isEqualTo(0.05);
        assertThat(recommendation.spot().restart()).isEqualTo(Duration.ofMinutes(15));
        assertThat(recommendation.servingHeadroom()).isEqualTo(0.3);
        assertThat(recommendation.switchInstanceType().otherRegions()).isFalse();
        assertThat(recommendation.switchInstanceType().otherProviders()).isFalse();
        assertThat(recommendation.switchInstanceType().egressPricePerGb()).isEqualTo(0.09);
        assertThat(recommendation.reclaimIdle().period()).isEqualTo(Duration.ofMinutes(30));
        assertThat(recommendation.reclaimIdle().withdrawSmActive()).isEqualTo(0.10);
        assertThat(recommendation.switchInstanceType().period()).isEqualTo(Duration.ofHours(1));
        assertThat(recommendation.switchInstanceType().minSavingRatio()).isEqualTo(0.15);
        assertThat(recommendation.switchInstanceType().withdrawSavingRatio()).isEqualTo(0.10);
        assertThat(recommendation.moveToSpot().period()).isEqualTo(Duration.ofHours(1));
        assertThat(recommendation.moveToSpot().minNetSavingRatio()).isEqualTo(0.10);
        assertThat(recommendation.moveToSpot().withdrawNetSavingRatio()).isEqualTo(0);
        assertThat(recommendation.reduceCommunication().period()).isEqualTo(Duration.ofMinutes(30));
        assertThat(recommendation.reduceCommunication().minRatio()).isEqualTo(0.25);
        assertThat(recommendation.reduceCommunication().withdrawRatio()).isEqualTo(0.20);
        assertThat(recommendation.jobLookback()).isEqualTo(Duration.ofHours(24));
        assertThat(settings.anomaly().kept()).isEqualTo(1000);
        assertThat(settings.anomaly().spendRate().k()).isEqualTo(4);
        assertThat(settings.anomaly().spendRate().minImpactPerHour()).isEqualTo(5);
        assertThat(settings.anomaly().priceSpike().threshold()).isEqualTo(0.30);
        assertThat(settings.anomaly().costPerThroughput().thresholdPercent()).isEqualTo(25);
        assertThat(settings.metrics().maxSeries()).isEqualTo(50_000);
        assertThat(settings.metrics().staleAfter()).isEqualTo(Duration.ofMinutes(5));
    }

    @Test
    void shouldReadEachSettingUnderItsDocumentedName() {
        Map<String, String> values = new HashMap<>(REQUIRED);
        values.put("gpuledger.consumer.instance-id", "alerts-0");
        values.put("gpuledger.topics.create", "false");
        values.put("gpuledger.rates-file", "/etc/rates.csv");
        values.put("gpuledger.recommendation.reserve.lookback-hours", "72");
        values.put("gpuledger.recommendation.spot.interruptions-per-hour", "0.2");
        values.put("gpuledger.recommendation.spot.restart", "30m");
        values.put("gpuledger.recommendation.reserve.baseline-percentile", "0.05");
        values.put("gpuledger.recommendation.switch-instance-type.other-regions", "true");
        values.put("gpuledger.recommendation.serving-headroom", "0.5");
        values.put("gpuledger.recommendation.reclaim-idle.withdraw-sm-active", "0.3");
        values.put("gpuledger.recommendation.move-to-spot.withdraw-net-saving-ratio", "0.05");
        values.put("gpuledger.anomaly.cost-per-throughput.threshold-percent", "40");
        values.put("gpuledger.anomaly.spend-rate.min-impact-per-hour", "12");

        AlertSettings settings = settings(values);

        assertThat(settings.consumer().groupId()).isEqualTo("gpu-ledger-alerts");
        assertThat(settings.consumer().instanceId()).contains("alerts-0");
        assertThat(settings.topics().create()).isFalse();
        assertThat(settings.ratesFile()).hasValueSatisfying(p -> assertThat(p).hasToString("/etc/rates.csv"));
        assertThat(settings.idle().smActiveThreshold()).isEqualTo(0.05);
        assertThat(settings.idle().minObservedSeconds()).isEqualTo(20);
        assertThat(settings.recommendation().ttl()).isEqualTo(Duration.ofMinutes(10));
        assertThat(settings.recommendation().reserve().lookbackHours()).isEqualTo(72);
        assertThat(settings.recommendation().spot().interruptionsPerHour()).isEqualTo(0.2);
        assertThat(settings.recommendation().spot().restart()).isEqualTo(Duration.ofMinutes(30));
        assertThat(settings.recommendation().reserve().baselinePercentile()).isEqualTo(0.05);
        assertThat(settings.recommendation().switchInstanceType().otherRegions()).isTrue();
        assertThat(settings.recommendation().servingHeadroom()).isEqualTo(0.5);
        assertThat(settings.recommendation().reclaimIdle().withdrawSmActive()).isEqualTo(0.3);
        assertThat(settings.recommendation().moveToSpot().withdrawNetSavingRatio()).isEqualTo(0.05);
        assertThat(settings.anomaly().costPerThroughput().thresholdPercent()).isEqualTo(40);
        assertThat(settings.anomaly().spendRate().minImpactPerHour()).isEqualTo(12);
    }

    @Test
    void shouldNameTheSettingWhoseValueIsBad() {
        Map<String, String> values = new HashMap<>(REQUIRED);
        values.put("gpuledger.recommendation.ttl", "soon");
        values.put("gpuledger.metrics.max-series", "many");

        assertThatThrownBy(() -> settings(values))
                .hasMessageContaining("gpuledger.recommendation.ttl")
                .hasMessageContaining("gpuledger.metrics.max-series");
    }

    @Test
    void shouldNameTheRequiredSettingThatIsMissing() {
        Map<String, String> values = new HashMap<>(REQUIRED);
        values.remove("gpuledger.recommendation.ttl");

        assertThatThrownBy(() -> settings(values)).hasMessageContaining("gpuledger.recommendation.ttl");
    }
}
