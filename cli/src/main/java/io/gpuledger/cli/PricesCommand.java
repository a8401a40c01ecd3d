package io.gpuledger.cli;

import io.gpuledger.ingest.kafka.Producers;
import io.gpuledger.ingest.price.CatalogSource;
import io.gpuledger.ingest.price.Fetcher;
import io.gpuledger.ingest.price.InstanceTypes;
import io.gpuledger.ingest.price.Location;
import io.gpuledger.ingest.price.PriceCatalog;
import io.gpuledger.ingest.price.PriceFeed;
import io.gpuledger.ingest.price.PriceReading;
import io.gpuledger.ingest.price.PriceSource;
import io.gpuledger.ingest.price.PriceWatch;
import io.gpuledger.ingest.price.PublishedPrices;
import io.gpuledger.ingest.price.aws.SpotPriceHistory;
import io.gpuledger.ingest.price.azure.RetailPrices;
import io.gpuledger.ingest.price.skypilot.SkyPilotCatalog;
import io.gpuledger.model.Json;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.TopicAdmin;
import io.gpuledger.model.Topics;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;

/**
 * {@code gpu-ledger prices}: reads price catalogs and provider price feeds and publishes the
 * quotes that changed to {@code pricing.quotes.v1}, and confirmations of the prices in force that
 * were last confirmed {@code --confirm-every} ago, once or, with {@code --watch}, every interval
 * until Ctrl-C. With {@code --dry-run} it prints the quotes instead, one JSON object per line.
 *
 * <p>Quotes go to standard output; what could not be read, and why, to standard error.
 */
final class PricesCommand {

    private static final Duration TOPIC_READ_TIMEOUT = Duration.ofSeconds(60);

    private PricesCommand() {
    }

    static int run(String[] args) throws InterruptedException {
        PricesOptions options = PricesOptions.parse(args, System.getenv());
        try {
            return run(options, System.out, System.err, Clock.systemUTC());
        } catch (UsageException e) {
            throw e;
        } catch (RuntimeException e) {
            // Kafka out of reach, a broker that does not acknowledge: say so, without a stack trace.
            System.err.println("gpu-ledger prices: " + e.getMessage());
            return 1;
        }
    }

    /** @return 0, or 1 when no quote at all could be read */
    static int run(PricesOptions options, PrintStream out, PrintStream err, Clock clock) throws InterruptedException {
        Fetcher fetcher = Fetcher.standard();
        InstanceTypes instanceTypes = instanceTypes(options);
        instanceTypes.errors().forEach(error -> err.println("rejected: " + error));
        List<PriceSource> sources = sources(options, instanceTypes, fetcher, clock);
        if (options.dryRun()) {
            return dryRun(sources, out, err, clock);
        }
        return publish(options, sources, fetcher, out, err, clock);
    }

    static List<PriceSource> sources(PricesOptions options, InstanceTypes instanceTypes, Fetcher fetcher, Clock clock) {
        List<PriceSource> sources = new ArrayList<>();
        if (options.shippedCatalogOnly()) {
            sources.add(CatalogSource.shipped());
        }
        options.catalogs().forEach(location -> sources.add(new CatalogSource(location, fetcher)));
        options.awsSpot().forEach(location -> sources.add(new SpotPriceHistory(location, fetcher, instanceTypes)));
        if (!options.azure().isEmpty()) {
            sources.add(new RetailPrices(options.azure(), fetcher, instanceTypes, options.reservedTerm()));
        }
        options.skyPilot().forEach(catalog ->
                sources.add(new SkyPilotCatalog(catalog.provider(), catalog.location(), fetcher, clock)));
        return sources;
    }

    /** The shipped table, the catalogs' own rows, then the table given on the command line. */
    private static InstanceTypes instanceTypes(PricesOptions options) {
        InstanceTypes types = InstanceTypes.defaults();
        for (Location catalog : options.catalogs()) {
            if (!catalog.isHttp()) {
                try {
                    types = types.with(InstanceTypes.of(PriceCatalog.load(catalog.path()).quotes()));
                } catch (RuntimeException e) {
                    // Its reading reports what is wrong with it, every round; here it only adds no types.
                }
            }
        }
        if (options.instanceTypes().isPresent()) {
            try {
                String table = Files.readString(options.instanceTypes().get(), StandardCharsets.UTF_8);
                types = types.with(InstanceTypes.parse(table, options.instanceTypes().get().toString()));
            } catch (IOException | IllegalArgumentException e) {
                throw new UsageException("--instance-types " + options.instanceTypes().get() + ": " + e.getMessage());
            }
        }
        return types;
    }

    private static int dryRun(List<PriceSource> sources, PrintStream out, PrintStream err, Clock clock) {
        PriceWatch.Round round = PriceWatch.readAll(sources);
        report(round, err);
        for (PriceQuote quote : PublishedPrices.empty().news(round.readings(), clock.instant(),
                PriceQuote.CONFIRMATION_INTERVAL).versions()) {
            out.println(Json.writeString(quote));
        }
        return exitCode(round, err);
    }

    private static int publish(PricesOptions options, List<PriceSource> sources, Fetcher fetcher, PrintStream out,
            PrintStream err, Clock clock) throws InterruptedException {
        String bootstrap = options.bootstrap().orElseThrow();
        // Its own topic only: on a secured cluster the feed may describe and create no other.
        TopicAdmin.ensureTopics(bootstrap, TopicAdmin.DEFAULT_PARTITIONS, List.of(Topics.PRICES));
        PublishedPrices known = PublishedPrices.read(bootstrap, TOPIC_READ_TIMEOUT);
        out.println("prices: " + Topics.PRICES.name() + " at " + bootstrap + " holds " + known.size()
                + " price versions"
                + (known.unreadable() > 0 ? " (and " + known.unreadable() + " unreadable records)" : ""));
        Printer printer = new Printer(out, err, fetcher, clock);
        try (KafkaProducer<String,
                PriceQuote> producer = Producers.forTopic(Topics.PRICES, bootstrap, "gpu-ledger-prices")) {
            PriceWatch watch = new PriceWatch(sources, new PriceFeed(producer), known, printer, clock,
                    options.confirmEvery());
            if (!options.watch()) {
                watch.runOnce();
                return exitCode(printer.last, err);
            }
            CountDownLatch finished = new CountDownLatch(1);
            Thread stopper = new Thread(() -> {
                watch.stop();
                try {
                    // Let the round in progress finish and the producer close before the JVM goes.
                    finished.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "prices-stop");
            Runtime.getRuntime().addShutdownHook(stopper);
            out.println("prices: reading the sources every " + options.interval().toSeconds() + " s, confirming "
                    + "the prices in force every " + options.confirmEvery().toSeconds() + " s; Ctrl-C stops");
            Duration longestUnconfirmed = options.interval().plus(options.confirmEvery());
            if (longestUnconfirmed.compareTo(PriceQuote.DEFAULT_MAX_AGE) > 0) {
                err.println("prices: a price may go " + longestUnconfirmed.toSeconds() + " s without a confirmation "
                        + "(--interval plus --confirm-every), longer than the cost engine's default price max age of "
                        + PriceQuote.DEFAULT_MAX_AGE.toSeconds() + " s: it will count time as stale-priced while this "
                        + "feed runs; shorten them, or raise the engine's --price-max-age");
            }
            try {
                watch.runUntilStopped(options.interval());
            } finally {
                finished.countDown();
            }
            out.println("prices: stopped");
            return 0;
        }
    }

    private static int exitCode(PriceWatch.Round round, PrintStream err) {
        if (round == null || round.quotes() == 0) {
            err.println("prices: no price quote could be read from any source");
            return 1;
        }
        return 0;
    }

    static void report(PriceWatch.Round round, PrintStream err) {
        problems(round).forEach(err::println);
    }

    /** Rejected records one by one, skipped ones counted by reason, unreadable sources with why. */
    static List<String> problems(PriceWatch.Round round) {
        List<String> lines = new ArrayList<>();
        round.failures().forEach(failure -> lines.add("cannot read: " + failure));
        for (PriceReading reading : round.readings()) {
            reading.rejected().forEach(rejected -> lines.add("rejected: " + rejected));
            Map<String, List<PriceReading.Skipped>> byReason = new LinkedHashMap<>();
            reading.skipped().forEach(skipped -> byReason.computeIfAbsent(skipped.reason(), r -> new ArrayList<>())
                    .add(skipped));
            byReason.forEach((reason, records) -> lines.add("skipped: " + reason + " (" + records.size()
                    + (records.size() == 1 ? " record, " : " records, first ") + records.get(0).where() + ")"));
        }
        return lines;
    }

    /** Reads refused since the feed started, by reason; nothing when there were none. */
    static String refusedSinceStart(Map<Fetcher.Refusal, Long> counts) {
        List<String> reasons = new ArrayList<>();
        counts.forEach((refusal, count) -> {
            if (count > 0) {
                reasons.add(refusal.label() + " " + count);
            }
        });
        if (reasons.isEmpty()) {
            return "";
        }
        long total = counts.values().stream().mapToLong(Long::longValue).sum();
        return "; " + total + (total == 1 ? " read" : " reads") + " refused since start ("
                + String.join(", ", reasons) + ")";
    }

    /** What the person running {@code gpu-ledger prices} sees of each round. */
    private static final class Printer implements PriceWatch.Listener {

        private final PrintStream out;
        private final PrintStream err;
        private final Fetcher fetcher;
        private final Clock clock;
        private PriceWatch.Round last;
        /** What the previous round reported: a watch repeats a problem only once it has gone away and come back. */
        private Set<String> reported = Set.of();

        Printer(PrintStream out, PrintStream err, Fetcher fetcher, Clock clock) {
            this.out = out;
            this.err = err;
            this.fetcher = fetcher;
            this.clock = clock;
        }

        @Override
        public void read(PriceWatch.Round round) {
            last = round;
            List<String> problems = problems(round);
            problems.stream().filter(line -> !reported.contains(line)).forEach(err::println);
            reported = Set.copyOf(problems);
        }

        @Override
        public void published(PriceFeed.Outcome outcome) {
            out.println(now() + "  read " + last.quotes() + " quotes from " + last.readings().size() + " of "
                    + (last.readings().size() + last.failures().size()) + " sources; published " + outcome.published()
                    + " to " + Topics.PRICES.name() + ", " + outcome.unchanged() + " unchanged, "
                    + outcome.confirmed() + " prices in force confirmed" + refusedSinceStart(fetcher.refused()));
        }

        @Override
        public void failed(RuntimeException problem) {
            err.println(now() + "  round failed, trying again next round: " + problem.getMessage());
        }

        private String now() {
            return WallClock.now(clock.withZone(ZoneId.systemDefault()));
        }
    }
}
