package io.gpuledger.finance;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuledger.model.GpuHour;
import io.gpuledger.model.JobEconomics;
import io.gpuledger.model.JobPart;
import io.gpuledger.model.Json;
import io.gpuledger.model.KafkaClientSettings;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.Topics;
import io.gpuledger.testing.BrokerExtension;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code export focus} against a real broker: the hours of a range as rows, an hour sent twice written once, an
 * hour whose figures changed as corrections, a record that is no hour counted and left out, and the file still
 * passing the FOCUS rules.
 */
class FocusExportIT {

    @RegisterExtension
    static final BrokerExtension broker = BrokerExtension.withTopics(2);

    private static final Instant FROM = FocusFixtures.HOUR;
    private static final Instant TO = FROM.plus(Duration.ofHours(1));

    @TempDir
    Path folder;

    @BeforeAll
    static void publish() {
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(
                KafkaClientSettings.producer(broker.bootstrap(), "focus-export-it", 0), new StringSerializer(),
                new ByteArraySerializer())) {
            for (String type : List.of("p5.48xlarge", "p4d.24xlarge")) {
                PriceQuote quote = PriceQuote.builder().provider("aws").region("us-east-1").instanceType(type)
                        .lifecycle(Lifecycle.ON_DEMAND).gpuCount(8)
                        .pricePerHour(type.startsWith("p5") ? 98.32 : 32.77).currency("USD")
                        .validFrom(FROM.minus(Duration.ofDays(1))).source("test").observedAt(FROM).build();
                producer.send(new ProducerRecord<>(Topics.PRICES.name(), quote.key(), Json.write(quote)));
            }
            for (GpuHour hour : FocusFixtures.all()) {
                send(producer, hour);
            }
            // the on-demand hour again, unchanged; the shared one with 0.10 more for infer-a, 0.10 less unallocated
            send(producer, FocusFixtures.onDemand());
            GpuHour shared = FocusFixtures.sharedSpot();
            send(producer, new GpuHour(shared.gpuUuid(), shared.gpuIndex(), shared.gpuModel(), shared.placement(),
                    shared.windowStart(), shared.windowEnd(), shared.currency(), shared.gpuFraction(), shared.totals(),
                    List.of(new JobPart("infer-a", "search", 1440, 1.7, 0.12, 0), shared.jobParts().get(1))));
            // infer-a's work: 0.02 for 10,000 tokens, then 0.03 for 40,000
            for (int m = 0; m < 2; m++) {
                Instant start = FROM.plusSeconds(60L * m);
                JobEconomics minute = new JobEconomics("infer-a", start, start.plusSeconds(60), "USD", 1, 24, 0,
                        m == 0 ? 0.02 : 0.03, 1.5, true, Map.of("tokens", m == 0 ? 10_000.0 : 40_000.0), Map.of(),
                        Map.of(), null, 0);
                producer.send(new ProducerRecord<>(Topics.JOB_ECONOMICS.name(), null, start.toEpochMilli(),
                        "infer-a", Json.write(minute)));
            }
            // an hour before the range, and a record that is no hour
            GpuHour earlier = FocusFixtures.onDemand();
            send(producer, new GpuHour("GPU-early", 0, "H100", earlier.placement(), FROM.minus(Duration.ofHours(1)),
                    FROM, "USD", 1.0, earlier.totals(), earlier.jobParts()));
            producer.send(new ProducerRecord<>(Topics.HOURS.name(), null, FROM.toEpochMilli(), "GPU-x",
                    "{not an hour".getBytes(StandardCharsets.UTF_8)));
            // after the engine's state was reset and its inputs processed anew: the reserved GPU's hour of eight
            // hours later, then its hour of the range again, 0.50 more for serve-x, behind it on its partition
            GpuHour reserved = FocusFixtures.reserved();
            Instant later = FROM.plus(Duration.ofHours(8));
            send(producer, new GpuHour(reserved.gpuUuid(), reserved.gpuIndex(), reserved.gpuModel(),
                    reserved.placement(), later, later.plus(Duration.ofHours(1)), "USD", 1.0, reserved.totals(),
                    reserved.jobParts()));
            send(producer, new GpuHour(reserved.gpuUuid(), reserved.gpuIndex(), reserved.gpuModel(),
                    reserved.placement(), FROM, TO, "USD", 1.0, FocusFixtures.totals(3600, 8.0, 0, 0, 0, 0.65, 0.9),
                    List.of(new JobPart("serve-x", "platform", 3600, 8.0, 0.65, 0))));
            producer.flush();
        }
    }

    private static void send(KafkaProducer<String, byte[]> producer, GpuHour hour) {
        producer.send(new ProducerRecord<>(Topics.HOURS.name(), null, hour.windowStart().toEpochMilli(),
                hour.gpuUuid(), Json.write(hour)));
    }

    @Test
    void shouldWriteEachHourOnceAndWhatChangedAsCorrections() throws Exception {
        Path file = folder.resolve("focus.csv");

        FocusExport.Summary summary = export(Optional.empty()).writeTo(file);

        // 4 hours, each counted once though one came again unchanged and one changed: 1 + 3 + 1 + 1 rows, and 2
        // corrections
        assertThat(summary.hours()).isEqualTo(4);
        assertThat(summary.rows()).isEqualTo(8);
        assertThat(summary.corrections()).isEqualTo(2);
        assertThat(summary.repeats()).isEqualTo(1);
        assertThat(summary.unreadable()).isEqualTo(1);
        // 12.29 + 4.00 + 7.50 + 0.53, the corrections adding +0.10 and -0.10
        assertThat(sum(file, "EffectiveCost", "TRUE")).isEqualByComparingTo("24.32");
        assertThat(sum(file, "BilledCost", "\"ChargeClass\" = 'Correction' AND \"x_JobId\" = 'infer-a'"))
                .isEqualByComparingTo("0.1");
        assertThat(sum(file, "BilledCost", "\"ChargeClass\" = 'Correction' AND \"x_JobId\" IS NULL"))
                .isEqualByComparingTo("-0.1");
        assertThat(FocusValidation.of(file, FocusRules.GPU_LEDGER_CAPABILITIES).failed()).isEmpty();
        // infer-a's work: 0.05 for 50,000 tokens, 1.00 per million; no other job reported any
        assertThat(sum(file, "x_CostPer1MUnits", "\"x_JobId\" = 'infer-a' AND \"ChargeClass\" IS NULL"))
                .isEqualByComparingTo("1");
        assertThat(sum(file, "x_CostPer1MUnits", "\"x_JobId\" <> 'infer-a'")).isNull();
    }

    @Test
    void shouldFindTheCorrectionOfAnHourSentAgainBehindLaterHoursWhenToldToReadToTheEnd() throws Exception {
        Path file = folder.resolve("to-the-end.csv");

        FocusExport.Summary summary = new FocusExport(broker.bootstrap(), FROM, TO, Optional.empty(),
                Optional.empty(), FocusAccount.DEFAULT, "USD", Duration.ofSeconds(30), true).writeTo(file);

        // The reserved hour's correction, behind an hour dated seven hours after the range ends: serve-x 0.50 more
        assertThat(summary.hours()).isEqualTo(4);
        assertThat(summary.corrections()).isEqualTo(3);
        assertThat(sum(file, "EffectiveCost", "\"ChargeClass\" = 'Correction' AND \"x_JobId\" = 'serve-x'"))
                .isEqualByComparingTo("0.5");
        assertThat(sum(file, "EffectiveCost", "TRUE")).isEqualByComparingTo("24.82");
        assertThat(FocusValidation.of(file, FocusRules.GPU_LEDGER_CAPABILITIES).failed()).isEmpty();
    }

    @Test
    void shouldReconcileTheLatestRecordOfAnHourSentAgainBehindLaterHoursWhenToldToReadToTheEnd() {
        // The reserved hour as reconciliation reads it: its first record (7.50) until six hours past the range, its
        // record sent again (8.00) when read to the end
        double asFirstSent = reservedCost(LedgerTopics.hours(broker.bootstrap(), FROM, TO, Duration.ofSeconds(30),
                false));
        double toTheEnd = reservedCost(LedgerTopics.hours(broker.bootstrap(), FROM, TO, Duration.ofSeconds(30),
                true));

        assertThat(asFirstSent).isEqualTo(7.5);
        assertThat(toTheEnd).isEqualTo(8.0);
    }

    private static double reservedCost(LedgerTopics.Read<GpuHour> hours) {
        assertThat(hours.records()).extracting(GpuHour::windowStart).containsOnly(FROM);
        return hours.records().stream().filter(hour -> hour.gpuUuid().equals(FocusFixtures.reserved().gpuUuid()))
                .findFirst().orElseThrow().totals().cost();
    }

    @Test
    void shouldWriteOnlyTheRowsOfTheTeamAskedFor() throws Exception {
        Path file = folder.resolve("search.parquet");

        FocusExport.Summary summary = export(Optional.of("search")).writeTo(file);

        // infer-a's row and its correction
        assertThat(summary.rows()).isEqualTo(2);
        assertThat(sum(file, "EffectiveCost", "TRUE")).isEqualByComparingTo("1.7");
    }

    private static FocusExport export(Optional<String> team) {
        return new FocusExport(broker.bootstrap(), FROM, TO, team, Optional.empty(), FocusAccount.DEFAULT, "USD",
                Duration.ofSeconds(30));
    }

    private static BigDecimal sum(Path file, String column, String where) throws Exception {
        // CSV read as text: DuckDB would take the decimals for doubles
        String source = file.toString().endsWith(".parquet") ? "read_parquet('" + file + "')"
                : "read_csv('" + file + "', all_varchar = true)";
        try (Connection connection = DriverManager.getConnection("jdbc:duckdb:");
                Statement statement = connection.createStatement();
                ResultSet result = statement.executeQuery("SELECT sum(CAST(\"" + column + "\" AS DECIMAL(38,16)))"
                        + " FROM " + source + " WHERE " + where)) {
            result.next();
            return result.getBigDecimal(1);
        }
    }
}
