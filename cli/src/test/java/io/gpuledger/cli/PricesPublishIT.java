package io.gpuledger.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuledger.broker.EmbeddedKafka;
import io.gpuledger.ingest.price.PriceCatalog;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code KAFKA_BOOTSTRAP_SERVERS=... gpu-ledger prices}, run twice against a real broker. */
class PricesPublishIT {

    @Test
    void shouldPublishTheShippedCatalogOnceAndNothingWhenRunAgain() throws Exception {
        // Given a broker, and the number of versions in the shipped catalog
        int versions = PriceCatalog.loadDefault().quotes().size();
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            Map<String, String> env = Map.of("KAFKA_BOOTSTRAP_SERVERS", kafka.bootstrapServers());

            // When the command runs twice
            String first = run(env);
            String second = run(env);

            // Then the first run publishes every version and the second finds them all in the topic,
            // confirmed too recently to confirm them again
            assertThat(first).contains("holds 0 price versions")
                    .contains("published " + versions
                            + " to pricing.quotes.v1, 0 unchanged, 0 prices in force confirmed");
            assertThat(second).contains("holds " + versions + " price versions")
                    .contains("published 0 to pricing.quotes.v1, " + versions
                            + " unchanged, 0 prices in force confirmed");
        }
    }

    private static String run(Map<String, String> env) throws InterruptedException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = PricesCommand.run(PricesOptions.parse(new String[0], env),
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), Clock.systemUTC());
        assertThat(exit).isZero();
        assertThat(err.toString(StandardCharsets.UTF_8)).isEmpty();
        return out.toString(StandardCharsets.UTF_8);
    }
}
