package io.gpuledger.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DemoOptionsTest {

    @Test
    void shouldRunOnAnEmbeddedBrokerUnlessAClusterIsNamed() {
        DemoOptions embedded = DemoOptions.parse(new String[0], Map.of());
        DemoOptions external = DemoOptions.parse(new String[0], Map.of("KAFKA_BOOTSTRAP_SERVERS", "kafka-1:9092"));

        assertThat(embedded.externalBootstrap()).isEmpty();
        assertThat(embedded.gpus()).isEqualTo(48);
        assertThat(embedded.httpPort()).isEqualTo(8080);
        assertThat(embedded.spotInterruptionsPerHour()).isEqualTo(1.0);
        assertThat(embedded.priceChangesPerHour()).isEqualTo(4.0);
        assertThat(external.externalBootstrap()).contains("kafka-1:9092");
    }

    @Test
    void shouldTakeFleetSizeIntervalAndPort() {
        DemoOptions options = DemoOptions.parse(
                new String[] {"--gpus", "200", "--interval", "2", "--http-port", "18080"}, Map.of());

        assertThat(options.gpus()).isEqualTo(200);
        assertThat(options.interval()).isEqualTo(Duration.ofSeconds(2));
        assertThat(options.httpPort()).isEqualTo(18080);
    }

    @Test
    void shouldTakeSpotInterruptionAndPriceChangeRates() {
        DemoOptions options = DemoOptions.parse(
                new String[] {"--spot-interruptions", "0", "--price-changes", "0.5"}, Map.of());

        assertThat(options.spotInterruptionsPerHour()).isZero();
        assertThat(options.priceChangesPerHour()).isEqualTo(0.5);
        assertThatThrownBy(() -> DemoOptions.parse(new String[] {"--spot-interruptions", "-1"}, Map.of()))
                .hasMessage("--spot-interruptions takes a rate per hour of 0 or more, not '-1'");
    }

    @Test
    void shouldShareASixteenthOfTheFleetUnlessToldOtherwise() {
        assertThat(DemoOptions.parse(new String[0], Map.of()).sharedFraction()).isEqualTo(0.0625);
        assertThat(DemoOptions.parse(new String[] {"--shared", "0"}, Map.of()).sharedFraction()).isZero();
        assertThat(DemoOptions.parse(new String[] {"--shared", "0.5"}, Map.of()).sharedFraction()).isEqualTo(0.5);
        assertThatThrownBy(() -> DemoOptions.parse(new String[] {"--shared", "1.5"}, Map.of()))
                .hasMessage("--shared takes a fraction from 0 to 1, not '1.5'");
        assertThatThrownBy(() -> DemoOptions.parse(new String[] {"--shared", "a quarter"}, Map.of()))
                .hasMessage("--shared takes a fraction from 0 to 1, not 'a quarter'");
    }

    @Test
    void shouldTakeTheGraceAndHandTheAlertServiceItsSettings() {
        DemoOptions options = DemoOptions.parse(new String[] {"--grace", "0"},
                Map.of("GPULEDGER_BUDGETS", "team:research=100 USD", "HOME", "/root", "KAFKA_BOOTSTRAP_SERVERS",
                        "k:9"));

        assertThat(options.grace()).isZero();
        assertThat(options.alertSettings()).containsEntry("GPULEDGER_BUDGETS", "team:research=100 USD")
                .doesNotContainKeys("HOME", "KAFKA_BOOTSTRAP_SERVERS");
        assertThat(DemoOptions.parse(new String[0], Map.of()).grace()).isEqualTo(Duration.ofMinutes(2));
        assertThatThrownBy(() -> DemoOptions.parse(new String[] {"--grace", "-5"}, Map.of()))
                .hasMessage("--grace takes a whole number of 0 or more, not '-5'");
    }

    @Test
    void shouldSendAPoolsHistoryUnlessToldNotTo() {
        assertThat(DemoOptions.parse(new String[0], Map.of()).history()).isTrue();
        assertThat(DemoOptions.parse(new String[] {"--history", "off"}, Map.of()).history()).isFalse();
        assertThatThrownBy(() -> DemoOptions.parse(new String[] {"--history", "no"}, Map.of()))
                .hasMessage("--history takes on or off, not 'no'");
    }

    @Test
    void shouldJudgeRecommendationsOverShortPeriodsUnlessTheEnvironmentSaysOtherwise() {
        // Given the demo run as is, and with a period of its own for idleness
        DemoOptions plain = DemoOptions.parse(new String[0], Map.of());
        DemoOptions ownIdlePeriod = DemoOptions.parse(new String[0],
                Map.of("GPULEDGER_RECOMMENDATION_RECLAIM_IDLE_PERIOD", "10m"));

        // Then the alert service is told minutes, where a deployment takes half an hour or an hour,
        // and the environment wins
        assertThat(plain.alertSettings()).containsEntry("GPULEDGER_RECOMMENDATION_RECLAIM_IDLE_PERIOD", "2m")
                .containsEntry("GPULEDGER_RECOMMENDATION_SWITCH_INSTANCE_TYPE_PERIOD", "5m")
                .containsEntry("GPULEDGER_RECOMMENDATION_MOVE_TO_SPOT_PERIOD", "5m")
                .containsEntry("GPULEDGER_RECOMMENDATION_REDUCE_COMMUNICATION_PERIOD", "5m")
                .containsEntry("GPULEDGER_RECOMMENDATION_JOB_LOOKBACK", "5m")
                .containsEntry("GPULEDGER_RECOMMENDATION_SWITCH_INSTANCE_TYPE_OTHER_PROVIDERS", "true");
        assertThat(plain.evidencePeriods()).isEqualTo(
                "reclaim-idle 2m, switch-instance-type 5m, move-to-spot 5m, reduce-communication 5m,"
                        + " job look-back 5m, switches across providers");
        assertThat(ownIdlePeriod.evidencePeriods()).startsWith("reclaim-idle 10m, switch-instance-type 5m");
    }

    @Test
    void shouldExplainWhatIsWrongWithAnOption() {
        assertThatThrownBy(() -> DemoOptions.parse(new String[] {"--gpus", "many"}, Map.of()))
                .hasMessage("--gpus takes a positive whole number, not 'many'");
        assertThatThrownBy(() -> DemoOptions.parse(new String[] {"--gpus"}, Map.of()))
                .hasMessage("--gpus needs a value");
        assertThatThrownBy(() -> DemoOptions.parse(new String[] {"--colour", "red"}, Map.of()))
                .hasMessage("unknown option '--colour'");
        assertThatThrownBy(() -> DemoOptions.parse(new String[] {"--catalog", "/nonexistent.csv"}, Map.of()))
                .hasMessageContaining("no readable file");
    }
}
