package io.gpuledger.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuledger.ingest.price.Fetcher;
import io.gpuledger.ingest.price.PriceCatalog;
import io.gpuledger.model.Json;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.ReservationTerms;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.EnumMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code gpu-ledger prices --catalog FILE --dry-run}, as a person or a script reads its output. */
class PricesDryRunTest {

    private static final Instant NOW = Instant.parse("2026-04-01T09:30:00Z");

    @TempDir
    Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @Test
    void shouldPrintEachQuoteAsOneJsonLineAndTheRejectedRowsWithTheirLinesOnStandardError() throws Exception {
        // Given a catalog with two good rows, a reserved row with an upfront fee, and a broken one
        Path catalog = Files.writeString(dir.resolve("catalog.csv"), """
                provider,region,instance_type,gpu_model,gpu_count,lifecycle,price_per_hour,currency,valid_from,\
                upfront_fee,term
                aws,us-east-1,g5.xlarge,A10G-24GB,1,on-demand,1.006,USD,2026-01-01T00:00:00Z,,
                aws,us-east-1,g5.xlarge,A10G-24GB,1,spot,a third,USD,2026-01-01T00:00:00Z,,
                aws,us-east-1,g5.xlarge,A10G-24GB,1,reserved,0,USD,2026-01-01T00:00:00Z,5475,1y
                """);

        // When the dry run is asked for
        int exit = dryRun("--catalog", catalog.toString());

        // Then standard output holds exactly the contract's JSON of the two quotes, observed now, one per line
        assertThat(exit).isZero();
        assertThat(stdout().lines()).containsExactly(
                Json.writeString(new PriceQuote("aws", "us-east-1", "g5.xlarge", Lifecycle.ON_DEMAND, "A10G-24GB", 1,
                        1.006, "USD", Instant.parse("2026-01-01T00:00:00Z"), null, NOW)),
                Json.writeString(new PriceQuote("aws", "us-east-1", "g5.xlarge", Lifecycle.RESERVED, "A10G-24GB", 1,
                        0.625, "USD", Instant.parse("2026-01-01T00:00:00Z"), null, NOW)
                        .withReservation(new ReservationTerms(12, ReservationTerms.PaymentOption.ALL_UPFRONT,
                                5475.0))));
        assertThat(stdout().lines()).allSatisfy(line -> assertThat(Json.read(line.getBytes(StandardCharsets.UTF_8),
                PriceQuote.class)).isNotNull());
        // And standard error names the broken row by its line and field
        assertThat(stderr().lines()).containsExactly(
                "rejected: " + catalog + " line 3: price_per_hour: is not a number: 'a third'");
    }

    @Test
    void shouldPrintTheShippedCatalogWhenNoSourceIsNamed() throws Exception {
        // Given no source option, When the dry run is asked for
        int exit = dryRun();

        // Then every quote of the shipped catalog is printed
        assertThat(exit).isZero();
        assertThat(stdout().lines().map(line -> Json.read(line.getBytes(StandardCharsets.UTF_8), PriceQuote.class)))
                .containsExactlyElementsOf(PriceCatalog.loadDefault().quotes().stream()
                        .map(quote -> quote.confirmedAt(NOW)).toList());
        assertThat(stderr()).isEmpty();
    }

    @Test
    void shouldExitWithAnErrorOnlyWhenNothingAtAllCouldBeRead() throws Exception {
        // Given a catalog whose every row is broken, and a SkyPilot catalog that is not there any more
        Path catalog = Files.writeString(dir.resolve("broken.csv"), """
                provider,region,instance_type,gpu_model,gpu_count,lifecycle,price_per_hour,currency,valid_from
                aws,us-east-1,g5.xlarge,A10G,1,sometimes,1.006,USD,2026-01-01T00:00:00Z
                """);
        Path vms = Files.writeString(dir.resolve("vms.csv"), "");
        PricesOptions options = PricesOptions.parse(new String[] {"--dry-run", "--catalog", catalog.toString(),
                "--skypilot", "aws=" + vms}, Map.of());
        Files.delete(vms);

        // When the dry run is asked for
        int exit = PricesCommand.run(options, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), Clock.systemUTC());

        // Then nothing is printed as a quote, and the exit status says nothing could be read, and why
        assertThat(exit).isEqualTo(1);
        assertThat(stdout()).isEmpty();
        assertThat(stderr().lines()).containsExactly(
                "cannot read: " + vms + ": no such file",
                "rejected: " + catalog
                        + " line 2: lifecycle: unknown lifecycle 'sometimes', expected one of on-demand, "
                        + "spot, reserved",
                "prices: no price quote could be read from any source");
    }

    private int dryRun(String... sourceOptions) throws InterruptedException {
        String[] args = new String[sourceOptions.length + 1];
        args[0] = "--dry-run";
        System.arraycopy(sourceOptions, 0, args, 1, sourceOptions.length);
        return PricesCommand.run(PricesOptions.parse(args, Map.of()),
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), Clock.fixed(NOW, ZoneOffset.UTC));
    }

    private String stdout() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String stderr() {
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void shouldSayHowManyReadsWereRefusedAndWhyOnlyWhenThereWereSome() {
        // Given the counts of a fetcher that cut off one trickling body and refused two foreign links
        Map<Fetcher.Refusal, Long> counts = new EnumMap<>(Fetcher.Refusal.class);
        counts.put(Fetcher.Refusal.DEADLINE, 1L);
        counts.put(Fetcher.Refusal.TOO_LARGE, 0L);
        counts.put(Fetcher.Refusal.REDIRECT, 0L);
        counts.put(Fetcher.Refusal.LINK, 2L);

        // When the round's line is completed, Then it names the 1 + 2 = 3 refusals by reason
        assertThat(PricesCommand.refusedSinceStart(counts))
                .isEqualTo("; 3 reads refused since start (deadline 1, link 2)");
        assertThat(PricesCommand.refusedSinceStart(Map.of())).isEmpty();
    }
}
