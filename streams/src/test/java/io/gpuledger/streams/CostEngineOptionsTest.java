package io.gpuledger.streams;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.gpuledger.model.CurrencyRates;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CostEngineOptionsTest {

    @Test
    void shouldTakeItsSettingsFromTheEnvironmentWhenTheCommandLineNamesNone() {
        // Given an environment that names Kafka, the application, the state and the instance
        Map<String, String> env = Map.of("KAFKA_BOOTSTRAP_SERVERS", "kafka-1:9092",
                "GPULEDGER_APPLICATION_ID", "costs-eu", "GPULEDGER_STATE_DIR", "/var/lib/costs",
                "GPULEDGER_INSTANCE_ID", "engine-0", "GPULEDGER_STREAM_THREADS", "3");

        // When the engine is started with no option
        CostEngineOptions options = CostEngineOptions.parse(new String[0], env);

        // Then it uses them
        assertThat(options.bootstrapServers()).isEqualTo("kafka-1:9092");
        assertThat(options.applicationId()).isEqualTo("costs-eu");
        assertThat(options.stateDir()).isEqualTo(Path.of("/var/lib/costs"));
        assertThat(options.instanceId()).contains("engine-0");
        assertThat(options.streamThreads()).isEqualTo(3);
    }

    @Test
    void shouldLetTheCommandLineWinOverTheEnvironment() {
        // Given an environment naming one Kafka
        Map<String, String> env = Map.of("KAFKA_BOOTSTRAP_SERVERS", "kafka-1:9092");

        // When the command line names another
        CostEngineOptions options = CostEngineOptions.parse(new String[] {"--bootstrap-servers", "127.0.0.1:9092",
                "--state-dir", "state"}, env);

        // Then the command line wins, and what neither names has its default
        assertThat(options.bootstrapServers()).isEqualTo("127.0.0.1:9092");
        assertThat(options.stateDir()).isEqualTo(Path.of("state"));
        assertThat(options.applicationId()).isEqualTo(CostEngineConfig.DEFAULT_APPLICATION_ID);
        assertThat(options.instanceId()).isEmpty();
    }

    @Test
    void shouldRunAsManyStreamThreadsAsToldAndOneByDefault() {
        CostEngineOptions told = CostEngineOptions.parse(new String[] {"--bootstrap-servers", "k:9092",
                "--threads", "2"}, Map.of());
        CostEngineOptions untold = CostEngineOptions.parse(new String[] {"--bootstrap-servers", "k:9092"}, Map.of());

        assertThat(CostEngineMain.properties(told)).containsEntry(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 2);
        assertThat(CostEngineMain.properties(untold)).containsEntry(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 1);
        assertThatThrownBy(() -> CostEngineOptions.parse(new String[] {"--bootstrap-servers", "k:9092",
                "--threads", "0"}, Map.of())).hasMessageContaining("--threads takes a positive whole number");
    }

    @Test
    void shouldCountLateSamplesForTheGracePeriodItIsGivenAndTwoMinutesByDefault() {
        CostEngineOptions told = CostEngineOptions.parse(new String[] {"--bootstrap-servers", "k:9092",
                "--grace", "300"}, Map.of("GPULEDGER_GRACE_SECONDS", "30"));
        CostEngineOptions fromEnvironment = CostEngineOptions.parse(new String[] {"--bootstrap-servers", "k:9092"},
                Map.of("GPULEDGER_GRACE_SECONDS", "0"));
        CostEngineOptions untold = CostEngineOptions.parse(new String[] {"--bootstrap-servers", "k:9092"}, Map.of());

        assertThat(told.config().grace()).isEqualTo(Duration.ofMinutes(5));
        assertThat(fromEnvironment.config().grace()).isZero();
        assertThat(untold.config().grace()).isEqualTo(Duration.ofMinutes(2));
        for (String wrong : new String[] {"-1", "3601", "2m", "soon"}) {
            assertThatThrownBy(() -> CostEngineOptions.parse(new String[] {"--bootstrap-servers", "k:9092",
                    "--grace", wrong}, Map.of()))
                    .as(wrong).hasMessageContaining("--grace takes whole seconds from 0 to 3600");
        }
    }

    @Test
    void shouldTakePricesAsStaleAfterTheMaxAgeItIsGivenAndHalfAnHourByDefault() {
        CostEngineOptions told = CostEngineOptions.parse(new String[] {"--bootstrap-servers", "k:9092",
                "--price-max-age", "3600"}, Map.of("GPULEDGER_PRICE_MAX_AGE_SECONDS", "600"));
        CostEngineOptions fromEnvironment = CostEngineOptions.parse(new String[] {"--bootstrap-servers", "k:9092"},
                Map.of("GPULEDGER_PRICE_MAX_AGE_SECONDS", "600"));
        CostEngineOptions untold = CostEngineOptions.parse(new String[] {"--bootstrap-servers", "k:9092"}, Map.of());

        assertThat(told.config().priceMaxAge()).isEqualTo(Duration.ofHours(1));
        assertThat(fromEnvironment.config().costSettings().priceMaxAge()).isEqualTo(Duration.ofMinutes(10));
        assertThat(untold.config().priceMaxAge()).isEqualTo(Duration.ofMinutes(30));
        for (String wrong : new String[] {"0", "-60", "30m"}) {
            assertThatThrownBy(() -> CostEngineOptions.parse(new String[] {"--bootstrap-servers", "k:9092",
                    "--price-max-age", wrong}, Map.of()))
                    .as(wrong).hasMessageContaining("--price-max-age takes a positive whole number");
        }
    }

    @Test
    void shouldRefuseRecordsFromTheFutureBeyondTheAllowanceItIsGivenAndHalfAMinuteByDefault() {
        CostEngineOptions told = CostEngineOptions.parse(new String[] {"--bootstrap-servers", "k:9092",
                "--max-ahead", "90"}, Map.of("GPULEDGER_MAX_AHEAD_SECONDS", "5"));
        CostEngineOptions fromEnvironment = CostEngineOptions.parse(new String[] {"--bootstrap-servers", "k:9092"},
                Map.of("GPULEDGER_MAX_AHEAD_SECONDS", "5"));
        CostEngineOptions untold = CostEngineOptions.parse(new String[] {"--bootstrap-servers", "k:9092"}, Map.of());

        assertThat(told.config().costSettings().maxAhead()).isEqualTo(Duration.ofSeconds(90));
        assertThat(fromEnvironment.config().costSettings().maxAhead()).isEqualTo(Duration.ofSeconds(5));
        assertThat(untold.config().costSettings().maxAhead()).isEqualTo(Duration.ofSeconds(30));
        // At most 10 minutes: a record dated further ahead would be refused by the brokers
        assertThat(CostEngineOptions.parse(new String[] {"--bootstrap-servers", "k:9092", "--max-ahead", "600"},
                Map.of()).maxAhead()).isEqualTo(Duration.ofMinutes(10));
        assertThat(CostEngineOptions.USAGE).contains("--max-ahead SECONDS")
                .contains("(or GPULEDGER_MAX_AHEAD_SECONDS; default 30, at most 600)");
        for (String wrong : new String[] {"0", "601", "-30", "30s"}) {
            assertThatThrownBy(() -> CostEngineOptions.parse(new String[] {"--bootstrap-servers", "k:9092",
                    "--max-ahead", wrong}, Map.of()))
                    .as(wrong).hasMessageContaining("--max-ahead takes whole seconds from 1 to 600");
        }
    }

    @Test
    void shouldCommitAtTheIntervalItIsGivenWithTransactionsGivenThreeOfThem() {
        // Given an engine told to commit every 30 s, one told so by its environment, and one told nothing
        CostEngineOptions told = CostEngineOptions.parse(new String[] {"--bootstrap-servers", "k:9092",
                "--commit-interval", "30"}, Map.of("GPULEDGER_COMMIT_INTERVAL_SECONDS", "5"));
        CostEngineOptions fromEnvironment = CostEngineOptions.parse(new String[] {"--bootstrap-servers", "k:9092"},
                Map.of("GPULEDGER_COMMIT_INTERVAL_SECONDS", "5"));
        CostEngineOptions untold = CostEngineOptions.parse(new String[] {"--bootstrap-servers", "k:9092"}, Map.of());

        // Then Kafka Streams commits at that interval, and a transaction may stay open three of them,
        // never less than Kafka Streams' own 10 s (which it refuses to go below the commit interval)
        String transactionTimeout = StreamsConfig.producerPrefix(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG);
        assertThat(CostEngineMain.properties(told)).containsEntry(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 30_000L)
                .containsEntry(transactionTimeout, 90_000);
        assertThat(CostEngineMain.properties(fromEnvironment))
                .containsEntry(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 5_000L)
                .containsEntry(transactionTimeout, 15_000);
        assertThat(CostEngineMain.properties(untold)).containsEntry(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 8_000L)
                .containsEntry(transactionTimeout, 24_000);
        // And the roll-ups wait a commit interval and an update interval before taking a backlog as done
        assertThat(told.config().costSettings().quietAfter()).isEqualTo(Duration.ofSeconds(32));
        for (String wrong : new String[] {"0", "-2", "301", "2s"}) {
            assertThatThrownBy(() -> CostEngineOptions.parse(new String[] {"--bootstrap-servers", "k:9092",
                    "--commit-interval", wrong}, Map.of()))
                    .as(wrong).hasMessageContaining("--commit-interval takes whole seconds from 1 to 300");
        }
    }

    @Test
    void shouldRefuseToStartWithoutKafka() {
        assertThatThrownBy(() -> CostEngineOptions.parse(new String[0], Map.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("KAFKA_BOOTSTRAP_SERVERS");
    }

    @Test
    void shouldRefuseAnOptionItDoesNotKnowOrOneWithoutItsValue() {
        assertThatThrownBy(() -> CostEngineOptions.parse(new String[] {"--partitions", "4"}, Map.of()))
                .hasMessageContaining("unknown option '--partitions'");
        assertThatThrownBy(() -> CostEngineOptions.parse(new String[] {"--state-dir"}, Map.of()))
                .hasMessageContaining("--state-dir needs a value");
    }

    @Test
    void shouldJoinTheGroupAsAStaticMemberOnlyWhenGivenAnInstanceName() {
        // Given one engine named and one not
        CostEngineOptions named = CostEngineOptions.parse(new String[] {"--bootstrap-servers", "k:9092",
                "--instance-id", "engine-0"}, Map.of());
        CostEngineOptions anonymous = CostEngineOptions.parse(new String[] {"--bootstrap-servers", "k:9092"}, Map.of());

        // When their Kafka Streams settings are made
        Properties namedProps = CostEngineMain.properties(named);
        Properties anonymousProps = CostEngineMain.properties(anonymous);

        // Then only the named one's group consumer carries a group instance id, and both stay exactly-once
        assertThat(namedProps).containsEntry("main.consumer.group.instance.id", "engine-0");
        assertThat(anonymousProps.stringPropertyNames()).noneMatch(name -> name.endsWith("group.instance.id"));
        assertThat(namedProps).containsEntry(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
    }

    @Test
    void shouldLeaveTheGroupOnCloseAsADynamicMemberToo() {
        // Given an engine with no instance name (a dynamic member of its group)
        CostEngineOptions anonymous = CostEngineOptions.parse(new String[] {"--bootstrap-servers", "k:9092"}, Map.of());

        // When Kafka Streams makes the settings of its group consumer from the engine's
        Map<String, Object> groupConsumer = new StreamsConfig(CostEngineMain.properties(anonymous))
                .getMainConsumerConfigs("gpu-ledger-cost-engine", "engine-StreamThread-1-consumer", 0);
        Map<String, Object> kafkaStreamsDefault = new StreamsConfig(Map.of(StreamsConfig.APPLICATION_ID_CONFIG, "a",
                StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "k:9092"))
                .getMainConsumerConfigs("a", "a-StreamThread-1-consumer", 0);

        // Then that consumer leaves the group when it closes, where Kafka Streams' own default stays in it
        assertThat(groupConsumer).containsEntry("internal.leave.group.on.close", true);
        assertThat(kafkaStreamsDefault).containsEntry("internal.leave.group.on.close", false);
    }

    @Test
    void shouldShareThePartitionsByTheClassicProtocolUnlessToldTheStreamsOne() {
        // Given an engine told nothing, one told the streams protocol, and one told a protocol that is none
        CostEngineOptions untold = CostEngineOptions.parse(new String[] {"--bootstrap-servers", "k:9092"}, Map.of());
        CostEngineOptions told = CostEngineOptions.parse(new String[] {"--bootstrap-servers", "k:9092"},
                Map.of("GPULEDGER_GROUP_PROTOCOL", "streams"));

        // Then the first runs the classic protocol, the second the streams one, and the third is refused
        assertThat(CostEngineMain.properties(untold)).containsEntry(StreamsConfig.GROUP_PROTOCOL_CONFIG, "classic");
        assertThat(CostEngineMain.properties(told)).containsEntry(StreamsConfig.GROUP_PROTOCOL_CONFIG, "streams");
        assertThatThrownBy(() -> CostEngineOptions.parse(new String[] {"--bootstrap-servers", "k:9092",
                "--group-protocol", "consumer"}, Map.of()))
                .hasMessageContaining("--group-protocol takes classic or streams, not 'consumer'");
    }

    @Test
    void shouldConvertWithTheDatedRatesFileItIsGiven(@TempDir Path dir) throws IOException {
        // Given a rates file with EUR worth 1.10 USD from January and 1.20 USD from March
        Path file = dir.resolve("rates.csv");
        Files.writeString(file, "valid_from,currency,usd_per_unit\n2026-01-01,USD,1.0\n2026-01-01,EUR,1.10\n"
                + "2026-03-01,EUR,1.20\n");

        // When the engine is told to use it
        CurrencyRates rates = CostEngineOptions.parse(new String[] {"--bootstrap-servers", "k:9092",
                "--rates-file", file.toString()}, Map.of()).config().rates();

        // Then 10 EUR is 11 USD in February and 12 USD in March
        assertThat(rates.convert(10, "EUR", Instant.parse("2026-02-15T00:00:00Z").toEpochMilli()).amount())
                .isCloseTo(11.0, within(1e-9));
        assertThat(rates.convert(10, "EUR", Instant.parse("2026-03-15T00:00:00Z").toEpochMilli()).amount())
                .isCloseTo(12.0, within(1e-9));
    }

    @Test
    void shouldServeMetricsOnThePortAndAddressItIsToldAndOn9404ByDefault() {
        CostEngineOptions told = CostEngineOptions.parse(new String[] {"--bootstrap-servers", "k:9092",
                "--metrics-port", "0", "--metrics-address", "127.0.0.1"}, Map.of("GPULEDGER_METRICS_PORT", "9500"));
        CostEngineOptions fromEnvironment = CostEngineOptions.parse(new String[] {"--bootstrap-servers", "k:9092"},
                Map.of("GPULEDGER_METRICS_PORT", "9500", "GPULEDGER_METRICS_ADDRESS", "10.0.0.5"));
        CostEngineOptions untold = CostEngineOptions.parse(new String[] {"--bootstrap-servers", "k:9092"}, Map.of());

        assertThat(told.metricsPort()).isZero();
        assertThat(told.metricsAddress()).isEqualTo("127.0.0.1");
        assertThat(fromEnvironment.metricsPort()).isEqualTo(9500);
        assertThat(fromEnvironment.metricsAddress()).isEqualTo("10.0.0.5");
        assertThat(untold.metricsPort()).isEqualTo(9404);
        assertThat(untold.metricsAddress()).isEqualTo("0.0.0.0");
        assertThatThrownBy(() -> CostEngineOptions.parse(new String[] {"--bootstrap-servers", "k:9092",
                "--metrics-port", "70000"}, Map.of())).hasMessageContaining("--metrics-port takes a port");
    }
}
