package io.gpuledger.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuledger.finance.LedgerTopics;
import io.gpuledger.model.GpuHour;
import io.gpuledger.model.JobPart;
import io.gpuledger.model.Json;
import io.gpuledger.model.KafkaClientSettings;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Placement;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.Topics;
import io.gpuledger.model.UsageTotals;
import io.gpuledger.testing.BrokerExtension;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code gpu-ledger reconcile} against a real broker: a day of one on-demand p5.48xlarge that the engine priced at
 * the list price of 98.32 USD an hour and the bill charged 7% under it; the command reports the ratio, writes the
 * instance-day, and publishes the learned price as a version of the offer.
 */
class ReconcileCommandIT {

    @RegisterExtension
    static final BrokerExtension broker = BrokerExtension.withTopics(1);

    private static final Instant DAY = Instant.parse("2026-10-01T00:00:00Z");
    private static final Instant NOW = Instant.parse("2026-10-09T00:00:00Z");
    private static final String INSTANCE = "i-0recon";

    @TempDir
    Path folder;

    @Test
    void shouldReconcileEachNewBillOfAWatchedFolderOverItsOwnDaysOnce() throws Exception {
        publishDay();
        Path folder = Files.createDirectories(this.folder.resolve("bills"));
        writeBill(folder.resolve("bill-2026-10-01.csv"));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream print = new PrintStream(out, true, StandardCharsets.UTF_8);
        Clock clock = Clock.fixed(NOW, ZoneOffset.UTC);

        int first = ReconcileCommand.watchRound(folder, 0.02, false, false, broker.bootstrap(), print, print,
                clock);
        int second = ReconcileCommand.watchRound(folder, 0.02, false, false, broker.bootstrap(), print, print,
                clock);

        // The bill's day (its rows span 2026-10-01) held against the engine's hours of that day, once
        assertThat(first).isEqualTo(1);
        assertThat(second).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("reconciling", "24 bill rows, 192 GPU-hours",
                "ratio 0.9300");
        assertThat(Files.readAllLines(folder.resolve(ReconcileCommand.DONE_FILE))).singleElement().asString()
                .startsWith("bill-2026-10-01.csv|");
    }

    private static boolean published;

    /** The list price and a day of the instance's GPU hours on the topics, once for the class. */
    private static synchronized void publishDay() {
        if (published) {
            return;
        }
        published = true;
        PriceQuote list = PriceQuote.builder().provider("aws").region("us-east-1").instanceType("p5.48xlarge")
                .lifecycle(Lifecycle.ON_DEMAND).gpuModel("H100").gpuCount(8).pricePerHour(98.32).currency("USD")
                .validFrom(DAY.minus(Duration.ofDays(30))).source("catalog").observedAt(DAY).build();
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(
                KafkaClientSettings.producer(broker.bootstrap(), "reconcile-it", 0), new StringSerializer(),
                new ByteArraySerializer())) {
            producer.send(new ProducerRecord<>(Topics.PRICES.name(), list.key(), Json.write(list)));
            for (int h = 0; h < 24; h++) {
                Instant start = DAY.plus(Duration.ofHours(h));
                for (int gpu = 0; gpu < 8; gpu++) {
                    GpuHour hour = new GpuHour("GPU-recon-" + gpu, gpu, "H100", new Placement("node-recon", INSTANCE,
                            "p5.48xlarge", "aws", "us-east-1", Lifecycle.ON_DEMAND), start,
                            start.plus(Duration.ofHours(1)), "USD", 1.0, UsageTotals.builder().samples(360)
                                    .sum(UsageTotals.Sum.GPU_SECONDS, 3600).sum(UsageTotals.Sum.COST, 12.29).build(),
                            List.of(new JobPart("train", "research", 3600, 12.29, 0, 0)));
                    producer.send(new ProducerRecord<>(Topics.HOURS.name(), null, start.toEpochMilli(),
                            hour.gpuUuid(), Json.write(hour)));
                }
            }
            producer.flush();
        }
    }

    /** The bill of the day: every hour at the list price less 7%. */
    private static Path writeBill(Path bill) throws java.io.IOException {
        List<String> lines = new ArrayList<>(List.of("BillingAccountId,ResourceId,ChargeCategory,ChargeClass,"
                + "ChargePeriodStart,ChargePeriodEnd,BilledCost,EffectiveCost,ListCost,ContractedCost,"
                + "CommitmentDiscountId,BillingCurrency"));
        for (int h = 0; h < 24; h++) {
            String start = DAY.plus(Duration.ofHours(h)).atZone(ZoneOffset.UTC).toLocalDateTime() + ":00Z";
            String end = DAY.plus(Duration.ofHours(h + 1)).atZone(ZoneOffset.UTC).toLocalDateTime() + ":00Z";
            String cost = String.format(Locale.ROOT, "%.6f", 98.32 * 0.93);
            lines.add(String.join(",", "012345678901", INSTANCE, "Usage", "", start, end, cost, cost, "98.32", cost,
                    "", "USD"));
        }
        Files.write(bill, lines, StandardCharsets.UTF_8);
        return bill;
    }

    @Test
    void shouldReportTheDiscountAndPublishThePriceItLearned() throws Exception {
        publishDay();
        Path bill = writeBill(folder.resolve("bill.csv"));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Path days = folder.resolve("days.csv");

        int status = ReconcileCommand.run(new String[] {"--bill", bill.toString(), "--from", "2026-10-01", "--to",
                "2026-10-02", "--out", days.toString(), "--publish"}, Map.of("KAFKA_BOOTSTRAP_SERVERS",
                broker.bootstrap()), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), Clock.fixed(NOW, ZoneOffset.UTC));

        String report = out.toString(StandardCharsets.UTF_8);
        assertThat(status).as(err.toString(StandardCharsets.UTF_8)).isZero();
        // 24 x 98.32 estimated, 24 x 98.32 x 0.93 effective
        assertThat(report).contains("24 bill rows, 192 GPU-hours", "estimated 2359.68, effective 2194.50,"
                + " ratio 0.9300", "learned: aws|us-east-1|p5.48xlarge|on-demand at 91.4376 USD an hour");
        assertThat(Files.readAllLines(days)).hasSize(2).element(1).asString().startsWith(INSTANCE + ",2026-10-01,");
        // a drift anomaly for finance, naming the instance
        assertThat(report).contains("anomaly: The bill of account 012345678901 charged aws|us-east-1|p5.48xlarge|"
                + "on-demand 2194.50 USD effective against an estimate of 2359.68 (-7.0%)", "the instances behind it: "
                + INSTANCE);
        // the ratio for the alert service's gauge
        assertThat(report).contains("published 1 price versions to pricing.quotes.v1, 1 anomalies to"
                + " cost.anomalies.v1 and 1 ratios to finance.reconciliation.v1");
        // the learned version on the topic, in force from now, 7% under the list price
        List<PriceQuote> versions = LedgerTopics.prices(broker.bootstrap(), Duration.ofSeconds(30)).records();
        assertThat(versions).filteredOn(quote -> PriceQuote.BILL_RECONCILIATION.equals(quote.source()))
                .singleElement().satisfies(quote -> {
                    assertThat(quote.validFrom()).isEqualTo(NOW);
                    assertThat(quote.pricePerHour()).isCloseTo(98.32 * 0.93, org.assertj.core.data.Offset.offset(1e-4));
                    assertThat(quote.gpuCount()).isEqualTo(8);
                });
    }
}
