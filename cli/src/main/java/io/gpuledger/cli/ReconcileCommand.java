package io.gpuledger.cli;

import io.gpuledger.finance.BillRows;
import io.gpuledger.finance.DriftAnomalies;
import io.gpuledger.finance.LearnedPrices;
import io.gpuledger.finance.LedgerTopics;
import io.gpuledger.finance.Reconciliation;
import io.gpuledger.model.CostAnomaly;
import io.gpuledger.model.GpuHour;
import io.gpuledger.model.Json;
import io.gpuledger.model.KafkaClientSettings;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.ReconciliationRatio;
import io.gpuledger.model.Topics;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * {@code gpu-ledger reconcile --bill FILE... --from --to}: the engine's GPU hours of a range held against the
 * provider's bill (FOCUS export or CUR 2.0; CSV, gzip, Parquet), per instance-day and per offer, and, with
 * {@code --publish}, the learned effective prices published as price versions (docs/finance.md).
 */
final class ReconcileCommand {

    static final String USAGE = "reconcile (--bill FILE [--bill FILE...] --from TIME --to TIME [--out DAYS.csv]"
            + " | --watch FOLDER [--interval SECONDS]) [--drift 0.02] [--publish] [--read-to-end]";
    /** The file in a watched folder that lists the bills reconciled, one {@code name|size|modified} a line. */
    static final String DONE_FILE = ".gpu-ledger-reconciled";
    private static final Duration TIMEOUT = Duration.ofSeconds(120);

    private ReconcileCommand() {
    }

    /** What the reconciliation found for an offer and account, as the alert service's gauges take it. */
    static ReconciliationRatio ratioOf(Reconciliation.OfferRate rate, Reconciliation.Report report, Instant from,
            Instant to, Instant now) {
        String currency = report.currencyOf(rate);
        return new ReconciliationRatio(rate.offer().provider(), rate.offer().region(), rate.offer().instanceType(),
                rate.offer().lifecycle(), rate.account(), currency, from, to, rate.estimated().doubleValue(),
                rate.effective().doubleValue(), rate.ratio(), now);
    }

    static int run(String[] args, Map<String, String> env, PrintStream out, PrintStream err, Clock clock) {
        List<Path> bills = new ArrayList<>();
        String from = null;
        String to = null;
        Optional<Path> days = Optional.empty();
        Optional<Path> watch = Optional.empty();
        Duration interval = Duration.ofMinutes(5);
        double drift = 0.02;
        boolean publish = false;
        boolean readToEnd = false;
        for (int i = 0; i < args.length; i++) {
            String option = args[i];
            if (option.equals("--publish")) {
                publish = true;
                continue;
            }
            if (option.equals("--read-to-end")) {
                readToEnd = true;
                continue;
            }
            if (i + 1 >= args.length) {
                throw new UsageException(option + " needs a value");
            }
            String value = args[++i];
            switch (option) {
                case "--bill" -> bills.add(Path.of(value));
                case "--from" -> from = value;
                case "--to" -> to = value;
                case "--out" -> days = Optional.of(Path.of(value));
                case "--drift" -> drift = UsageException.fraction(option, value);
                case "--watch" -> watch = Optional.of(Path.of(value));
                case "--interval" -> interval = Duration.ofSeconds(UsageException.positive(option, value));
                default -> throw new UsageException("unknown option '" + option + "'");
            }
        }
        if (watch.isPresent()) {
            if (!bills.isEmpty() || from != null || to != null || days.isPresent()) {
                throw new UsageException("--watch reconciles each bill of the folder over its own period: leave out"
                        + " --bill, --from, --to and --out");
            }
            if (!Files.isDirectory(watch.get())) {
                throw new UsageException("--watch " + watch.get() + ": no folder there");
            }
            String bootstrap = FocusCommand.bootstrap(env, "reconcile");
            return watch(watch.get(), interval, drift, publish, readToEnd, bootstrap, out, err, clock);
        }
        if (bills.isEmpty() || from == null || to == null) {
            throw new UsageException("usage: gpu-ledger " + USAGE);
        }
        Instant start = FocusCommand.time("--from", from);
        Instant end = FocusCommand.time("--to", to);
        if (!end.isAfter(start)) {
            throw new UsageException("--to must be after --from");
        }
        String bootstrap = FocusCommand.bootstrap(env, "reconcile");
        return once(bills, Optional.of(start), Optional.of(end), days, drift, publish, readToEnd, bootstrap, out, err,
                clock);
    }

    /**
     * Every {@code interval}, each bill of {@code folder} not reconciled before (by name, size and time modified, as
     * {@link #DONE_FILE} in the folder lists them), over the period its own rows cover; until interrupted. A bill
     * that cannot be reconciled is reported and tried again next round.
     */
    static int watch(Path folder, Duration interval, double drift, boolean publish, boolean readToEnd,
            String bootstrap, PrintStream out, PrintStream err, Clock clock) {
        out.println("watching " + folder + " for bills, every " + interval.toSeconds() + " s");
        while (!Thread.currentThread().isInterrupted()) {
            watchRound(folder, drift, publish, readToEnd, bootstrap, out, err, clock);
            try {
                Thread.sleep(interval.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return 0;
    }

    /** One look at the folder: reconciles the bills new since the last; returns how many it reconciled. */
    static int watchRound(Path folder, double drift, boolean publish, boolean readToEnd, String bootstrap,
            PrintStream out, PrintStream err, Clock clock) {
        Path doneFile = folder.resolve(DONE_FILE);
        int reconciled = 0;
        try {
            Set<String> done = Files.exists(doneFile) ? new HashSet<>(Files.readAllLines(doneFile))
                    : new HashSet<>();
            List<Path> bills;
            try (var files = Files.list(folder)) {
                bills = files.filter(Files::isRegularFile).filter(ReconcileCommand::isBill).sorted().toList();
            }
            for (Path bill : bills) {
                String mark = bill.getFileName() + "|" + Files.size(bill) + "|" + Files.getLastModifiedTime(bill)
                        .toMillis();
                if (done.contains(mark)) {
                    continue;
                }
                out.println("reconciling " + bill);
                if (once(List.of(bill), Optional.empty(), Optional.empty(), Optional.empty(), drift, publish,
                        readToEnd, bootstrap, out, err, clock) == 0) {
                    Files.writeString(doneFile, mark + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                            StandardOpenOption.APPEND);
                    reconciled++;
                }
            }
        } catch (IOException e) {
            err.println("gpu-ledger reconcile: " + folder + ": " + e.getMessage());
        }
        return reconciled;
    }

    private static boolean isBill(Path file) {
        String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
        return !name.startsWith(".") && (name.endsWith(".csv") || name.endsWith(".csv.gz")
                || name.endsWith(".parquet"));
    }

    /**
     * Reconciles {@code bills} over {@code [from, to)}, or over the UTC days their rows cover when no range is
     * given; 0 when done, 1 when it could not be. The engine's hours are read as {@link LedgerTopics#hours} says,
     * to the topic's end with {@code readToEnd}.
     */
    static int once(List<Path> bills, Optional<Instant> from, Optional<Instant> to, Optional<Path> days,
            double drift, boolean publish, boolean readToEnd, String bootstrap, PrintStream out, PrintStream err,
            Clock clock) {
        try (Connection connection = DriverManager.getConnection("jdbc:duckdb:")) {
            long billRows = BillRows.load(connection, bills);
            Instant start = from.orElse(null);
            Instant end = to.orElse(null);
            if (start == null || end == null) {
                BillRows.Period period = BillRows.period(connection).orElse(null);
                if (period == null) {
                    err.println("gpu-ledger reconcile: " + bills + " has no usage row with a charge period");
                    return 1;
                }
                start = period.from();
                end = period.to();
            }
            LedgerTopics.Read<GpuHour> hours = LedgerTopics.hours(bootstrap, start, end, TIMEOUT, readToEnd);
            Reconciliation.Report report = Reconciliation.of(connection, hours.records(), start, end);
            out.printf("%d bill rows, %d GPU-hours of the engine (%d records left out), %d instance-days%n", billRows,
                    hours.records().size(), hours.unreadable(), report.days().size());
            if (!report.otherCurrency().isEmpty()) {
                out.printf("%d instance-days billed in %s, estimated in another currency: not compared, and in no"
                        + " offer's ratio%n", report.otherCurrency().size(), report.otherCurrency().stream()
                        .map(Reconciliation.InstanceDay::currency).distinct().sorted().toList());
            }
            for (Reconciliation.OfferRate rate : report.offers()) {
                out.printf(Locale.ROOT, "offer %s account %s: estimated %.2f, effective %.2f, ratio %.4f%s%n",
                        rate.offer().key(), rate.account(), rate.estimated(), rate.effective(), rate.ratio(),
                        Math.abs(rate.ratio() - 1) > drift ? "  DRIFT beyond " + drift : "");
            }
            for (Reconciliation.InstanceDay day : report.days()) {
                Double ratio = day.ratio();
                if (ratio == null || Math.abs(ratio - 1) > drift) {
                    out.printf(Locale.ROOT, "  %s %s: estimated %.2f, billed %.2f, effective %.2f (negotiated %.2f,"
                            + " commitments %.2f, credits %.2f, billed hours not seen %.2f, seen hours not billed"
                            + " %.2f)%n", day.instanceId(), day.day(), day.estimated(), day.billed(),
                            day.effective(), day.negotiated(), day.commitment(), day.credits(), day.unseen(),
                            day.unbilled());
                }
            }
            if (days.isPresent()) {
                Reconciliation.writeDays(connection, start, end, days.get());
                out.println("wrote every instance-day to " + days.get());
            }
            List<PriceQuote> learned = LearnedPrices.versions(report.offers(),
                    LedgerTopics.prices(bootstrap, TIMEOUT).records(), start, clock.instant());
            for (PriceQuote quote : learned) {
                out.printf(Locale.ROOT, "learned: %s at %.4f %s an hour from %s%s%n", quote.offer().key(),
                        quote.pricePerHour(), quote.currency(), quote.validFrom(), publish ? "" : " (not published:"
                                + " add --publish)");
            }
            List<CostAnomaly> drifts = DriftAnomalies.of(report, drift, start, end, clock.instant());
            drifts.forEach(anomaly -> out.println("anomaly: " + anomaly.summary()));
            if (publish) {
                try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(
                        KafkaClientSettings.producer(bootstrap, "gpu-ledger-reconcile", 0), new StringSerializer(),
                        new ByteArraySerializer())) {
                    for (PriceQuote quote : learned) {
                        producer.send(new ProducerRecord<>(Topics.PRICES.name(), quote.key(), Json.write(quote)))
                                .get();
                    }
                    for (Reconciliation.OfferRate rate : report.offers()) {
                        ReconciliationRatio ratio = ratioOf(rate, report, start, end, clock.instant());
                        producer.send(new ProducerRecord<>(Topics.RECONCILIATION.name(), ratio.key(),
                                Json.write(ratio))).get();
                    }
                    for (CostAnomaly anomaly : drifts) {
                        producer.send(new ProducerRecord<>(Topics.COST_ANOMALIES.name(), anomaly.key(),
                                Json.write(anomaly))).get();
                    }
                }
                out.printf("published %d price versions to %s, %d anomalies to %s and %d ratios to %s%n",
                        learned.size(), Topics.PRICES.name(), drifts.size(), Topics.COST_ANOMALIES.name(),
                        report.offers().size(), Topics.RECONCILIATION.name());
            }
            return 0;
        } catch (SQLException | IllegalArgumentException | IllegalStateException e) {
            err.println("gpu-ledger reconcile: " + e.getMessage());
            return 1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 1;
        } catch (java.util.concurrent.ExecutionException e) {
            err.println("gpu-ledger reconcile: publishing failed: " + e.getCause().getMessage());
            return 1;
        }
    }
}
