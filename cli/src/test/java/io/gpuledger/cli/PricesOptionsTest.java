package io.gpuledger.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuledger.ingest.price.ReservedTerm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PricesOptionsTest {

    private static final Map<String, String> KAFKA = Map.of("KAFKA_BOOTSTRAP_SERVERS", "kafka-1:9092");

    @TempDir
    Path dir;

    @Test
    void shouldPublishTheShippedCatalogOnceWhenNoSourceIsNamed() {
        // Given no options, When they are read
        PricesOptions options = PricesOptions.parse(new String[0], KAFKA);

        // Then the shipped catalog is published once to the named cluster
        assertThat(options.shippedCatalogOnly()).isTrue();
        assertThat(options.watch()).isFalse();
        assertThat(options.interval()).isEqualTo(Duration.ofMinutes(5));
        assertThat(options.confirmEvery()).isEqualTo(Duration.ofMinutes(10));
        assertThat(options.reservedTerm()).isEqualTo(ReservedTerm.ONE_YEAR);
        assertThat(options.bootstrap()).contains("kafka-1:9092");
    }

    @Test
    void shouldTakeEverySourceAndTheWatchInterval() throws Exception {
        // Given files for every kind of source
        Path catalog = Files.writeString(dir.resolve("catalog.json"), "[]");
        Path vms = Files.writeString(dir.resolve("vms.csv"), "");

        // When they are named, each source option twice where it makes sense
        PricesOptions options = PricesOptions.parse(new String[] {
                "--catalog", catalog.toString(), "--catalog", "https://example.org/catalog.csv",
                "--aws-spot", "http://127.0.0.1:9/spot.json",
                "--azure", "https://prices.azure.com/api/retail/prices?$filter=serviceName eq 'Virtual Machines'",
                "--skypilot", "aws=" + vms, "--reserved-term", "3y", "--watch", "--interval", "60",
                "--confirm-every", "300"}, KAFKA);

        // Then all of them are kept, in order
        assertThat(options.catalogs()).extracting(Object::toString)
                .containsExactly(catalog.toString(), "https://example.org/catalog.csv");
        assertThat(options.awsSpot()).hasSize(1);
        assertThat(options.azure()).hasSize(1);
        assertThat(options.skyPilot()).singleElement()
                .satisfies(s -> assertThat(s.provider()).isEqualTo("aws"));
        assertThat(options.reservedTerm()).isEqualTo(ReservedTerm.THREE_YEARS);
        assertThat(options.watch()).isTrue();
        assertThat(options.interval()).isEqualTo(Duration.ofSeconds(60));
        assertThat(options.confirmEvery()).isEqualTo(Duration.ofMinutes(5));
        assertThat(options.shippedCatalogOnly()).isFalse();
    }

    @Test
    void shouldRequireAKafkaClusterUnlessItIsADryRun() {
        // Given no KAFKA_BOOTSTRAP_SERVERS
        // When prices are to be published, Then the error says what to set
        assertThatThrownBy(() -> PricesOptions.parse(new String[0], Map.of("KAFKA_BOOTSTRAP_SERVERS", " ")))
                .isInstanceOf(UsageException.class)
                .hasMessage("prices: KAFKA_BOOTSTRAP_SERVERS is not set; set it to the Kafka cluster to publish to "
                        + "(e.g. KAFKA_BOOTSTRAP_SERVERS=kafka-1:9092), or add --dry-run to only print the quotes");
        // And a dry run needs none
        assertThat(PricesOptions.parse(new String[] {"--dry-run"}, Map.of()).bootstrap()).isEmpty();
    }

    @Test
    void shouldExplainWhatIsWrongWithAnOption() {
        assertThatThrownBy(() -> PricesOptions.parse(new String[] {"--catalog", "/no/such/catalog.csv"}, KAFKA))
                .hasMessage("--catalog /no/such/catalog.csv: no readable file there");
        assertThatThrownBy(() -> PricesOptions.parse(new String[] {"--catalog"}, KAFKA))
                .hasMessage("--catalog needs a value");
        assertThatThrownBy(() -> PricesOptions.parse(new String[] {"--skypilot", "vms.csv"}, KAFKA))
                .hasMessage("--skypilot takes PROVIDER=FILE or PROVIDER=URL (e.g. aws=vms.csv), not 'vms.csv'");
        assertThatThrownBy(() -> PricesOptions.parse(new String[] {"--interval", "0"}, KAFKA))
                .hasMessage("--interval takes a positive whole number, not '0'");
        assertThatThrownBy(() -> PricesOptions.parse(new String[] {"--confirm-every", "never"}, KAFKA))
                .hasMessage("--confirm-every takes a positive whole number, not 'never'");
        assertThatThrownBy(() -> PricesOptions.parse(new String[] {"--reserved-term", "forever"}, KAFKA))
                .hasMessageStartingWith("--reserved-term: is not a reservation term");
        assertThatThrownBy(() -> PricesOptions.parse(new String[] {"--dry-run", "--watch"}, Map.of()))
                .hasMessage("--dry-run reads the sources once; leave out --watch");
        assertThatThrownBy(() -> PricesOptions.parse(new String[] {"--colour", "red"}, KAFKA))
                .hasMessage("unknown option '--colour'");
    }
}
